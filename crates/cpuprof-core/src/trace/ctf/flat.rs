//! The fields of an op event decoded straight into [`OpFields`], without leaves: when an
//! event class's contexts and payload are plain integers and strings (LTTng's
//! `lttng_ust_pytorch` events: `vpid`, `vtid`, `name`, `overload_name`), their compiled
//! programs are flattened once into a list of steps that each say what the field is for
//! the pairing. Anything else (variants, enums, arrays, clock fields) keeps the generic
//! decoder, and so does an event whose flat decoding fails, so the generic decoder's
//! errors are the ones reported.

use super::decode::{sign_extend, BitReader, Op, Program, Value};
use super::tsdl::{ByteOrder, Metadata};

/// What the op pairing reads from a field (a direct field of its scope; anything else
/// is skipped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Skip,
    Pid,
    Tid,
    Name,
    Overload,
    /// A direct field the pairing does not use (counted as ignored).
    Other,
}

/// The name ids of the fields the pairing reads (see [`Metadata::name_id`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct OpFieldIds {
    pub vpid: Option<u32>,
    pub vtid: Option<u32>,
    pub name: Option<u32>,
    pub overload: Option<u32>,
}

impl OpFieldIds {
    pub fn of(meta: &Metadata) -> OpFieldIds {
        OpFieldIds {
            vpid: meta.name_id("vpid"),
            vtid: meta.name_id("vtid"),
            name: meta.name_id("name"),
            overload: meta.name_id("overload_name"),
        }
    }

    /// The role of a direct field named `name` (the last of several fields of one role
    /// wins, as in a scan of the decoded leaves).
    pub fn role(&self, name: u32) -> Role {
        let n = Some(name);
        if n == self.vpid {
            Role::Pid
        } else if n == self.vtid {
            Role::Tid
        } else if n == self.name {
            Role::Name
        } else if n == self.overload {
            Role::Overload
        } else {
            Role::Other
        }
    }
}

/// What the pairing takes from an op event's contexts and payload: for each field of
/// a role the last value decoded, and how many other direct fields there were.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct OpFields<'a> {
    pub pid: Option<i64>,
    pub tid: Option<i64>,
    pub name: Option<Value<'a>>,
    pub overload: Option<Value<'a>>,
    pub ignored: u32,
}

