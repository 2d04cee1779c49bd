//! Bit-level reading: the bit reader (alignment, NUL-terminated strings, integers of 1
//! to 64 bits in either byte order) and the stream clock clock-mapped integers extend.

use super::super::tsdl::ByteOrder;
use super::{fail, DecodeError, MAX_EMPTY_ELEMENTS};

/// A bit cursor over one file; reads never pass `end` (bits).
pub struct BitReader<'a> {
    pub data: &'a [u8],
    pub pos: u64,
    pub end: u64,
    /// Elements of zero-size types (which the packet size does not bound) this reader
    /// may still decode ([`MAX_EMPTY_ELEMENTS`] per reader, one reader per event).
    pub empty_left: u64,
}

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
        let Some(nul) = find_nul(hay) else {
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

/// Words tested one by one before [`find_nul`] hands the rest to `memchr`: strings in
/// traces are mostly short names (`aten::addmm`, an empty overload), which end within
/// them, and a vector search costs more to set up than it saves on a few bytes.
const SHORT_STRING_WORDS: usize = 4;

/// Position of the first NUL byte of `hay`.
#[inline]
pub(crate) fn find_nul(hay: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    for word in hay.chunks_exact(8).take(SHORT_STRING_WORDS) {
        let w = u64::from_le_bytes(word.try_into().expect("chunks of 8"));
        // The lowest set high bit marks the first zero byte: a borrow can only mark a
        // byte above a zero one, never below it.
        let zeros = w.wrapping_sub(ONES) & !w & HIGHS;
        if zeros != 0 {
            return Some(at + (zeros.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    memchr::memchr(0, &hay[at..]).map(|n| at + n)
}

#[cfg(test)]
mod tests {
    use super::super::sign_extend;
    use super::*;
    use proptest::strategy::Just;

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

    #[test]
    fn find_nul_at_every_position_of_the_word_loop_and_past_it() {
        // Each position 0..40 (the four tested words and the memchr rest), with bytes
        // that make the word test's borrows (0x01 after the zero, 0x80 and 0xFF around).
        for fill in [0x01u8, 0x80, 0xFF, b'a'] {
            for len in 0..48 {
                for nul in 0..len {
                    let mut hay = vec![fill; len];
                    hay[nul] = 0;
                    assert_eq!(find_nul(&hay), Some(nul), "fill {fill:#x} len {len}");
                    // A second zero later does not move the first.
                    if nul + 1 < len {
                        hay[len - 1] = 0;
                        assert_eq!(find_nul(&hay), Some(nul));
                    }
                }
                assert_eq!(find_nul(&vec![fill; len]), None);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn find_nul_is_the_first_zero_byte(hay in proptest::collection::vec(
            proptest::prop_oneof![Just(0u8), Just(1u8), Just(0x80u8), proptest::num::u8::ANY],
            0..80,
        )) {
            // The reference: the position of the first zero by a plain scan.
            proptest::prop_assert_eq!(find_nul(&hay), hay.iter().position(|&b| b == 0));
        }
    }
}
