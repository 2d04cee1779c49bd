//! TSDL (CTF 1.8 metadata) as LTTng-UST 2.x writes it: unwrap packetized metadata, then a
//! tokenizer and a recursive-descent parser for the subset LTTng uses (trace, env, clock,
//! stream, event and callsite blocks; integer, floating_point, string, struct, variant,
//! enum, static arrays, sequences; typealias and typedef). Types are resolved while
//! parsing into one arena ([`Metadata::types`]); anything outside the subset is an error
//! naming the construct and the metadata line.

use std::collections::HashMap;

/// Magic of a metadata packet header (`0x75D11D57`), in the trace's byte order.
pub const METADATA_MAGIC: u32 = 0x75D1_1D57;
/// Bytes of a metadata packet header: magic, uuid[16], checksum, content_size,
/// packet_size, compression, encryption, checksum scheme, major, minor.
const METADATA_HEADER_LEN: usize = 37;
/// Nesting deeper than this is refused (bounds the parser's recursion on hostile input).
const MAX_DEPTH: usize = 64;

// Budgets (README "CTF trace directories"). Sizes and decode steps of every type are
// computed once, when the type is declared, from those of its parts (types are shared
// by id, never expanded), so a type that doubles the previous one 60 times costs 60
// entries; only what it would expand to is checked against these.

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

/// A block entry: key, metadata line, and a value (`=`) or a type (`:=`).
type BlockEntry = (String, usize, Result<Val, TypeId>);

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

/// The TSDL text of a metadata file: packetized (magic `0x75D11D57` in either byte order,
/// each packet's header stripped and its content kept) or plain text.
pub fn metadata_text(bytes: &[u8]) -> Result<String, MetaError> {
    let le = bytes.len() >= 4
        && u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == METADATA_MAGIC;
    let be = bytes.len() >= 4
        && u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) == METADATA_MAGIC;
    if !le && !be {
        if bytes.is_empty() {
            return err(0, "empty metadata file");
        }
        return match std::str::from_utf8(bytes) {
            Ok(t) if t.trim_start().starts_with("/* CTF") || looks_like_tsdl(t) => {
                Ok(t.to_string())
            }
            Ok(_) => err(
                0,
                "neither packetized metadata (magic 0x75D11D57) nor TSDL text (`/* CTF 1.8 */`)",
            ),
            Err(_) => err(
                0,
                "neither packetized metadata (magic 0x75D11D57) nor UTF-8 TSDL text",
            ),
        };
    }
    let u32_at = |b: &[u8], o: usize| -> u32 {
        let w = [b[o], b[o + 1], b[o + 2], b[o + 3]];
        if le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut off = 0usize;
    while off < bytes.len() {
        let rest = &bytes[off..];
        if rest.len() < METADATA_HEADER_LEN {
            return err(0, format!("metadata packet at offset {off} is cut short ({} bytes, header needs {METADATA_HEADER_LEN})", rest.len()));
        }
        if u32_at(rest, 0) != METADATA_MAGIC {
            return err(
                0,
                format!(
                    "metadata packet at offset {off} has a bad magic (0x{:08x})",
                    u32_at(rest, 0)
                ),
            );
        }
        let content_bits = u64::from(u32_at(rest, 24));
        let packet_bits = u64::from(u32_at(rest, 28));
        let (compression, encryption) = (rest[32], rest[33]);
        if compression != 0 || encryption != 0 {
            return err(
                0,
                format!(
                    "metadata packet at offset {off} is compressed or encrypted (not supported)"
                ),
            );
        }
        if content_bits % 8 != 0
            || packet_bits % 8 != 0
            || content_bits > packet_bits
            || content_bits < (METADATA_HEADER_LEN as u64) * 8
        {
            return err(0, format!("metadata packet at offset {off} has inconsistent sizes (content {content_bits} bits, packet {packet_bits} bits)"));
        }
        let content = (content_bits / 8) as usize;
        let packet = (packet_bits / 8) as usize;
        if content > rest.len() {
            return err(0, format!("metadata packet at offset {off} is truncated: content needs {content} bytes, file has {}", rest.len()));
        }
        out.extend_from_slice(&rest[METADATA_HEADER_LEN..content]);
        // The last packet may be written without its padding.
        off += packet.min(rest.len());
    }
    // Writers may pad the content with NULs.
    while out.last() == Some(&0) {
        out.pop();
    }
    String::from_utf8(out).or_else(|_| err(0, "metadata text is not UTF-8"))
}

/// Whether the first bytes of a file (a few hundred are enough) look like CTF metadata:
/// a metadata packet (magic in either byte order) or TSDL text (`/* CTF 1.8 */` or a
/// TSDL keyword first, after an optional BOM and white space).
pub fn looks_like_metadata(head: &[u8]) -> bool {
    if head.len() >= 4 {
        let w = [head[0], head[1], head[2], head[3]];
        if u32::from_le_bytes(w) == METADATA_MAGIC || u32::from_be_bytes(w) == METADATA_MAGIC {
            return true;
        }
    }
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    // A cut in the middle of a UTF-8 sequence at the end of the head is not a reason.
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => match std::str::from_utf8(&head[..e.valid_up_to()]) {
            Ok(t) => t,
            Err(_) => return false,
        },
    };
    text.trim_start().starts_with("/* CTF") || looks_like_tsdl(text)
}

fn looks_like_tsdl(t: &str) -> bool {
    let t = t.trim_start();
    ["trace", "typealias", "typedef", "clock", "env", "struct"]
        .iter()
        .any(|k| t.starts_with(k))
}

// ---------------------------------------------------------------- tokenizer

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Int(u64),
    Str(String),
    Punct(&'static str),
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(v) => format!("`{v}`"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "end of metadata".into(),
        }
    }
}

const PUNCTS: [&str; 20] = [
    ":=", "...", "->", "{", "}", "(", ")", "[", "]", ";", ",", "=", ":", ".", "<", ">", "-", "+",
    "*", "?",
];

/// Tokens on demand (the parser looks one or two ahead): a metadata of millions of
/// tokens costs its text, not a token list.
struct Lexer<'t> {
    text: &'t str,
    i: usize,
    line: usize,
}

