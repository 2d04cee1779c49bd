//! Compiled programs: a scope root flattened once into a list of steps, run per event
//! without recursion or type lookups, with the same results as the tree decoder.

use super::super::tsdl::{ByteOrder, IntType, Selector, Type, TypeId};
use super::bits::{BitReader, ClockState};
use super::{fail, find_leaf, sign_extend, DecodeError, Decoder, Leaf, Value, NO_NAME};

/// A root type flattened into a list of steps, so the per-event loop runs without
/// recursion or type lookups: scalars and strings become single steps, structs their
/// alignment plus their fields' steps, variants one step holding each option's program.
/// Arrays, sequences and floats run through the tree decoder.
#[derive(Debug, Clone)]
pub enum Op {
    Int {
        /// Alignment minus one (alignments are powers of two).
        mask: u64,
        size: u32,
        order: ByteOrder,
        signed: bool,
        clock: bool,
        name: u32,
        top: bool,
        /// The enum type for enums (their leaves carry it), u32::MAX for integers.
        enum_ty: TypeId,
    },
    Str {
        name: u32,
        top: bool,
    },
    Align(u64),
    Variant {
        tag: u32,
        selectors: Vec<Selector>,
        programs: Vec<Program>,
    },
    Tree {
        ty: TypeId,
        name: u32,
        top: bool,
    },
}

#[derive(Debug, Clone, Default)]
pub struct Program {
    pub ops: Vec<Op>,
}

/// Flattening stops at this depth (deeper parts run through the tree decoder).
const MAX_COMPILE_DEPTH: u32 = 64;

impl Decoder<'_> {
    /// The program of a scope root (direct scalar fields are `top` leaves).
    pub fn compile_root(&self, ty: TypeId) -> Program {
        let mut ops = Vec::new();
        match &self.meta.types[ty as usize] {
            Type::Struct { fields, .. } => {
                ops.push(Op::Align(
                    u64::from(self.meta.aligns[ty as usize].max(1)) - 1,
                ));
                for f in fields {
                    self.compile(f.ty, f.name_id, true, &mut ops, 1);
                }
            }
            _ => self.compile(ty, NO_NAME, true, &mut ops, 1),
        }
        Program { ops }
    }

    fn compile(&self, ty: TypeId, name: u32, top: bool, ops: &mut Vec<Op>, depth: u32) {
        if depth > MAX_COMPILE_DEPTH {
            ops.push(Op::Tree { ty, name, top });
            return;
        }
        let int_op = |it: &IntType, enum_ty: TypeId| Op::Int {
            mask: u64::from(it.align.max(1)) - 1,
            size: it.size,
            order: it.order.unwrap_or(ByteOrder::Le),
            signed: it.signed,
            clock: it.clock.is_some() && enum_ty == u32::MAX,
            name,
            top,
            enum_ty,
        };
        match &self.meta.types[ty as usize] {
            Type::Int(it) => ops.push(int_op(it, u32::MAX)),
            Type::Enum { int, .. } => ops.push(int_op(int, ty)),
            Type::Str => ops.push(Op::Str { name, top }),
            Type::Struct { fields, .. } => {
                ops.push(Op::Align(
                    u64::from(self.meta.aligns[ty as usize].max(1)) - 1,
                ));
                for f in fields {
                    self.compile(f.ty, f.name_id, false, ops, depth + 1);
                }
            }
            Type::Variant {
                tag,
                options,
                selectors,
            } => {
                let programs = options
                    .iter()
                    .map(|o| {
                        let mut p = Vec::new();
                        self.compile(o.ty, o.name_id, top, &mut p, depth + 1);
                        Program { ops: p }
                    })
                    .collect();
                ops.push(Op::Variant {
                    tag: *tag,
                    selectors: selectors.clone(),
                    programs,
                });
            }
            _ => ops.push(Op::Tree { ty, name, top }),
        }
    }

    /// Run a program (see [`Decoder::compile_root`]); same results as the tree decoder.
    pub fn run<'a>(
        &self,
        prog: &Program,
        r: &mut BitReader<'a>,
        leaves: &mut Vec<Leaf<'a>>,
        clock: &mut ClockState,
    ) -> Result<(), DecodeError> {
        for op in &prog.ops {
            match *op {
                Op::Int {
                    mask,
                    size,
                    order,
                    signed,
                    clock: is_clock,
                    name,
                    top,
                    enum_ty,
                } => {
                    r.align_mask(mask)?;
                    let raw = r.read_bits(size, order)?;
                    if is_clock && clock.update {
                        clock.extend(raw, size);
                    }
                    if name != NO_NAME {
                        let value = if enum_ty != u32::MAX {
                            let v = if signed {
                                sign_extend(raw, size)
                            } else {
                                raw as i64
                            };
                            Value::Enum(v, enum_ty)
                        } else if signed {
                            Value::I(sign_extend(raw, size))
                        } else {
                            Value::U(raw)
                        };
                        leaves.push(Leaf { name, top, value });
                    }
                }
                Op::Str { name, top } => {
                    let p = (r.pos + 7) & !7;
                    if p > r.end {
                        return fail(
                            r.pos,
                            "alignment padding runs past the end of the packet content",
                        );
                    }
                    r.pos = p;
                    let text = r.read_cstr()?;
                    if name != NO_NAME {
                        leaves.push(Leaf {
                            name,
                            top,
                            value: Value::S(text),
                        });
                    }
                }
                Op::Align(mask) => {
                    r.align_mask(mask)?;
                }
                Op::Variant {
                    tag,
                    ref selectors,
                    ref programs,
                } => {
                    let Some(tag_leaf) = find_leaf(leaves, tag) else {
                        return fail(
                            r.pos,
                            format!(
                                "variant tag `{}` not found before the variant",
                                self.name(tag)
                            ),
                        );
                    };
                    let Value::Enum(v, enum_ty) = tag_leaf.value else {
                        return fail(
                            r.pos,
                            format!("variant tag `{}` is not an enum", self.name(tag)),
                        );
                    };
                    let v = i128::from(v);
                    let chosen = selectors
                        .iter()
                        .find(|(t, _)| *t == enum_ty)
                        .and_then(|(_, e)| e.iter().find(|(lo, hi, _)| *lo <= v && v <= *hi))
                        .and_then(|&(_, _, o)| programs.get(o as usize));
                    let Some(chosen) = chosen else {
                        return fail(r.pos, format!("variant tag value {v} selects no option"));
                    };
                    self.run(chosen, r, leaves, clock)?;
                }
                Op::Tree { ty, name, top } => self.decode(ty, name, top, r, leaves, clock, 1)?,
            }
        }
        Ok(())
    }
}
