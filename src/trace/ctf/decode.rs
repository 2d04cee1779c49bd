//! Decoding CTF 1.8 fields from bytes: bit-level positions and alignment, per-type byte
//! order, clock-mapped integers that extend the stream clock, variants selected by their
//! enum tag, static arrays and sequences. Decoded scalars land in a flat list of
//! [`Leaf`]s (no allocation per event); compound values are not materialised.

use super::tsdl::{ByteOrder, Metadata, Selector, Type, TypeId};

/// Marks array/sequence elements: decoded (to move the position) but not kept.
const NO_NAME: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    U(u64),
    I(i64),
    F(f64),
    /// A string's bytes, without the terminating NUL.
    S(&'a [u8]),
    /// An enum's integer value and the enum type (for variant selection).
    Enum(i64, TypeId),
}

impl Value<'_> {
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::U(v) => i64::try_from(v).ok(),
            Value::I(v) | Value::Enum(v, _) => Some(v),
            _ => None,
        }
    }
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U(v) => Some(v),
            Value::I(v) | Value::Enum(v, _) => u64::try_from(v).ok(),
            _ => None,
        }
    }
}

/// One decoded scalar: its field name id (see [`Metadata::names`]), whether it is a
/// direct field of the scope's root struct, and its value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Leaf<'a> {
    pub name: u32,
    pub top: bool,
    pub value: Value<'a>,
}

/// Why a field could not be decoded; `bit` is the absolute bit position in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub bit: u64,
    pub what: String,
}

fn fail<T>(bit: u64, what: impl Into<String>) -> Result<T, DecodeError> {
    Err(DecodeError {
        bit,
        what: what.into(),
    })
}

/// A bit cursor over one file; reads never pass `end` (bits).
pub struct BitReader<'a> {
    pub data: &'a [u8],
    pub pos: u64,
    pub end: u64,
    /// Elements of zero-size types (which the packet size does not bound) this reader
    /// may still decode ([`MAX_EMPTY_ELEMENTS`] per reader, one reader per event).
    pub empty_left: u64,
}

/// Elements of zero-size types (empty structs, arrays of them) one event may decode,
/// nested arrays included: their lengths come from the data and cost no bits, so only
/// this bounds them.
pub const MAX_EMPTY_ELEMENTS: u64 = 1 << 20;
/// Decoded fields one event may hold (arrays and sequences of named struct elements keep
/// theirs).
pub const MAX_EVENT_LEAVES: usize = 1 << 20;

impl<'a> BitReader<'a> {
    /// A reader of `data` from bit `pos` to bit `end`.
    pub fn new(data: &'a [u8], pos: u64, end: u64) -> BitReader<'a> {
        BitReader {
            data,
            pos,
            end,
            empty_left: MAX_EMPTY_ELEMENTS,
        }
    }

    #[inline]
    pub fn align(&mut self, align: u32) -> Result<(), DecodeError> {
        // Alignments are powers of two (checked by the metadata parser).
        self.align_mask(u64::from(align.max(1)) - 1)
    }

    /// [`Self::align`] with the alignment given as `align - 1` (what the compiled decoders
    /// keep).
    #[inline]
    pub fn align_mask(&mut self, mask: u64) -> Result<(), DecodeError> {
        let p = (self.pos + mask) & !mask;
        if p > self.end {
            return fail(
                self.pos,
                "alignment padding runs past the end of the packet content",
            );
        }
        self.pos = p;
        Ok(())
    }

    /// A NUL-terminated string at the current (byte-aligned) position, without its NUL;
    /// the position moves past the NUL.
    #[inline]
    pub fn read_cstr(&mut self) -> Result<&'a [u8], DecodeError> {
        let start = (self.pos / 8) as usize;
        let end = (self.end / 8) as usize;
        let hay = &self.data[start..end.max(start)];
        let Some(nul) = memchr::memchr(0, hay) else {
            return fail(
                self.pos,
                "a string runs past the end of the packet content (no NUL)",
            );
        };
        self.pos += 8 * (nul as u64 + 1);
        Ok(&hay[..nul])
    }

