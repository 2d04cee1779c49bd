//! TSDL (CTF 1.8 metadata) as LTTng-UST 2.x writes it: unwrap packetized metadata, then a
//! tokenizer and a recursive-descent parser for the subset LTTng uses (trace, env, clock,
//! stream, event and callsite blocks; integer, floating_point, string, struct, variant,
//! enum, static arrays, sequences; typealias and typedef). Types are resolved while
//! parsing into one arena ([`Metadata::types`]); anything outside the subset is an error
//! naming the construct and the metadata line.

mod lexer;
mod parser;
mod text;

pub use parser::parse_metadata;
pub use text::{looks_like_metadata, metadata_text, METADATA_MAGIC};

// Budgets (docs/formats.md, "LTTng CTF trace directories"). Sizes and decode steps of
// every type are computed once, when the type is declared, from those of its parts
// (types are shared by id, never expanded), so a type that doubles the previous one 60
// times costs 60 entries; only what it would expand to is checked against these.

/// Metadata text larger than this is refused (LTTng's is a few MB at most).
pub const MAX_METADATA_BYTES: usize = 64 << 20;
/// Decode steps (scalars, strings, struct and variant nodes, array elements) of one
/// scope root: a packet header or context, an event header or context, an event's
/// fields. LTTng's largest are tens.
pub const MAX_ROOT_STEPS: u64 = 1 << 16;
/// Decode steps of all scope roots together (what the compiled decoders hold).
pub const MAX_TOTAL_STEPS: u64 = 1 << 20;
/// Fields and options of all struct and variant types declared (a named type used by
/// name copies its fields).
pub const MAX_DECLARED_FIELDS: usize = 1 << 20;
/// Variant option selections (variant, enum label) built from the metadata.
pub const MAX_SELECTOR_ENTRIES: usize = 1 << 20;

pub type TypeId = u32;

