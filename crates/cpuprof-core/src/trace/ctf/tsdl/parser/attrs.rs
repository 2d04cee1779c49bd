//! Attribute lists (`{ key = value; .. }`) of integers, floating points and strings, and
//! a struct's `align(N)`.

use super::super::lexer::Tok;
use super::super::{err, ByteOrder, IntType, MetaError, Type, TypeId};
use super::{Parser, Val};

/// The attributes of an integer this reader knows (a bad value of one is an error; any
/// other attribute is a warning and ignored, as babeltrace2 does).
const INT_ATTRS: [&str; 7] = [
    "size",
    "align",
    "signed",
    "byte_order",
    "base",
    "encoding",
    "map",
];
const FLOAT_ATTRS: [&str; 4] = ["exp_dig", "mant_dig", "align", "byte_order"];

impl Parser<'_> {
    /// Optional `align(N)` after a struct body; 1 when absent.
    pub(super) fn align_attr(&mut self) -> Result<u32, MetaError> {
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
    pub(super) fn attr_list(&mut self) -> Result<Vec<(String, usize, Val)>, MetaError> {
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

    pub(super) fn int_attrs(&mut self) -> Result<IntType, MetaError> {
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
                (k, v) if INT_ATTRS.contains(&k) => {
                    return err(l, format!("unsupported integer attribute `{k} = {v}`"))
                }
                (k, _) => self.warn(l, format!("unknown attribute `{k}` in an integer; ignored")),
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

    pub(super) fn float_attrs(&mut self) -> Result<TypeId, MetaError> {
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
                (k, v) if FLOAT_ATTRS.contains(&k) => {
                    return err(
                        l,
                        format!("unsupported floating_point attribute `{k} = {v}`"),
                    )
                }
                (k, _) => self.warn(
                    l,
                    format!("unknown attribute `{k}` in a floating_point; ignored"),
                ),
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
