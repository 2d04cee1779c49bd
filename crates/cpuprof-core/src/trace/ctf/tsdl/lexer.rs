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
            Tok::Str(s) => format!("string \"{}\"", cut(&crate::escape::escape(s))),
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
            if c == b'"' || c == b'\'' {
                let (tok, j) = quoted(s, i, line)?;
                self.i = j;
                return Ok((tok, line));
            }
            return match PUNCTS.iter().find(|p| s[i..].starts_with(p.as_bytes())) {
                Some(p) => {
                    self.i += p.len();
                    Ok((Tok::Punct(p), line))
                }
                None => {
                    let ch = text[i..].chars().next().unwrap_or('?');
                    err(line, format!("unexpected character {}", show_char(ch)))
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

/// A character as shown in a message: itself in backquotes, or its code point when it is
/// a control or invisible character.
fn show_char(ch: char) -> String {
    if crate::escape::is_unsafe_char(ch) || ch.is_whitespace() {
        format!("U+{:04X}", u32::from(ch))
    } else {
        format!("`{ch}`")
    }
}

/// A string literal (`"..."`, a `Tok::Str`) or a character constant (`'c'`, a `Tok::Int`
/// of its value, as in C; CTF 1.8 allows both) starting at `s[i]`, with C's escape
/// sequences; the token and the index past it. An unknown escape is an error on its line.
fn quoted(s: &[u8], i: usize, line: usize) -> Result<(Tok, usize), MetaError> {
    let quote = s[i];
    let what = if quote == b'"' {
        "string literal"
    } else {
        "character constant"
    };
    let mut j = i + 1;
    let mut buf = Vec::new();
    loop {
        let Some(&b) = s.get(j) else {
            return err(line, format!("{what} is never closed"));
        };
        j += 1;
        match b {
            _ if b == quote => break,
            b'\n' => return err(line, format!("{what} runs past the end of the line")),
            b'\\' => {
                let Some(&e) = s.get(j) else {
                    return err(line, format!("{what} is never closed"));
                };
                j += 1;
                let byte = match e {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'v' => 0x0b,
                    b'\\' | b'\'' | b'"' | b'?' => e,
                    b'0'..=b'7' => {
                        // Up to three octal digits.
                        let mut v = u32::from(e - b'0');
                        for _ in 0..2 {
                            match s.get(j) {
                                Some(&d @ b'0'..=b'7') => {
                                    v = v * 8 + u32::from(d - b'0');
                                    j += 1;
                                }
                                _ => break,
                            }
                        }
                        if v > 0xff {
                            return err(
                                line,
                                format!("octal escape \\{v:o} in a {what} is over 255"),
                            );
                        }
                        v as u8
                    }
                    b'x' => {
                        let mut v = 0u32;
                        let mut digits = 0;
                        while let Some(d) = s.get(j).and_then(|&d| (d as char).to_digit(16)) {
                            v = v.saturating_mul(16).saturating_add(d);
                            digits += 1;
                            j += 1;
                        }
                        if digits == 0 || v > 0xff {
                            return err(line, format!("bad hexadecimal escape in a {what}"));
                        }
                        v as u8
                    }
                    other => {
                        let shown = std::str::from_utf8(&s[j - 1..])
                            .ok()
                            .and_then(|t| t.chars().next())
                            .unwrap_or(char::from(other));
                        return err(
                            line,
                            format!(
                                "unknown escape sequence `\\{}` in a {what}",
                                if crate::escape::is_unsafe_char(shown) || shown.is_whitespace() {
                                    format!("U+{:04X}", u32::from(shown))
                                } else {
                                    shown.to_string()
                                }
                            ),
                        );
                    }
                };
                buf.push(byte);
            }
            other => buf.push(other),
        }
    }
    if quote == b'"' {
        return Ok((Tok::Str(String::from_utf8_lossy(&buf).into_owned()), j));
    }
    // A character constant: one character (one byte, or one UTF-8 character: its code
    // point, as a wide constant would have it).
    let value = match std::str::from_utf8(&buf) {
        Ok(t) if t.chars().count() == 1 && buf.len() > 1 => {
            u64::from(u32::from(t.chars().next().unwrap_or('\0')))
        }
        _ if buf.len() == 1 => u64::from(buf[0]),
        _ if buf.is_empty() => return err(line, "empty character constant `''`"),
        _ => return err(line, "character constant of more than one character"),
    };
    Ok((Tok::Int(value), j))
}
