//! Decoding CTF 1.8 fields from bytes: bit-level positions and alignment, per-type byte
//! order, clock-mapped integers that extend the stream clock, variants selected by their
//! enum tag, static arrays and sequences. Decoded scalars land in a flat list of
//! [`Leaf`]s (no allocation per event); compound values are not materialised.

mod bits;
mod program;
mod tree;

use super::tsdl::{Metadata, TypeId};
pub(crate) use bits::find_nul;
pub use bits::{BitReader, ClockState};
pub use program::{Op, Program};

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

/// Elements of zero-size types (empty structs, arrays of them) one event may decode,
/// nested arrays included: their lengths come from the data and cost no bits, so only
/// this bounds them.
pub const MAX_EMPTY_ELEMENTS: u64 = 1 << 20;
/// Decoded fields one event may hold (arrays and sequences of named struct elements keep
/// theirs).
pub const MAX_EVENT_LEAVES: usize = 1 << 20;

pub struct Decoder<'m> {
    pub meta: &'m Metadata,
}

/// Variant/sequence references are resolved against earlier leaves; this bounds the
/// backward scan so a huge event cannot make it quadratic.
const MAX_SCAN: usize = 4096;

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