impl<'a> OpFields<'a> {
    /// Takes one decoded direct field.
    #[inline]
    pub fn take(&mut self, role: Role, value: Value<'a>) {
        match role {
            Role::Skip => {}
            Role::Pid => self.pid = value.as_i64(),
            Role::Tid => self.tid = value.as_i64(),
            Role::Name => self.name = Some(value),
            Role::Overload => self.overload = Some(value),
            Role::Other => self.ignored += 1,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Step {
    Align(u64),
    /// A little-endian integer of 1, 2, 4 or 8 whole bytes at a byte boundary.
    LeBytes {
        mask: u64,
        bytes: u32,
        signed: bool,
        role: Role,
    },
    Int {
        mask: u64,
        size: u32,
        order: ByteOrder,
        signed: bool,
        role: Role,
    },
    Str {
        role: Role,
    },
}

/// An event class's event context, context and payload as one flat list of steps.
#[derive(Debug, Clone)]
pub struct FlatPlan {
    steps: Vec<Step>,
}

impl FlatPlan {
    /// The plan of the programs (in decoding order), or None when one of them holds
    /// anything but integers, strings and alignment (or an integer mapped to a clock,
    /// whose value moves the stream clock).
    pub fn of(programs: &[Option<&Program>], ids: &OpFieldIds) -> Option<FlatPlan> {
        let mut steps = Vec::new();
        for p in programs.iter().flatten() {
            for op in &p.ops {
                steps.push(match *op {
                    Op::Align(mask) => Step::Align(mask),
                    Op::Int {
                        mask,
                        size,
                        order,
                        signed,
                        clock: false,
                        name,
                        top,
                        enum_ty: u32::MAX,
                    } => {
                        let role = role_of(ids, name, top);
                        let whole_le_bytes =
                            mask >= 7 && order == ByteOrder::Le && matches!(size, 8 | 16 | 32 | 64);
                        if whole_le_bytes {
                            Step::LeBytes {
                                mask,
                                bytes: size / 8,
                                signed,
                                role,
                            }
                        } else {
                            Step::Int {
                                mask,
                                size,
                                order,
                                signed,
                                role,
                            }
                        }
                    }
                    Op::Str { name, top } => Step::Str {
                        role: role_of(ids, name, top),
                    },
                    _ => return None,
                });
            }
        }
        Some(FlatPlan { steps })
    }

    /// Decode the fields of `data` from bit `*pos` (after the event header) to at most
    /// bit `end` into `out`, moving `*pos` past them. False when they do not decode
    /// (`*pos` unmoved): the generic decoder then says what is wrong.
    #[inline]
    pub fn decode<'a>(
        &self,
        data: &'a [u8],
        pos: &mut u64,
        end: u64,
        out: &mut OpFields<'a>,
    ) -> bool {
        *out = OpFields::default();
        let mut p = *pos;
        for step in &self.steps {
            match *step {
                Step::Align(mask) => {
                    p = (p + mask) & !mask;
                    if p > end {
                        return false;
                    }
                }
                Step::LeBytes {
                    mask,
                    bytes,
                    signed,
                    role,
                } => {
                    p = (p + mask) & !mask;
                    let bits = u64::from(bytes) * 8;
                    if p + bits > end {
                        return false;
                    }
                    let at = (p / 8) as usize;
                    let Some(raw) = le_bytes(data, at, bytes) else {
                        return false;
                    };
                    p += bits;
                    if role != Role::Skip {
                        out.take(role, int_value(raw, bytes * 8, signed));
                    }
                }
                Step::Int {
                    mask,
                    size,
                    order,
                    signed,
                    role,
                } => {
                    let mut r = BitReader::new(data, p, end);
                    let Ok(raw) = r.align_mask(mask).and_then(|()| r.read_bits(size, order)) else {
                        return false;
                    };
                    p = r.pos;
                    if role != Role::Skip {
                        out.take(role, int_value(raw, size, signed));
                    }
                }
                Step::Str { role } => {
                    p = (p + 7) & !7;
                    if p > end {
                        return false;
                    }
                    let (from, to) = ((p / 8) as usize, (end / 8) as usize);
                    let Some(hay) = data.get(from..to.max(from)) else {
                        return false;
                    };
                    let Some(nul) = super::decode::find_nul(hay) else {
                        return false;
                    };
                    p += 8 * (nul as u64 + 1);
                    out.take(role, Value::S(&hay[..nul]));
                }
            }
        }
        *pos = p;
        true
    }
}

/// The little-endian integer of `bytes` (1 to 8) bytes at `at` in `data`. One 8-byte
/// load, masked, where 8 bytes are there (a copy of `bytes` bytes into a word would be a
/// call to `memcpy`, and the load after it would wait on that copy's stores).
#[inline]
fn le_bytes(data: &[u8], at: usize, bytes: u32) -> Option<u64> {
    let n = bytes as usize;
    if let Some(word) = data.get(at..at.wrapping_add(8)) {
        if n <= 8 {
            let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            return Some(if n == 8 {
                w
            } else {
                w & ((1u64 << (8 * n)) - 1)
            });
        }
    }
    let b = data.get(at..at.checked_add(n)?)?;
    let mut word = [0u8; 8];
    word.get_mut(..b.len())?.copy_from_slice(b);
    Some(u64::from_le_bytes(word))
}

/// An integer field's value as the generic decoder gives it.
#[inline]
fn int_value<'a>(raw: u64, size: u32, signed: bool) -> Value<'a> {
    if signed {
        Value::I(sign_extend(raw, size))
    } else {
        Value::U(raw)
    }
}

/// Fields without a name or inside a nested struct are skipped (they make no direct
/// leaf).
fn role_of(ids: &OpFieldIds, name: u32, top: bool) -> Role {
    if !top || name == u32::MAX {
        Role::Skip
    } else {
        ids.role(name)
    }
}

#[cfg(test)]
mod tests {
    use super::le_bytes;

    #[test]
    fn le_bytes_reads_each_width_with_and_without_8_bytes_after_it() {
        let data: Vec<u8> = (1..=16u8).map(|b| b * 0x0F).collect();
        for n in 1..=8u32 {
            for at in 0..data.len() {
                // The reference: the bytes one by one, the first the least significant.
                let expected = data
                    .get(at..at + n as usize)
                    .map(|b| b.iter().rev().fold(0u64, |v, &x| (v << 8) | u64::from(x)));
                assert_eq!(le_bytes(&data, at, n), expected, "{n} bytes at {at}");
            }
        }
        assert_eq!(le_bytes(&data, usize::MAX, 4), None);
        assert_eq!(le_bytes(&data, 0, 9), None);
    }
}
