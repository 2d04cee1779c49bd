//! The TSDL tokenizer: identifiers, integer literals, strings and punctuation, read on
//! demand, each with its metadata line.

use super::{err, MetaError};

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Int(u64),
    Str(String),
    Punct(&'static str),
    Eof,
}

impl Tok {
    pub(super) fn describe(&self) -> String {
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
pub(super) struct Lexer<'t> {
    pub(super) text: &'t str,
    pub(super) i: usize,
    pub(super) line: usize,
}

impl Lexer<'_> {
    /// The next token and its line; `Eof` at the end, every time after it too.
    pub(super) fn next_token(&mut self) -> Result<(Tok, usize), MetaError> {
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
