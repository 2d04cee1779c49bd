//! The TSDL parser: its state, the token lookahead, the top-level constructs, block
//! entries and values; what each construct builds is in the child modules.

mod attrs;
mod blocks;
mod decl;
mod resolve;

use std::collections::HashMap;

use super::lexer::{Lexer, Tok};
use super::{
    err, ByteOrder, Clock, EnvValue, EventClass, MetaError, Metadata, StreamClass, Type, TypeId,
    MAX_METADATA_BYTES,
};

/// A block entry: key, metadata line, and a value (`=`) or a type (`:=`).
type BlockEntry = (String, usize, Result<Val, TypeId>);

/// A value on the right of `=` in a block or an attribute list.
#[derive(Debug, Clone)]
enum Val {
    Int(i128),
    Str(String),
    /// An identifier or a dotted path (`le`, `clock.monotonic.value`).
    Path(Vec<String>),
}

impl std::fmt::Display for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Int(i) => write!(f, "{i}"),
            Val::Str(s) => write!(f, "\"{}\"", crate::escape::escape_cut(s, 40)),
            Val::Path(p) => f.write_str(&crate::escape::escape_cut(&p.join("."), 80)),
        }
    }
}

/// At most this many metadata warnings are kept (the rest counted in the last one).
const MAX_META_WARNINGS: usize = 32;

struct Parser<'t> {
    /// What was ignored (`line N: ...`), at most [`MAX_META_WARNINGS`] and a count.
    warnings: Vec<String>,
    warnings_dropped: usize,
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
        warnings: Vec::new(),
        warnings_dropped: 0,
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
    /// Note something ignored at metadata line `line`.
    fn warn(&mut self, line: usize, message: String) {
        if self.warnings.len() < MAX_META_WARNINGS {
            self.warnings.push(format!("line {line}: {message}"));
        } else {
            self.warnings_dropped += 1;
        }
    }

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
    /// The next token's name when it is one (taken), else None (nothing taken).
    fn optional_ident(&mut self) -> Option<String> {
        match self.peek().clone() {
            Tok::Ident(n) => {
                self.bump();
                Some(n)
            }
            _ => None,
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
}