impl Lexer<'_> {
    /// The next token and its line; `Eof` at the end, every time after it too.
    fn next_token(&mut self) -> Result<(Tok, usize), MetaError> {
        let text = self.text;
        let s = text.as_bytes();
        while self.i < s.len() {
            let i = self.i;
            let c = s[i];
            let line = self.line;
            if c == b'\n' {
                self.line += 1;
                self.i += 1;
                continue;
            }
            if c.is_ascii_whitespace() || c == 0 {
                self.i += 1;
                continue;
            }
            if s[i..].starts_with(b"/*") {
                let start_line = line;
                let mut j = i + 2;
                loop {
                    if j + 1 >= s.len() {
                        return err(start_line, "comment `/*` is never closed");
                    }
                    if s[j] == b'*' && s[j + 1] == b'/' {
                        j += 2;
                        break;
                    }
                    if s[j] == b'\n' {
                        self.line += 1;
                    }
                    j += 1;
                }
                self.i = j;
                continue;
            }
            if s[i..].starts_with(b"//") {
                let mut j = i;
                while j < s.len() && s[j] != b'\n' {
                    j += 1;
                }
                self.i = j;
                continue;
            }
            if c.is_ascii_alphabetic() || c == b'_' {
                let mut j = i;
                while j < s.len() && (s[j].is_ascii_alphanumeric() || s[j] == b'_') {
                    j += 1;
                }
                self.i = j;
                return Ok((Tok::Ident(text[i..j].to_string()), line));
            }
            if c.is_ascii_digit() {
                let mut j = i;
                while j < s.len() && (s[j].is_ascii_alphanumeric()) {
                    j += 1;
                }
                self.i = j;
                let lit = &text[i..j];
                let body = lit.trim_end_matches(['u', 'U', 'l', 'L']);
                let parsed =
                    if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
                        u64::from_str_radix(h, 16)
                    } else if body.len() > 1 && body.starts_with('0') {
                        u64::from_str_radix(&body[1..], 8)
                    } else {
                        body.parse::<u64>()
                    };
                return match parsed {
                    Ok(v) => Ok((Tok::Int(v), line)),
                    Err(_) => err(line, format!("bad integer literal `{}`", cut(lit))),
                };
            }
            if c == b'"' {
                let mut j = i + 1;
                let mut buf = Vec::new();
                loop {
                    let Some(&b) = s.get(j) else {
                        return err(line, "string literal is never closed");
                    };
                    j += 1;
                    match b {
                        b'"' => break,
                        b'\n' => return err(line, "string literal runs past the end of the line"),
                        b'\\' => {
                            let Some(&e) = s.get(j) else {
                                return err(line, "string literal is never closed");
                            };
                            j += 1;
                            buf.push(match e {
                                b'n' => b'\n',
                                b't' => b'\t',
                                b'r' => b'\r',
                                b'0' => 0,
                                other => other,
                            });
                        }
                        other => buf.push(other),
                    }
                }
                self.i = j;
                return Ok((Tok::Str(String::from_utf8_lossy(&buf).into_owned()), line));
            }
            return match PUNCTS.iter().find(|p| s[i..].starts_with(p.as_bytes())) {
                Some(p) => {
                    self.i += p.len();
                    Ok((Tok::Punct(p), line))
                }
                None => {
                    let ch = text[i..].chars().next().unwrap_or('?');
                    err(line, format!("unexpected character {ch:?}"))
                }
            };
        }
        Ok((Tok::Eof, self.line))
    }
}

/// A literal as shown in a message: at most 40 characters.
fn cut(lit: &str) -> String {
    match lit.char_indices().nth(40) {
        Some((i, _)) => format!("{}…", &lit[..i]),
        None => lit.to_string(),
    }
}

// ---------------------------------------------------------------- parser

/// A value on the right of `=` in a block or an attribute list.
#[derive(Debug, Clone)]
enum Val {
    Int(i128),
    Str(String),
    /// An identifier or a dotted path (`le`, `clock.monotonic.value`).
    Path(Vec<String>),
}

struct Parser<'t> {
    lex: Lexer<'t>,
    /// Tokens looked at but not consumed yet.
    ahead: std::collections::VecDeque<(Tok, usize)>,
    /// The first tokenizer error: the tokens end there (`Eof`), and this is the error
    /// reported, whatever the parser made of the early end.
    lex_error: Option<MetaError>,
    types: Vec<Type>,
    aligns: Vec<u32>,
    min_bits: Vec<u64>,
    steps: Vec<u64>,
    /// Fields and options of every struct and variant in the arena (a budget).
    fields_total: usize,
    names: Vec<String>,
    name_ids: HashMap<String, u32>,
    aliases: HashMap<String, TypeId>,
    structs: HashMap<String, TypeId>,
    variants: HashMap<String, TypeId>,
    enums: HashMap<String, TypeId>,
    /// Clock names referenced by `map = clock.NAME.value`, index = `IntType::clock`.
    clock_refs: Vec<(String, usize)>,
    clock_ref_ids: HashMap<String, usize>,
    stream_ids: std::collections::HashSet<u64>,
    /// Decode steps of the scope roots declared so far (a budget).
    root_steps: u64,
    meta: PartialMeta,
}

#[derive(Default)]
struct PartialMeta {
    byte_order: Option<ByteOrder>,
    uuid: Option<[u8; 16]>,
    packet_header: Option<TypeId>,
    seen_trace: bool,
    env: Vec<(String, EnvValue)>,
    clocks: Vec<Clock>,
    streams: Vec<StreamClass>,
    events: Vec<EventClass>,
}

/// Parse TSDL text.
pub fn parse_metadata(text: &str) -> Result<Metadata, MetaError> {
    if text.len() > MAX_METADATA_BYTES {
        return err(
            0,
            format!(
                "metadata of {} bytes, more than the {MAX_METADATA_BYTES} bytes this reader accepts (LTTng writes a few MB at most)",
                text.len()
            ),
        );
    }
    let mut p = Parser {
        lex: Lexer {
            text,
            i: 0,
            line: 1,
        },
        ahead: std::collections::VecDeque::new(),
        lex_error: None,
        types: Vec::new(),
        aligns: Vec::new(),
        min_bits: Vec::new(),
        steps: Vec::new(),
        fields_total: 0,
        names: Vec::new(),
        name_ids: HashMap::new(),
        aliases: HashMap::new(),
        structs: HashMap::new(),
        variants: HashMap::new(),
        enums: HashMap::new(),
        clock_refs: Vec::new(),
        clock_ref_ids: HashMap::new(),
        stream_ids: std::collections::HashSet::new(),
        root_steps: 0,
        meta: PartialMeta::default(),
    };
    let parsed = p.top_level();
    if let Some(e) = p.lex_error.take() {
        return Err(e);
    }
    parsed?;
    p.finish()
}

fn strip_underscore(s: &str) -> &str {
    s.strip_prefix('_').unwrap_or(s)
}

