//! Type declarations: `typealias`, `typedef`, declarators with array and sequence
//! dimensions, the type specifiers (each kind, and aliases), struct and variant bodies.

use std::collections::HashMap;

use super::super::lexer::Tok;
use super::super::{err, EnumMapping, Field, IntType, MetaError, Type, TypeId};
use super::{strip_underscore, Parser, Val};

/// Nesting deeper than this is refused (bounds the parser's recursion on hostile input).
const MAX_DEPTH: usize = 64;

/// The type a reference without a body names (`struct foo`, `variant bar <tag>`, `enum
/// e`): its name and the type `known` holds for it, declared before.
fn declared(
    known: &HashMap<String, TypeId>,
    kind: &str,
    name: Option<String>,
    line: usize,
) -> Result<(String, TypeId), MetaError> {
    let n = name.ok_or_else(|| MetaError {
        line,
        message: format!("`{kind}` without a name or a body"),
    })?;
    match known.get(&n) {
        Some(&t) => Ok((n, t)),
        None => err(line, format!("unknown {kind} `{n}`")),
    }
}

impl Parser<'_> {
    pub(super) fn typealias(&mut self, depth: usize) -> Result<(), MetaError> {
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
        // `:= void *;` (old LTTng metadata; babeltrace2 takes it): the alias is the
        // words and the stars.
        let mut alias = words.join(" ");
        if self.is_punct("*") {
            alias.push(' ');
            while self.eat_punct("*") {
                alias.push('*');
            }
        }
        self.expect_punct(";", "after typealias")?;
        self.aliases.insert(alias, t);
        Ok(())
    }

    pub(super) fn typedef(&mut self, depth: usize) -> Result<(), MetaError> {
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
    pub(super) fn type_spec(&mut self, depth: usize, _in_decl: bool) -> Result<TypeId, MetaError> {
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
                let name = self.optional_ident();
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
                    let (_, t) = declared(&self.structs, "struct", name, line)?;
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
                let name = self.optional_ident();
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
                    let (n, t) = declared(&self.variants, "variant", name, line)?;
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
                let name = self.optional_ident();
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
                    return declared(&self.enums, "enum", name, line).map(|(_, t)| t);
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
}