/// A variant's option selection for one enum type: (lowest value, highest value, option).
pub type Selector = (TypeId, Vec<(i128, i128, u32)>);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteOrder {
    Le,
    Be,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntType {
    /// Bits, 1..=64.
    pub size: u32,
    /// Bits, a power of two.
    pub align: u32,
    pub signed: bool,
    /// None until resolved: `native` (the default) is the trace's byte order.
    pub order: Option<ByteOrder>,
    pub base: u32,
    /// `encoding = UTF8/ASCII` (arrays and sequences of such integers are text).
    pub text: bool,
    /// Index into [`Metadata::clocks`] for `map = clock.NAME.value`.
    pub clock: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumMapping {
    pub label: String,
    pub lo: i128,
    pub hi: i128,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Without the leading underscore LTTng adds (`_vpid` is `vpid`).
    pub name: String,
    /// Index into [`Metadata::names`].
    pub name_id: u32,
    pub ty: TypeId,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    Int(IntType),
    Float {
        size: u32,
        align: u32,
        order: Option<ByteOrder>,
    },
    Str,
    Struct {
        fields: Vec<Field>,
        align: u32,
    },
    Variant {
        /// The tag field's name (last path component, underscore stripped).
        tag: u32,
        options: Vec<Field>,
        /// Per enum type whose labels name options: (value range, option index), so
        /// decoding selects an option without comparing strings.
        selectors: Vec<Selector>,
    },
    Enum {
        int: IntType,
        mappings: Vec<EnumMapping>,
    },
    Array {
        elem: TypeId,
        len: u64,
    },
    Sequence {
        elem: TypeId,
        /// The length field's name id (last path component, underscore stripped).
        length: u32,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clock {
    pub name: String,
    pub freq: u64,
    pub offset_s: i64,
    pub offset: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamClass {
    pub id: u64,
    pub packet_context: Option<TypeId>,
    pub event_header: Option<TypeId>,
    pub event_context: Option<TypeId>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventClass {
    pub name: String,
    pub id: u64,
    pub stream_id: u64,
    pub context: Option<TypeId>,
    pub fields: Option<TypeId>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvValue {
    Int(i128),
    Str(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// What the parser ignored (`line N: unknown attribute ...`), for the reader's
    /// warnings.
    pub warnings: Vec<String>,
    pub byte_order: ByteOrder,
    pub uuid: Option<[u8; 16]>,
    pub packet_header: Option<TypeId>,
    pub env: Vec<(String, EnvValue)>,
    pub clocks: Vec<Clock>,
    pub streams: Vec<StreamClass>,
    pub events: Vec<EventClass>,
    pub types: Vec<Type>,
    /// Field names, interned (`Field::name_id`).
    pub names: Vec<String>,
    /// Per type: its alignment in bits.
    pub aligns: Vec<u32>,
    /// Per type: a lower bound of its size in bits (bounds array and sequence lengths).
    pub min_bits: Vec<u64>,
    /// Per type: the decode steps of one value at most (sequences count one element),
    /// saturating; see [`MAX_ROOT_STEPS`].
    pub steps: Vec<u64>,
}

impl Metadata {
    pub fn name_id(&self, name: &str) -> Option<u32> {
        self.names.iter().position(|n| n == name).map(|i| i as u32)
    }

    /// An integer of the trace environment (`vpid` of LTTng's per-process traces).
    pub fn env_int(&self, key: &str) -> Option<i64> {
        self.env.iter().find_map(|(k, v)| match v {
            EnvValue::Int(i) if k == key => i64::try_from(*i).ok(),
            _ => None,
        })
    }

    pub fn env_str(&self, key: &str) -> Option<&str> {
        self.env.iter().find_map(|(k, v)| match v {
            EnvValue::Str(s) if k == key => Some(s.as_str()),
            _ => None,
        })
    }
}

/// A metadata problem: the 1-based metadata line (0 when not tied to one) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for MetaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: {}", self.line, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, MetaError> {
    Err(MetaError {
        line,
        message: message.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"/* CTF 1.8 */
typealias integer { size = 8; align = 8; signed = false; } := uint8_t;
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := unsigned long;
trace { major = 1; minor = 8; byte_order = be; packet.header := struct { uint32_t magic; uint8_t uuid[16]; }; };
env { hostname = "h"; n = -3; };
clock { name = "c"; freq = 1000; offset_s = 5; offset = 7; };
typealias integer { size = 27; align = 1; map = clock.c.value; } := ts27;
stream { event.header := struct { enum : uint8_t { a = 0 ... 30, b } id; variant <id> { struct { ts27 timestamp; } a; struct { uint32_t id; } b; } v; } align(8); };
event { name = "p:e"; id = 0; fields := struct { string _name; unsigned long _len; uint8_t _data[_len]; uint8_t _m[2][3]; }; };
"#;

    #[test]
    fn parses_every_construct_of_the_subset() {
        let m = parse_metadata(SMALL).unwrap();
        assert_eq!(m.byte_order, ByteOrder::Be);
        assert_eq!(m.env_str("hostname"), Some("h"));
        assert_eq!(m.env[1], ("n".into(), EnvValue::Int(-3)));
        assert_eq!(
            m.clocks[0],
            Clock {
                name: "c".into(),
                freq: 1000,
                offset_s: 5,
                offset: 7
            }
        );
        let e = &m.events[0];
        assert_eq!(e.name, "p:e");
        let Some(Type::Struct { fields, .. }) = e.fields.map(|t| &m.types[t as usize]) else {
            panic!()
        };
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["name", "len", "data", "m"]);
        assert!(matches!(
            m.types[fields[2].ty as usize],
            Type::Sequence { .. }
        ));
        // m[2][3]: an array of 2 arrays of 3.
        let Type::Array { elem, len: 2 } = m.types[fields[3].ty as usize] else {
            panic!()
        };
        assert!(matches!(m.types[elem as usize], Type::Array { len: 3, .. }));
        // `native` resolved to the trace's order; the clock mapping resolved.
        let hdr = m.streams[0].event_header.unwrap();
        let Type::Struct { fields, align: 8 } = &m.types[hdr as usize] else {
            panic!()
        };
        let Type::Enum { int, mappings } = &m.types[fields[0].ty as usize] else {
            panic!()
        };
        assert_eq!(int.order, Some(ByteOrder::Be));
        assert_eq!(
            mappings[1],
            EnumMapping {
                label: "b".into(),
                lo: 31,
                hi: 31
            }
        );
    }

    #[test]
    fn a_type_named_without_a_body_must_be_declared_before() {
        // Line 10 is the event; each field refers to a struct, variant or enum by name.
        for (field, message) in [
            ("struct nope _x;", "unknown struct `nope`"),
            ("variant nope <_n> _x;", "unknown variant `nope`"),
            ("enum nope _x;", "unknown enum `nope`"),
            ("struct _x;", "unknown struct `_x`"),
            ("struct;", "`struct` without a name or a body"),
        ] {
            let bad = SMALL.replace("string _name;", &format!("string _name; {field}"));
            let e = parse_metadata(&bad).unwrap_err();
            assert_eq!((e.line, e.message.as_str()), (10, message), "{field}");
        }
    }

    #[test]
    fn errors_name_the_construct_and_line() {
        let bad = SMALL.replace("string _name;", "float _name;");
        let e = parse_metadata(&bad).unwrap_err();
        assert_eq!(e.line, 10);
        assert!(e.message.contains("float"), "{e}");
        // An unknown attribute is a warning on its line (babeltrace2 warns too); a known
        // one with a value of the wrong kind is the error, shown as written.
        let odd = SMALL.replace("align = 1; map", "align = 1; frobnicate = 3; map");
        let m = parse_metadata(&odd).unwrap();
        assert_eq!(
            m.warnings,
            ["line 8: unknown attribute `frobnicate` in an integer; ignored"]
        );
        let bad = SMALL.replace("align = 1; map", "align = 1; signed = \"x\"; map");
        let e = parse_metadata(&bad).unwrap_err();
        assert_eq!(e.line, 8);
        assert_eq!(e.message, "unsupported integer attribute `signed = \"x\"`");
        let e = parse_metadata("trace { byte_order = le; }; gadget x;").unwrap_err();
        assert!(e.message.contains("gadget"), "{e}");
    }
}