impl Parser<'_> {
    /// At least `k + 1` tokens ahead (the last may be `Eof`).
    fn fill(&mut self, k: usize) {
        while self.ahead.len() <= k {
            if matches!(self.ahead.back(), Some((Tok::Eof, _))) {
                let line = self.lex.line;
                self.ahead.push_back((Tok::Eof, line));
                continue;
            }
            match self.lex.next_token() {
                Ok(t) => self.ahead.push_back(t),
                Err(e) => {
                    let line = e.line;
                    self.lex_error.get_or_insert(e);
                    self.lex.i = self.lex.text.len();
                    self.ahead.push_back((Tok::Eof, line));
                }
            }
        }
    }
    fn peek(&mut self) -> &Tok {
        self.fill(0);
        &self.ahead[0].0
    }
    fn peek_at(&mut self, k: usize) -> &Tok {
        self.fill(k);
        &self.ahead[k].0
    }
    fn line(&mut self) -> usize {
        self.fill(0);
        self.ahead[0].1
    }
    fn bump(&mut self) -> Tok {
        self.fill(0);
        if matches!(self.ahead[0].0, Tok::Eof) {
            return Tok::Eof;
        }
        self.ahead.pop_front().map_or(Tok::Eof, |t| t.0)
    }
    fn is_punct(&mut self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }
    fn is_ident(&mut self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(q) if q == w)
    }
    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn expect_punct(&mut self, p: &str, ctx: &str) -> Result<(), MetaError> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            err(
                self.line(),
                format!("expected `{p}` {ctx}, found {}", self.peek().describe()),
            )
        }
    }
    fn ident(&mut self, ctx: &str) -> Result<String, MetaError> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            other => err(
                self.line(),
                format!("expected a name {ctx}, found {}", other.describe()),
            ),
        }
    }

    fn name_id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.name_ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.name_ids.insert(name.to_string(), id);
        id
    }

    fn add_type(&mut self, t: Type) -> Result<TypeId, MetaError> {
        let line = self.line();
        let parts = match &t {
            Type::Struct { fields, .. } => fields.len(),
            Type::Variant { options, .. } => options.len(),
            _ => 0,
        };
        self.fields_total = self.fields_total.saturating_add(parts);
        if self.fields_total > MAX_DECLARED_FIELDS {
            return err(
                line,
                format!("more than {MAX_DECLARED_FIELDS} struct fields and variant options declared; refused"),
            );
        }
        let steps = |ids: &mut dyn Iterator<Item = TypeId>| {
            ids.fold(1u64, |acc, ty| acc.saturating_add(self.steps[ty as usize]))
        };
        let step = match &t {
            Type::Struct { fields, .. } => steps(&mut fields.iter().map(|f| f.ty)),
            Type::Variant { options, .. } => steps(&mut options.iter().map(|f| f.ty)),
            Type::Array { elem, len } => match &self.types[*elem as usize] {
                // Decoded as one skip (see `decode_elems`).
                Type::Int(i) if i.size == 8 && i.align <= 8 && i.clock.is_none() => 1,
                _ => self.steps[*elem as usize]
                    .saturating_mul(*len)
                    .saturating_add(1),
            },
            Type::Sequence { elem, .. } => self.steps[*elem as usize].saturating_add(1),
            _ => 1,
        };
        let (align, min) = match &t {
            Type::Int(i) => (i.align, u64::from(i.size)),
            Type::Enum { int, .. } => (int.align, u64::from(int.size)),
            Type::Float { size, align, .. } => (*align, u64::from(*size)),
            Type::Str => (8, 8),
            Type::Struct { fields, align } => {
                let a = fields
                    .iter()
                    .map(|f| self.aligns[f.ty as usize])
                    .fold(*align, u32::max);
                let m = fields.iter().fold(0u64, |acc, f| {
                    acc.saturating_add(self.min_bits[f.ty as usize])
                });
                (a, m)
            }
            Type::Variant { options, .. } => (
                1,
                options
                    .iter()
                    .map(|f| self.min_bits[f.ty as usize])
                    .min()
                    .unwrap_or(0),
            ),
            Type::Array { elem, len } => (
                self.aligns[*elem as usize],
                self.min_bits[*elem as usize].saturating_mul(*len),
            ),
            Type::Sequence { elem, .. } => (self.aligns[*elem as usize], 0),
        };
        let id = self.types.len() as TypeId;
        self.types.push(t);
        self.aligns.push(align);
        self.min_bits.push(min);
        self.steps.push(step);
        Ok(id)
    }

    /// A scope root (`what`, declared on `line`) within [`MAX_ROOT_STEPS`] and, with the
    /// roots before it, [`MAX_TOTAL_STEPS`].
    fn check_root(&mut self, ty: TypeId, what: &str, line: usize) -> Result<(), MetaError> {
        let steps = self.steps[ty as usize];
        let bytes = self.min_bits[ty as usize] / 8;
        if steps > MAX_ROOT_STEPS {
            let size = if bytes > 0 {
                format!(" and at least {bytes} bytes")
            } else {
                String::new()
            };
            return err(
                line,
                format!(
                    "{what}: a layout of {} decode steps{size} (nested types repeating each other?), over the budget of {MAX_ROOT_STEPS}; refused",
                    if steps == u64::MAX { "more than 2^64".to_string() } else { steps.to_string() }
                ),
            );
        }
        self.root_steps = self.root_steps.saturating_add(steps);
        if self.root_steps > MAX_TOTAL_STEPS {
            return err(
                line,
                format!("{what}: the scopes declared so far take more than {MAX_TOTAL_STEPS} decode steps together; refused"),
            );
        }
        Ok(())
    }

    fn top_level(&mut self) -> Result<(), MetaError> {
        loop {
            let line = self.line();
            match self.peek().clone() {
                Tok::Eof => return Ok(()),
                Tok::Punct(";") => {
                    self.bump();
                }
                Tok::Ident(w) => match w.as_str() {
                    "typealias" => self.typealias(0)?,
                    "typedef" => self.typedef(0)?,
                    "trace" | "env" | "clock" | "stream" | "event" | "callsite"
                        if matches!(self.peek_at(1), Tok::Punct("{")) =>
                    {
                        self.bump();
                        self.bump();
                        let entries = self.block_entries()?;
                        self.eat_punct(";");
                        self.apply_block(&w, entries, line)?;
                    }
                    "struct" | "variant" | "enum" => {
                        self.type_spec(0, false)?;
                        self.expect_punct(";", "after a type definition")?;
                    }
                    other => {
                        return err(line, format!("unsupported top-level construct `{other}`"))
                    }
                },
                other => {
                    return err(
                        line,
                        format!("unexpected {} at top level", other.describe()),
                    )
                }
            }
        }
    }

    /// `key = value;`, `key := type;`, typealias/typedef until `}`.
    fn block_entries(&mut self) -> Result<Vec<BlockEntry>, MetaError> {
        let mut out = Vec::new();
        loop {
            let line = self.line();
            match self.peek().clone() {
                Tok::Punct("}") => {
                    self.bump();
                    return Ok(out);
                }
                Tok::Punct(";") => {
                    self.bump();
                }
                Tok::Ident(w) if w == "typealias" => self.typealias(1)?,
                Tok::Ident(w) if w == "typedef" => self.typedef(1)?,
                Tok::Ident(_) => {
                    let mut key = self.ident("")?;
                    while self.eat_punct(".") {
                        key.push('.');
                        key.push_str(&self.ident("in a dotted key")?);
                    }
                    if self.eat_punct(":=") {
                        let t = self.type_spec(1, false)?;
                        out.push((key, line, Err(t)));
                    } else {
                        self.expect_punct("=", &format!("after `{key}`"))?;
                        let v = self.value()?;
                        out.push((key, line, Ok(v)));
                    }
                    self.expect_punct(";", "after a block entry")?;
                }
                Tok::Eof => return err(line, "block is never closed (missing `}`)"),
                other => return err(line, format!("unexpected {} in a block", other.describe())),
            }
        }
    }

    fn value(&mut self) -> Result<Val, MetaError> {
        let line = self.line();
        match self.bump() {
            Tok::Int(v) => Ok(Val::Int(i128::from(v))),
            Tok::Punct("-") => match self.bump() {
                Tok::Int(v) => Ok(Val::Int(-i128::from(v))),
                other => err(
                    line,
                    format!("expected a number after `-`, found {}", other.describe()),
                ),
            },
            Tok::Punct("+") => match self.bump() {
                Tok::Int(v) => Ok(Val::Int(i128::from(v))),
                other => err(
                    line,
                    format!("expected a number after `+`, found {}", other.describe()),
                ),
            },
            Tok::Str(s) => Ok(Val::Str(s)),
            Tok::Ident(s) => {
                let mut path = vec![s];
                while self.eat_punct(".") {
                    path.push(self.ident("in a dotted value")?);
                }
                Ok(Val::Path(path))
            }
            other => err(
                line,
                format!("expected a value, found {}", other.describe()),
            ),
        }
    }

    fn apply_block(
        &mut self,
        kind: &str,
        entries: Vec<BlockEntry>,
        line: usize,
    ) -> Result<(), MetaError> {
        let int = |v: &Result<Val, TypeId>, key: &str, l: usize| -> Result<i128, MetaError> {
            match v {
                Ok(Val::Int(i)) => Ok(*i),
                _ => err(l, format!("`{key}` must be an integer")),
            }
        };
        match kind {
            "trace" => {
                if self.meta.seen_trace {
                    return err(line, "second `trace` block");
                }
                self.meta.seen_trace = true;
                for (key, l, v) in &entries {
                    match key.as_str() {
                        "byte_order" => {
                            self.meta.byte_order = Some(match v {
                                Ok(Val::Path(p)) if p.len() == 1 => match p[0].as_str() {
                                    "le" | "little" => ByteOrder::Le,
                                    "be" | "big" | "network" => ByteOrder::Be,
                                    o => {
                                        return err(
                                            *l,
                                            format!("trace byte_order `{o}` is not le or be"),
                                        )
                                    }
                                },
                                _ => return err(*l, "trace byte_order must be le or be"),
                            })
                        }
                        "uuid" => match v {
                            Ok(Val::Str(s)) => {
                                self.meta.uuid = Some(parse_uuid(s).ok_or_else(|| MetaError {
                                    line: *l,
                                    message: format!("bad uuid {s:?}"),
                                })?)
                            }
                            _ => return err(*l, "trace uuid must be a string"),
                        },
                        "packet.header" => match v {
                            Err(t) => {
                                self.check_root(*t, "the trace's packet.header", *l)?;
                                self.meta.packet_header = Some(*t)
                            }
                            Ok(_) => return err(*l, "packet.header must be a type (`:=`)"),
                        },
                        "major" => {
                            let m = int(v, key, *l)?;
                            if m != 1 {
                                return err(
                                    *l,
                                    format!("CTF major version {m} is not supported (only 1.8)"),
                                );
                            }
                        }
                        _ => {}
                    }
                }
                if self.meta.byte_order.is_none() {
                    return err(line, "trace block has no byte_order");
                }
            }
            "env" => {
                for (key, l, v) in entries {
                    let val = match v {
                        Ok(Val::Int(i)) => EnvValue::Int(i),
                        Ok(Val::Str(s)) => EnvValue::Str(s),
                        Ok(Val::Path(p)) => EnvValue::Str(p.join(".")),
                        Err(_) => {
                            return err(l, format!("env `{key}` must be a value, not a type"))
                        }
                    };
                    self.meta.env.push((key, val));
                }
            }
            "clock" => {
                let mut c = Clock {
                    name: String::new(),
                    freq: 1_000_000_000,
                    offset_s: 0,
                    offset: 0,
                };
                let (mut offset_s, mut offset) = ((0i128, line), (0i128, line));
                for (key, l, v) in &entries {
                    match key.as_str() {
                        "name" => match v {
                            Ok(Val::Path(p)) if p.len() == 1 => c.name = p[0].clone(),
                            Ok(Val::Str(s)) => c.name = s.clone(),
                            _ => return err(*l, "clock name must be an identifier"),
                        },
                        "freq" => {
                            let f = int(v, key, *l)?;
                            if f <= 0 || f > i128::from(u64::MAX) {
                                return err(
                                    *l,
                                    format!("clock freq {f} is not a positive 64-bit number"),
                                );
                            }
                            c.freq = f as u64;
                        }
                        "offset_s" => offset_s = (int(v, key, *l)?, *l),
                        "offset" => offset = (int(v, key, *l)?, *l),
                        _ => {}
                    }
                }
                if c.name.is_empty() {
                    return err(line, "clock block has no name");
                }
                // Not clamped: a clamped offset would put every time at the end of the
                // range, silently.
                for ((v, l), key, unit) in
                    [(offset_s, "offset_s", "s"), (offset, "offset", "cycles")]
                {
                    match i64::try_from(v) {
                        Ok(v) if key == "offset_s" => c.offset_s = v,
                        Ok(v) => c.offset = v,
                        Err(_) => {
                            return err(
                                l,
                                format!(
                                    "clock `{}`: {key} = {v} {unit} does not fit a signed 64-bit number; its times cannot be converted",
                                    c.name
                                ),
                            )
                        }
                    }
                }
                self.meta.clocks.push(c);
            }
            "stream" => {
                let mut s = StreamClass {
                    id: 0,
                    packet_context: None,
                    event_header: None,
                    event_context: None,
                };
                for (key, l, v) in &entries {
                    match (key.as_str(), v) {
                        ("id", _) => {
                            s.id = u64::try_from(int(v, key, *l)?)
                                .or_else(|_| err(*l, "stream id must be >= 0"))?
                        }
                        ("packet.context", Err(t)) => s.packet_context = Some(*t),
                        ("event.header", Err(t)) => s.event_header = Some(*t),
                        ("event.context", Err(t)) => s.event_context = Some(*t),
                        ("packet.context" | "event.header" | "event.context", Ok(_)) => {
                            return err(*l, format!("`{key}` must be a type (`:=`)"))
                        }
                        _ => {}
                    }
                }
                if !self.stream_ids.insert(s.id) {
                    return err(line, format!("stream id {} declared twice", s.id));
                }
                for (t, what) in [
                    (s.packet_context, "packet.context"),
                    (s.event_header, "event.header"),
                    (s.event_context, "event.context"),
                ] {
                    if let Some(t) = t {
                        self.check_root(t, &format!("stream {} {what}", s.id), line)?;
                    }
                }
                self.meta.streams.push(s);
            }
            "event" => {
                let mut e = EventClass {
                    name: String::new(),
                    id: 0,
                    stream_id: 0,
                    context: None,
                    fields: None,
                };
                for (key, l, v) in &entries {
                    match (key.as_str(), v) {
                        ("name", Ok(Val::Str(s))) => e.name = s.clone(),
                        ("name", Ok(Val::Path(p))) => e.name = p.join("."),
                        ("id", _) => {
                            e.id = u64::try_from(int(v, key, *l)?)
                                .or_else(|_| err(*l, "event id must be >= 0"))?
                        }
                        ("stream_id", _) => {
                            e.stream_id = u64::try_from(int(v, key, *l)?)
                                .or_else(|_| err(*l, "stream_id must be >= 0"))?
                        }
                        ("context", Err(t)) => e.context = Some(*t),
                        ("fields", Err(t)) => e.fields = Some(*t),
                        ("context" | "fields", Ok(_)) => {
                            return err(*l, format!("event `{key}` must be a type (`:=`)"))
                        }
                        _ => {}
                    }
                }
                for (t, what) in [(e.context, "context"), (e.fields, "fields")] {
                    if let Some(t) = t {
                        let name = crate::escape::escape_cut(&e.name, 80);
                        self.check_root(t, &format!("event `{name}` {what}"), line)?;
                    }
                }
                self.meta.events.push(e);
            }
            // callsite blocks (source locations) carry nothing the importer needs.
            _ => {}
        }
        Ok(())
    }

    fn typealias(&mut self, depth: usize) -> Result<(), MetaError> {
        self.bump(); // typealias
        let t = self.type_spec(depth + 1, false)?;
        let line = self.line();
        self.expect_punct(":=", "in typealias")?;
        let mut words = Vec::new();
        while let Tok::Ident(w) = self.peek().clone() {
            self.bump();
            words.push(w);
        }
        if words.is_empty() {
            return err(line, "typealias without a name after `:=`");
        }
        if self.is_punct("*") {
            return err(self.line(), "pointer declarators are not supported");
        }
        self.expect_punct(";", "after typealias")?;
        self.aliases.insert(words.join(" "), t);
        Ok(())
    }

    fn typedef(&mut self, depth: usize) -> Result<(), MetaError> {
        self.bump(); // typedef
        let (t, name) = self.declaration(depth + 1)?;
        self.expect_punct(";", "after typedef")?;
        self.aliases.insert(name, t);
        Ok(())
    }

    /// `TYPE NAME [dims]`: the type (arrays/sequences applied) and the raw name.
    fn declaration(&mut self, depth: usize) -> Result<(TypeId, String), MetaError> {
        let line = self.line();
        let (t, name) = match self.peek().clone() {
            Tok::Ident(w)
                if !matches!(
                    w.as_str(),
                    "integer" | "floating_point" | "string" | "struct" | "variant" | "enum"
                ) =>
            {
                // Alias words then the declarator: `unsigned long events_discarded`.
                let mut words = Vec::new();
                while let Tok::Ident(w) = self.peek().clone() {
                    self.bump();
                    words.push(w);
                }
                if words.len() < 2 {
                    return err(
                        line,
                        format!("declaration `{}` has no type or no name", words.join(" ")),
                    );
                }
                let name = words.pop().unwrap_or_default();
                let alias = words.join(" ");
                let t = *self.aliases.get(&alias).ok_or_else(|| MetaError {
                    line,
                    message: format!("unknown type `{alias}`"),
                })?;
                (t, name)
            }
            _ => {
                let t = self.type_spec(depth, true)?;
                let name = self.ident("for the declared field")?;
                (t, name)
            }
        };
        if self.is_punct("*") {
            return err(self.line(), "pointer declarators are not supported");
        }
        // Dimensions, outermost first: `x[2][3]` is 2 arrays of 3.
        let mut dims = Vec::new();
        while self.eat_punct("[") {
            let l = self.line();
            let dim = match self.bump() {
                Tok::Int(n) => Ok(n),
                Tok::Ident(s) => {
                    let mut path = vec![s];
                    while self.eat_punct(".") {
                        path.push(self.ident("in a sequence length")?);
                    }
                    Err(path)
                }
                other => {
                    return err(
                        l,
                        format!("expected an array length, found {}", other.describe()),
                    )
                }
            };
            self.expect_punct("]", "after an array length")?;
            dims.push(dim);
        }
        let mut t = t;
        for d in dims.into_iter().rev() {
            t = match d {
                Ok(len) => self.add_type(Type::Array { elem: t, len })?,
                Err(path) => {
                    let last = path.last().cloned().unwrap_or_default();
                    let length = self.name_id(strip_underscore(&last));
                    self.add_type(Type::Sequence { elem: t, length })?
                }
            };
        }
        Ok((t, name))
    }

    /// A type specifier. `in_decl`: a declarator name follows (so alias words are not
    /// taken greedily here; declarations handle plain alias names themselves).
    fn type_spec(&mut self, depth: usize, _in_decl: bool) -> Result<TypeId, MetaError> {
        if depth > MAX_DEPTH {
            return err(
                self.line(),
                format!("types nested deeper than {MAX_DEPTH} levels"),
            );
        }
        let line = self.line();
        let word = match self.peek().clone() {
            Tok::Ident(w) => w,
            other => return err(line, format!("expected a type, found {}", other.describe())),
        };
        match word.as_str() {
            "integer" => {
                self.bump();
                let int = self.int_attrs()?;
                self.add_type(Type::Int(int))
            }
            "floating_point" => {
                self.bump();
                self.float_attrs()
            }
            "string" => {
                self.bump();
                if self.eat_punct("{") {
                    let attrs = self.attr_list()?;
                    for (k, l, _) in &attrs {
                        if k != "encoding" {
                            return err(*l, format!("unsupported string attribute `{k}`"));
                        }
                    }
                }
                self.add_type(Type::Str)
            }
            "struct" => {
                self.bump();
                let name = match self.peek().clone() {
                    Tok::Ident(n) => {
                        self.bump();
                        Some(n)
                    }
                    _ => None,
                };
                if self.eat_punct("{") {
                    let mut fields = Vec::new();
                    self.fields_until_close(depth, &mut fields)?;
                    let align = self.align_attr()?;
                    let t = self.add_type(Type::Struct { fields, align })?;
                    if let Some(n) = name {
                        self.structs.insert(n, t);
                    }
                    Ok(t)
                } else {
                    let n = name.ok_or_else(|| MetaError {
                        line,
                        message: "`struct` without a name or a body".into(),
                    })?;
                    let t = *self.structs.get(&n).ok_or_else(|| MetaError {
                        line,
                        message: format!("unknown struct `{n}`"),
                    })?;
                    if self.is_ident("align") {
                        let align = self.align_attr()?;
                        if let Type::Struct { fields, align: a } = self.types[t as usize].clone() {
                            return self.add_type(Type::Struct {
                                fields,
                                align: align.max(a),
                            });
                        }
                    }
                    Ok(t)
                }
            }
            "variant" => {
                self.bump();
                let name = match self.peek().clone() {
                    Tok::Ident(n) => {
                        self.bump();
                        Some(n)
                    }
                    _ => None,
                };
                let mut tag = None;
                if self.eat_punct("<") {
                    let mut path = vec![self.ident("as a variant tag")?];
                    while self.eat_punct(".") {
                        path.push(self.ident("in a variant tag")?);
                    }
                    self.expect_punct(">", "after a variant tag")?;
                    let last = path.last().cloned().unwrap_or_default();
                    tag = Some(self.name_id(strip_underscore(&last)));
                }
                if self.eat_punct("{") {
                    let mut options = Vec::new();
                    self.fields_until_close(depth, &mut options)?;
                    if options.is_empty() {
                        return err(line, "variant without options");
                    }
                    // An untagged named variant is stored with tag u32::MAX until used.
                    let t = self.add_type(Type::Variant {
                        tag: tag.unwrap_or(u32::MAX),
                        options,
                        selectors: Vec::new(),
                    })?;
                    if let Some(n) = name {
                        self.variants.insert(n, t);
                    }
                    if tag.is_none() && !matches!(self.peek(), Tok::Punct(";")) {
                        return err(line, "variant without a tag (`variant <tag> { .. }`)");
                    }
                    Ok(t)
                } else {
                    let n = name.ok_or_else(|| MetaError {
                        line,
                        message: "`variant` without a name or a body".into(),
                    })?;
                    let t = *self.variants.get(&n).ok_or_else(|| MetaError {
                        line,
                        message: format!("unknown variant `{n}`"),
                    })?;
                    match (tag, self.types[t as usize].clone()) {
                        (Some(tag), Type::Variant { options, .. }) => {
                            self.add_type(Type::Variant {
                                tag,
                                options,
                                selectors: Vec::new(),
                            })
                        }
                        (None, Type::Variant { tag, .. }) if tag != u32::MAX => Ok(t),
                        _ => err(line, format!("variant `{n}` used without a tag")),
                    }
                }
            }
            "enum" => {
                self.bump();
                let name = match self.peek().clone() {
                    Tok::Ident(n) => {
                        self.bump();
                        Some(n)
                    }
                    _ => None,
                };
                let container = if self.eat_punct(":") {
                    let l = self.line();
                    if self.is_ident("integer") {
                        self.bump();
                        self.int_attrs()?
                    } else {
                        let mut words = Vec::new();
                        while let Tok::Ident(w) = self.peek().clone() {
                            self.bump();
                            words.push(w);
                        }
                        let alias = words.join(" ");
                        self.int_alias(&alias, l)?
                    }
                } else if self.is_punct("{") {
                    self.int_alias("int", line)?
                } else {
                    let n = name.clone().ok_or_else(|| MetaError {
                        line,
                        message: "`enum` without a name or a body".into(),
                    })?;
                    return self.enums.get(&n).copied().ok_or_else(|| MetaError {
                        line,
                        message: format!("unknown enum `{n}`"),
                    });
                };
                self.expect_punct("{", "to open an enum body")?;
                let mut mappings = Vec::new();
                let mut next: i128 = 0;
                loop {
                    let l = self.line();
                    let label = match self.bump() {
                        Tok::Punct("}") => break,
                        Tok::Ident(s) | Tok::Str(s) => s,
                        other => {
                            return err(
                                l,
                                format!("expected an enum label, found {}", other.describe()),
                            )
                        }
                    };
                    let (lo, hi) = if self.eat_punct("=") {
                        let lo = self.enum_value()?;
                        let hi = if self.eat_punct("...") {
                            self.enum_value()?
                        } else {
                            lo
                        };
                        (lo, hi)
                    } else {
                        (next, next)
                    };
                    if hi < lo {
                        return err(l, format!("enum range {lo} ... {hi} is empty"));
                    }
                    next = hi.saturating_add(1);
                    mappings.push(EnumMapping { label, lo, hi });
                    if !self.eat_punct(",") {
                        self.expect_punct("}", "to close an enum body")?;
                        break;
                    }
                }
                let t = self.add_type(Type::Enum {
                    int: container,
                    mappings,
                })?;
                if let Some(n) = name {
                    self.enums.insert(n, t);
                }
                Ok(t)
            }
            _ => {
                let mut words = Vec::new();
                while let Tok::Ident(w) = self.peek().clone() {
                    self.bump();
                    words.push(w);
                }
                let alias = words.join(" ");
                self.aliases.get(&alias).copied().ok_or_else(|| MetaError {
                    line,
                    message: format!("unknown type `{alias}`"),
                })
            }
        }
    }

    fn enum_value(&mut self) -> Result<i128, MetaError> {
        let l = self.line();
        match self.value()? {
            Val::Int(v) => Ok(v),
            _ => err(l, "enum value must be an integer"),
        }
    }

    fn int_alias(&self, alias: &str, line: usize) -> Result<IntType, MetaError> {
        match self.aliases.get(alias).map(|&t| &self.types[t as usize]) {
            Some(Type::Int(i)) => Ok(*i),
            Some(_) => err(
                line,
                format!("enum container `{alias}` is not an integer type"),
            ),
            None => err(line, format!("unknown enum container type `{alias}`")),
        }
    }

    /// Struct or variant body after `{`, until `}`.
    fn fields_until_close(&mut self, depth: usize, out: &mut Vec<Field>) -> Result<(), MetaError> {
        loop {
            let line = self.line();
            match self.peek().clone() {
                Tok::Punct("}") => {
                    self.bump();
                    return Ok(());
                }
                Tok::Punct(";") => {
                    self.bump();
                }
                Tok::Ident(w) if w == "typealias" => self.typealias(depth + 1)?,
                Tok::Ident(w) if w == "typedef" => self.typedef(depth + 1)?,
                Tok::Ident(_) => {
                    let (t, name) = self.declaration(depth + 1)?;
                    self.expect_punct(";", &format!("after field `{name}`"))?;
                    let stripped = strip_underscore(&name).to_string();
                    let name_id = self.name_id(&stripped);
                    out.push(Field {
                        name: stripped,
                        name_id,
                        ty: t,
                    });
                }
                Tok::Eof => {
                    return err(line, "struct or variant body is never closed (missing `}`)")
                }
                other => {
                    return err(
                        line,
                        format!(
                            "unexpected {} in a struct or variant body",
                            other.describe()
                        ),
                    )
                }
            }
        }
    }

    /// Optional `align(N)` after a struct body; 1 when absent.
    fn align_attr(&mut self) -> Result<u32, MetaError> {
        if !self.is_ident("align") {
            return Ok(1);
        }
        self.bump();
        let line = self.line();
        self.expect_punct("(", "after align")?;
        let v = match self.bump() {
            Tok::Int(v) => v,
            other => {
                return err(
                    line,
                    format!("expected an alignment, found {}", other.describe()),
                )
            }
        };
        self.expect_punct(")", "after the alignment")?;
        check_align(v, line)
    }

    /// `{ key = value; ... }` after the opening brace has been consumed.
    fn attr_list(&mut self) -> Result<Vec<(String, usize, Val)>, MetaError> {
        let mut out = Vec::new();
        loop {
            let line = self.line();
            match self.bump() {
                Tok::Punct("}") => return Ok(out),
                Tok::Punct(";") => {}
                Tok::Ident(k) => {
                    self.expect_punct("=", &format!("after attribute `{k}`"))?;
                    let v = self.value()?;
                    if !self.eat_punct(";") && !self.is_punct("}") {
                        return err(
                            self.line(),
                            format!(
                                "expected `;` after attribute `{k}`, found {}",
                                self.peek().describe()
                            ),
                        );
                    }
                    out.push((k, line, v));
                }
                Tok::Eof => return err(line, "attribute list is never closed (missing `}`)"),
                other => {
                    return err(
                        line,
                        format!("unexpected {} in an attribute list", other.describe()),
                    )
                }
            }
        }
    }

    fn int_attrs(&mut self) -> Result<IntType, MetaError> {
        let line = self.line();
        self.expect_punct("{", "after `integer`")?;
        let attrs = self.attr_list()?;
        let mut it = IntType {
            size: 0,
            align: 0,
            signed: false,
            order: None,
            base: 10,
            text: false,
            clock: None,
        };
        for (k, l, v) in attrs {
            match (k.as_str(), &v) {
                ("size", Val::Int(n)) => {
                    if !(1..=64).contains(n) {
                        return err(l, format!("integer size {n} is outside 1..=64"));
                    }
                    it.size = *n as u32;
                }
                ("align", Val::Int(n)) => {
                    it.align = check_align(u64::try_from(*n).unwrap_or(0), l)?
                }
                ("signed", Val::Int(n)) => it.signed = *n != 0,
                ("signed", Val::Path(p)) if p.len() == 1 => {
                    it.signed = match p[0].as_str() {
                        "true" | "TRUE" => true,
                        "false" | "FALSE" => false,
                        o => return err(l, format!("signed = {o} is not true or false")),
                    }
                }
                ("byte_order", Val::Path(p)) if p.len() == 1 => {
                    it.order = byte_order_word(&p[0], l)?
                }
                ("base", Val::Int(n)) => it.base = *n as u32,
                ("base", Val::Path(_)) => it.base = 10,
                ("encoding", Val::Path(p)) if p.len() == 1 => {
                    it.text = match p[0].as_str() {
                        "none" => false,
                        "UTF8" | "ASCII" | "utf8" | "ascii" => true,
                        o => return err(l, format!("unsupported integer encoding `{o}`")),
                    }
                }
                ("map", Val::Path(p)) if p.len() == 3 && p[0] == "clock" && p[2] == "value" => {
                    let idx = match self.clock_ref_ids.get(&p[1]) {
                        Some(&i) => i,
                        None => {
                            self.clock_refs.push((p[1].clone(), l));
                            self.clock_ref_ids
                                .insert(p[1].clone(), self.clock_refs.len() - 1);
                            self.clock_refs.len() - 1
                        }
                    };
                    it.clock = Some(u16::try_from(idx).or_else(|_| err(l, "too many clocks"))?);
                }
                (k, v) => return err(l, format!("unsupported integer attribute `{k} = {v:?}`")),
            }
        }
        if it.size == 0 {
            return err(line, "integer without a size");
        }
        if it.align == 0 {
            it.align = if it.size % 8 == 0 { 8 } else { 1 };
        }
        Ok(it)
    }

    fn float_attrs(&mut self) -> Result<TypeId, MetaError> {
        let line = self.line();
        self.expect_punct("{", "after `floating_point`")?;
        let attrs = self.attr_list()?;
        let (mut exp, mut mant, mut align, mut order) = (0i128, 0i128, 0u32, None);
        for (k, l, v) in attrs {
            match (k.as_str(), &v) {
                ("exp_dig", Val::Int(n)) => exp = *n,
                ("mant_dig", Val::Int(n)) => mant = *n,
                ("align", Val::Int(n)) => align = check_align(u64::try_from(*n).unwrap_or(0), l)?,
                ("byte_order", Val::Path(p)) if p.len() == 1 => order = byte_order_word(&p[0], l)?,
                (k, v) => {
                    return err(
                        l,
                        format!("unsupported floating_point attribute `{k} = {v:?}`"),
                    )
                }
            }
        }
        let size = exp + mant;
        if size != 32 && size != 64 {
            return err(line, format!("floating_point of {size} bits (exp_dig {exp} + mant_dig {mant}) is not supported (32 or 64)"));
        }
        if align == 0 {
            align = 8;
        }
        self.add_type(Type::Float {
            size: size as u32,
            align,
            order,
        })
    }

    fn finish(mut self) -> Result<Metadata, MetaError> {
        if !self.meta.seen_trace {
            return err(0, "metadata has no `trace` block");
        }
        let order = self.meta.byte_order.unwrap_or(ByteOrder::Le);
        // Clock references -> clock indices.
        let mut clock_ids: HashMap<&str, usize> = HashMap::new();
        for (i, c) in self.meta.clocks.iter().enumerate() {
            clock_ids.entry(c.name.as_str()).or_insert(i);
        }
        let mut clock_map = Vec::new();
        for (name, l) in &self.clock_refs {
            match clock_ids.get(name.as_str()) {
                Some(&i) => {
                    clock_map.push(u16::try_from(i).or_else(|_| err(*l, "too many clocks"))?)
                }
                None => return err(*l, format!("integer mapped to undeclared clock `{name}`")),
            }
        }
        for t in &mut self.types {
            let fix = |i: &mut IntType| {
                i.order = Some(i.order.unwrap_or(order));
                i.clock = i.clock.map(|c| clock_map[c as usize]);
            };
            match t {
                Type::Int(i) => fix(i),
                Type::Enum { int, .. } => fix(int),
                Type::Float { order: o, .. } => *o = Some(o.unwrap_or(order)),
                _ => {}
            }
        }
        // Variant option selection tables: per variant, per enum type (in type order)
        // whose labels name options, (value range, option) in mapping order. Found
        // through an index of labels, so the cost is the matches, not variants x enums.
        let mut labels: HashMap<String, Vec<(TypeId, u32, i128, i128)>> = HashMap::new();
        for (i, t) in self.types.iter().enumerate() {
            if let Type::Enum { mappings, .. } = t {
                for (mi, m) in mappings.iter().enumerate() {
                    labels
                        .entry(strip_underscore(&m.label).to_string())
                        .or_default()
                        .push((i as TypeId, mi as u32, m.lo, m.hi));
                }
            }
        }
        let mut entries_total = 0usize;
        for t in &mut self.types {
            if let Type::Variant {
                options, selectors, ..
            } = t
            {
                // (enum type, mapping, lo, hi, option); the first option of a name wins.
                let mut hits: Vec<(TypeId, u32, i128, i128, u32)> = Vec::new();
                for (oi, o) in options.iter().enumerate() {
                    for &(ety, mi, lo, hi) in labels.get(&o.name).into_iter().flatten() {
                        hits.push((ety, mi, lo, hi, oi as u32));
                        entries_total += 1;
                    }
                    if entries_total > MAX_SELECTOR_ENTRIES {
                        return err(
                            0,
                            format!("more than {MAX_SELECTOR_ENTRIES} variant selections (variant options x enum labels); refused"),
                        );
                    }
                }
                hits.sort_unstable_by_key(|h| (h.0, h.1, h.4));
                hits.dedup_by_key(|h| (h.0, h.1));
                for group in hits.chunk_by(|a, b| a.0 == b.0) {
                    selectors.push((group[0].0, group.iter().map(|h| (h.2, h.3, h.4)).collect()));
                }
            }
        }
        if self.meta.streams.is_empty() && !self.meta.events.is_empty() {
            // CTF allows omitting the stream block when there is one stream class.
            self.meta.streams.push(StreamClass {
                id: 0,
                packet_context: None,
                event_header: None,
                event_context: None,
            });
        }
        let stream_ids: std::collections::HashSet<u64> =
            self.meta.streams.iter().map(|s| s.id).collect();
        for e in &self.meta.events {
            if !stream_ids.contains(&e.stream_id) {
                return err(
                    0,
                    format!(
                        "event `{}` names stream {} which is not declared",
                        e.name, e.stream_id
                    ),
                );
            }
        }
        Ok(Metadata {
            byte_order: order,
            uuid: self.meta.uuid,
            packet_header: self.meta.packet_header,
            env: self.meta.env,
            clocks: self.meta.clocks,
            streams: self.meta.streams,
            events: self.meta.events,
            types: self.types,
            names: self.names,
            aligns: self.aligns,
            min_bits: self.min_bits,
            steps: self.steps,
        })
    }
}

