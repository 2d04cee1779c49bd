//! A small deterministic generator for tests (xorshift64: shifts 13, 7, 17): the same
//! seed gives the same sequence on every machine, so a failing case can be named by its
//! seed and round.

/// xorshift64. The seed must not be 0 (the sequence would stay 0).
pub struct XorShift(u64);

impl XorShift {
    pub fn new(seed: u64) -> Self {
        assert_ne!(seed, 0, "xorshift needs a seed other than 0");
        XorShift(seed)
    }

    /// The next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// The next value modulo `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}
