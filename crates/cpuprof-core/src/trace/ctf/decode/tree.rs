//! The tree decoder: a value decoded by walking its type (what compiled programs leave
//! to it: arrays, sequences, floats, parts nested too deep), within the per-event caps.

use super::super::tsdl::{ByteOrder, Type, TypeId};
use super::bits::{BitReader, ClockState};
use super::{
    fail, find_leaf, sign_extend, DecodeError, Decoder, Leaf, Value, MAX_EMPTY_ELEMENTS,
    MAX_EVENT_LEAVES, NO_NAME,
};

impl<'m> Decoder<'m> {
    /// Decode the struct `ty` as a scope root: its direct scalar fields are `top` leaves.
    pub fn decode_root<'a>(
        &self,
        ty: TypeId,
        r: &mut BitReader<'a>,
        leaves: &mut Vec<Leaf<'a>>,
        clock: &mut ClockState,
    ) -> Result<(), DecodeError> {
        match &self.meta.types[ty as usize] {
            Type::Struct { fields, .. } => {
                r.align(self.meta.aligns[ty as usize])?;
                for f in fields {
                    self.decode(f.ty, f.name_id, true, r, leaves, clock, 0)?;
                }
                Ok(())
            }
            _ => self.decode(ty, NO_NAME, true, r, leaves, clock, 0),
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn decode<'a>(
        &self,
        ty: TypeId,
        name: u32,
        top: bool,
        r: &mut BitReader<'a>,
        leaves: &mut Vec<Leaf<'a>>,
        clock: &mut ClockState,
        depth: u32,
    ) -> Result<(), DecodeError> {
        if depth > 256 {
            return fail(r.pos, "fields nested too deeply");
        }
        match &self.meta.types[ty as usize] {
            Type::Int(it) => {
                r.align(it.align)?;
                let raw = r.read_bits(it.size, it.order.unwrap_or(ByteOrder::Le))?;
                if it.clock.is_some() && clock.update {
                    clock.extend(raw, it.size);
                }
                if name != NO_NAME {
                    let value = if it.signed {
                        Value::I(sign_extend(raw, it.size))
                    } else {
                        Value::U(raw)
                    };
                    leaves.push(Leaf { name, top, value });
                }
            }
            Type::Enum { int, .. } => {
                r.align(int.align)?;
                let raw = r.read_bits(int.size, int.order.unwrap_or(ByteOrder::Le))?;
                let v = if int.signed {
                    sign_extend(raw, int.size)
                } else {
                    raw as i64
                };
                if name != NO_NAME {
                    leaves.push(Leaf {
                        name,
                        top,
                        value: Value::Enum(v, ty),
                    });
                }
            }
            Type::Float { size, align, order } => {
                r.align(*align)?;
                let raw = r.read_bits(*size, order.unwrap_or(ByteOrder::Le))?;
                if name != NO_NAME {
                    let f = if *size == 32 {
                        f64::from(f32::from_bits(raw as u32))
                    } else {
                        f64::from_bits(raw)
                    };
                    leaves.push(Leaf {
                        name,
                        top,
                        value: Value::F(f),
                    });
                }
            }
            Type::Str => {
                r.align(8)?;
                let text = r.read_cstr()?;
                if name != NO_NAME {
                    leaves.push(Leaf {
                        name,
                        top,
                        value: Value::S(text),
                    });
                }
            }
            Type::Struct { fields, .. } => {
                r.align(self.meta.aligns[ty as usize])?;
                for f in fields {
                    self.decode(f.ty, f.name_id, false, r, leaves, clock, depth + 1)?;
                }
            }
            Type::Variant {
                tag,
                options,
                selectors,
            } => {
                let Some(tag_leaf) = find_leaf(leaves, *tag) else {
                    return fail(
                        r.pos,
                        format!(
                            "variant tag `{}` not found before the variant",
                            self.name(*tag)
                        ),
                    );
                };
                let Value::Enum(v, enum_ty) = tag_leaf.value else {
                    return fail(
                        r.pos,
                        format!("variant tag `{}` is not an enum", self.name(*tag)),
                    );
                };
                let v = i128::from(v);
                let opt = selectors
                    .iter()
                    .find(|(t, _)| *t == enum_ty)
                    .and_then(|(_, entries)| {
                        entries.iter().find(|(lo, hi, _)| *lo <= v && v <= *hi)
                    })
                    .map(|&(_, _, o)| &options[o as usize]);
                let Some(opt) = opt else {
                    return fail(r.pos, format!("variant tag value {v} selects no option"));
                };
                self.decode(opt.ty, opt.name_id, top, r, leaves, clock, depth + 1)?;
            }
            Type::Array { elem, len } => {
                self.decode_elems(*elem, *len, (name, top), r, leaves, clock, depth)?;
            }
            Type::Sequence { elem, length } => {
                let Some(len) = find_leaf(leaves, *length).and_then(|l| l.value.as_u64()) else {
                    return fail(
                        r.pos,
                        format!(
                            "sequence length `{}` not found (or negative) before the sequence",
                            self.name(*length)
                        ),
                    );
                };
                self.decode_elems(*elem, len, (name, top), r, leaves, clock, depth)?;
            }
        }
        Ok(())
    }

    /// The `len` elements of an array or sequence named `named` (its name id and
    /// whether it is a direct field): text (bytes of `encoding = UTF8/ASCII`) is one
    /// string leaf, its bytes up to the first NUL, as babeltrace2 shows it.
    #[allow(clippy::too_many_arguments)]
    fn decode_elems<'a>(
        &self,
        elem: TypeId,
        len: u64,
        named: (u32, bool),
        r: &mut BitReader<'a>,
        leaves: &mut Vec<Leaf<'a>>,
        clock: &mut ClockState,
        depth: u32,
    ) -> Result<(), DecodeError> {
        // An array is aligned as its elements are, even when it has none (babeltrace2
        // reads the field after an empty `align = 16` array at the aligned position).
        r.align(self.meta.aligns[elem as usize])?;
        if len == 0 {
            return Ok(());
        }
        let min = self.meta.min_bits[elem as usize];
        let left = r.end - r.pos;
        if min.saturating_mul(len) > left {
            return fail(
                r.pos,
                format!("an array of {len} elements runs past the end of the packet content"),
            );
        }
        // Zero-size elements: bound the count so a corrupt length cannot spin (nested
        // arrays too: every level draws on the same budget).
        if min == 0 {
            if len > r.empty_left {
                return fail(
                    r.pos,
                    format!("an array of {len} elements of empty type (more than {MAX_EMPTY_ELEMENTS} in one event)"),
                );
            }
            r.empty_left -= len;
        }
        // Byte-sized integers (uuid, text): skip in one step.
        if let Type::Int(it) = &self.meta.types[elem as usize] {
            if it.size == 8 && it.align <= 8 && r.pos % 8 == 0 && it.clock.is_none() {
                if it.text && named.0 != NO_NAME {
                    let start = (r.pos / 8) as usize;
                    let bytes = &r.data[start..start + len as usize];
                    let text = bytes
                        .iter()
                        .position(|&b| b == 0)
                        .map_or(bytes, |nul| &bytes[..nul]);
                    leaves.push(Leaf {
                        name: named.0,
                        top: named.1,
                        value: Value::S(text),
                    });
                }
                r.pos += 8 * len;
                return Ok(());
            }
        }
        for _ in 0..len {
            self.decode(elem, NO_NAME, false, r, leaves, clock, depth + 1)?;
            if leaves.len() > MAX_EVENT_LEAVES {
                return fail(
                    r.pos,
                    format!("more than {MAX_EVENT_LEAVES} fields in one event"),
                );
            }
        }
        Ok(())
    }

    pub(super) fn name(&self, id: u32) -> &str {
        self.meta.names.get(id as usize).map_or("?", String::as_str)
    }
}