fn byte_order_word(w: &str, l: usize) -> Result<Option<ByteOrder>, MetaError> {
    match w {
        "native" => Ok(None),
        "le" | "little" => Ok(Some(ByteOrder::Le)),
        "be" | "big" | "network" => Ok(Some(ByteOrder::Be)),
        o => err(l, format!("unknown byte_order `{o}`")),
    }
}

fn check_align(v: u64, line: usize) -> Result<u32, MetaError> {
    if v == 0 || !v.is_power_of_two() || v > 1 << 16 {
        return err(
            line,
            format!("alignment {v} is not a power of two up to 65536"),
        );
    }
    Ok(v as u32)
}

fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let hex: Vec<u8> = s.bytes().filter(|&b| b != b'-').collect();
    if hex.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, pair) in hex.chunks(2).enumerate() {
        let st = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(st, 16).ok()?;
    }
    Some(out)
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
    fn errors_name_the_construct_and_line() {
        let bad = SMALL.replace("string _name;", "float _name;");
        let e = parse_metadata(&bad).unwrap_err();
        assert_eq!(e.line, 10);
        assert!(e.message.contains("float"), "{e}");
        let bad = SMALL.replace("align = 1; map", "align = 1; frobnicate = 3; map");
        let e = parse_metadata(&bad).unwrap_err();
        assert_eq!(e.line, 8);
        assert!(e.message.contains("frobnicate"), "{e}");
        let e = parse_metadata("trace { byte_order = le; }; gadget x;").unwrap_err();
        assert!(e.message.contains("gadget"), "{e}");
    }

    #[test]
    fn packetized_metadata_is_unwrapped() {
        let text = b"/* CTF 1.8 */ trace { byte_order = le; };";
        let mut bytes = Vec::new();
        for chunk in text.chunks(20) {
            let content = (37 + chunk.len()) as u32;
            let packet = content + 3;
            bytes.extend_from_slice(&METADATA_MAGIC.to_le_bytes());
            bytes.extend_from_slice(&[0; 16]);
            bytes.extend_from_slice(&0u32.to_le_bytes());
            bytes.extend_from_slice(&(content * 8).to_le_bytes());
            bytes.extend_from_slice(&(packet * 8).to_le_bytes());
            bytes.extend_from_slice(&[0, 0, 0, 1, 8]);
            bytes.extend_from_slice(chunk);
            bytes.extend_from_slice(&[0; 3]);
        }
        assert_eq!(metadata_text(&bytes).unwrap().as_bytes(), text);
        // The last packet holds 1 byte of text: cut inside its header.
        bytes.truncate(bytes.len() - 10);
        let e = metadata_text(&bytes).unwrap_err();
        assert!(e.message.contains("cut short"), "{e}");
    }
}