    /// An unsigned integer of `size` bits (1..=64) at the current position.
    #[inline]
    pub fn read_bits(&mut self, size: u32, order: ByteOrder) -> Result<u64, DecodeError> {
        let size64 = u64::from(size);
        if self.pos + size64 > self.end {
            return fail(
                self.pos,
                format!("a {size}-bit field runs past the end of the packet content"),
            );
        }
        let byte = (self.pos / 8) as usize;
        let shift = (self.pos % 8) as u32;
        let v = if shift == 0
            && order == ByteOrder::Le
            && (size == 32 || size == 64 || size == 16 || size == 8)
        {
            let b = &self.data[byte..];
            match size {
                32 => u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
                64 => u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
                16 => u64::from(u16::from_le_bytes([b[0], b[1]])),
                _ => u64::from(b[0]),
            }
        } else if shift == 0 && size % 8 == 0 {
            let n = (size / 8) as usize;
            let b = &self.data[byte..byte + n];
            let mut buf = [0u8; 8];
            match order {
                ByteOrder::Le => {
                    buf[..n].copy_from_slice(b);
                    u64::from_le_bytes(buf)
                }
                ByteOrder::Be => {
                    buf[8 - n..].copy_from_slice(b);
                    u64::from_be_bytes(buf)
                }
            }
        } else {
            let nbytes = ((u64::from(shift) + size64).div_ceil(8)) as usize;
            let b = &self.data[byte..byte + nbytes];
            let mut acc: u128 = 0;
            let mask: u128 = (1u128 << size) - 1;
            match order {
                ByteOrder::Le => {
                    for (i, &x) in b.iter().enumerate() {
                        acc |= u128::from(x) << (8 * i);
                    }
                    ((acc >> shift) & mask) as u64
                }
                ByteOrder::Be => {
                    for &x in b {
                        acc = (acc << 8) | u128::from(x);
                    }
                    let total = 8 * nbytes as u32;
                    ((acc >> (total - shift - size)) & mask) as u64
                }
            }
        };
        self.pos += size64;
        Ok(v)
    }
}

/// The stream clock (cycles) that clock-mapped integers extend.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClockState {
    pub value: u64,
    /// Off while decoding a packet context (its `timestamp_end` must not move the clock).
    pub update: bool,
}

impl ClockState {
    /// An N-bit clock field sets the low N bits; a smaller value than the current low
    /// bits means the counter wrapped, so 2^N is added.
    #[inline]
    pub fn extend(&mut self, v: u64, size: u32) {
        if size >= 64 {
            self.value = v;
            return;
        }
        let mask = (1u64 << size) - 1;
        let low = self.value & mask;
        let mut new = (self.value & !mask) | v;
        if v < low {
            new = new.wrapping_add(1u64 << size);
        }
        self.value = new;
    }
}

pub struct Decoder<'m> {
    pub meta: &'m Metadata,
}

/// Variant/sequence references are resolved against earlier leaves; this bounds the
/// backward scan so a huge event cannot make it quadratic.
const MAX_SCAN: usize = 4096;

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
    fn decode<'a>(
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
                self.decode_elems(*elem, *len, r, leaves, clock, depth)?;
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
                self.decode_elems(*elem, len, r, leaves, clock, depth)?;
            }
        }
        Ok(())
    }

    fn decode_elems<'a>(
        &self,
        elem: TypeId,
        len: u64,
        r: &mut BitReader<'a>,
        leaves: &mut Vec<Leaf<'a>>,
        clock: &mut ClockState,
        depth: u32,
    ) -> Result<(), DecodeError> {
        if len == 0 {
            return Ok(());
        }
        r.align(self.meta.aligns[elem as usize])?;
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

    fn name(&self, id: u32) -> &str {
        self.meta.names.get(id as usize).map_or("?", String::as_str)
    }
}

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
        let int_op = |it: &super::tsdl::IntType, enum_ty: TypeId| Op::Int {
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

fn find_leaf<'b, 'a>(leaves: &'b [Leaf<'a>], name: u32) -> Option<&'b Leaf<'a>> {
    leaves.iter().rev().take(MAX_SCAN).find(|l| l.name == name)
}

pub(super) fn sign_extend(raw: u64, size: u32) -> i64 {
    if size >= 64 {
        raw as i64
    } else {
        let shift = 64 - size;
        ((raw << shift) as i64) >> shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_fields_little_and_big_endian() {
        // LE: 5-bit 0b10101 then 27 bits 0x123_4567 packed from the LSB of byte 0.
        let word: u32 = 0b10101 | (0x123_4567 << 5);
        let le = word.to_le_bytes();
        let mut r = BitReader::new(&le, 0, 32);
        assert_eq!(r.read_bits(5, ByteOrder::Le).unwrap(), 0b10101);
        assert_eq!(r.read_bits(27, ByteOrder::Le).unwrap(), 0x123_4567);
        // BE: fields packed from the MSB of byte 0.
        let word: u32 = (0b10101 << 27) | 0x123_4567;
        let be = word.to_be_bytes();
        let mut r = BitReader::new(&be, 0, 32);
        assert_eq!(r.read_bits(5, ByteOrder::Be).unwrap(), 0b10101);
        assert_eq!(r.read_bits(27, ByteOrder::Be).unwrap(), 0x123_4567);
        assert!(r.read_bits(1, ByteOrder::Be).is_err());
    }

    #[test]
    fn clock_extension_wraps() {
        let mut c = ClockState {
            value: 0x1_0000_07F0,
            update: true,
        };
        c.extend(0x7F5, 27); // low bits grow: no wrap
        assert_eq!(c.value, 0x1_0000_07F5);
        c.extend(0x10, 27); // smaller low bits: wrapped once
        assert_eq!(c.value, 0x1_0000_0000 + (1 << 27) + 0x10);
        c.extend(42, 64);
        assert_eq!(c.value, 42);
        assert_eq!(sign_extend(0b11111, 5), -1);
        assert_eq!(sign_extend(0x7FFF_FFFF, 32), 0x7FFF_FFFF);
    }
}
