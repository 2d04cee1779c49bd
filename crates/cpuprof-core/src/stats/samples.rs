//! A row's samples in whole nanoseconds, shared rather than copied: the profile's
//! top-level figures describe its first method, so the same samples sit in
//! `Profile::delegates` and in `methods[0].delegates`. Cloning [`Samples`] shares one
//! allocation (a 1 GB dump's 8M samples are 65 MB once, not twice).
//!
//! Durations are kept as the clocks gave them, integer ns (a method's own time may be
//! negative when its scopes overlap or outlast it, hence signed); milliseconds are made
//! only where a figure is shown or written ([`ns_to_ms`]). The serde form is the contract's
//! (`cpuprof.profile/1`): a plain array of ms numbers.

use std::sync::Arc;

use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Whole ns as ms: the one conversion every output goes through. Below 2^53 ns (104
/// days) the double is the one nearest to the exact decimal, so its shortest text is
/// that decimal (31,185 ns is `0.031185`).
#[inline]
pub fn ns_to_ms(ns: i64) -> f64 {
    ns as f64 / 1e6
}

/// Ms as whole ns, rounded to the nearest: exact for every value [`ns_to_ms`] made.
#[inline]
pub fn ms_to_ns(ms: f64) -> i64 {
    (ms * 1e6).round() as i64
}

/// Samples in whole ns, in run order.
#[derive(Clone, Default)]
pub struct Samples(Arc<Vec<i64>>);

/// By value; one allocation (a clone) is equal to itself without comparing its samples.
impl PartialEq for Samples {
    fn eq(&self, other: &Samples) -> bool {
        self.shares(other) || self.0[..] == other.0[..]
    }
}

impl Samples {
    pub fn from_ns(ns: Vec<i64>) -> Self {
        Samples(Arc::new(ns))
    }

    /// Samples given in ms (a profile read back from its JSON, a test), rounded to ns.
    pub fn from_ms(ms: &[f64]) -> Self {
        Samples::from_ns(ms.iter().map(|&v| ms_to_ns(v)).collect())
    }

    /// Whether both are one allocation (a clone of the other): the same samples without
    /// comparing them.
    pub fn shares(&self, other: &Samples) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The samples in ns.
    pub fn ns(&self) -> &[i64] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sample `i` in ms.
    pub fn ms(&self, i: usize) -> f64 {
        ns_to_ms(self.0[i])
    }

    /// The samples in ms, in order.
    pub fn iter_ms(&self) -> impl ExactSizeIterator<Item = f64> + DoubleEndedIterator + '_ {
        self.0.iter().map(|&n| ns_to_ms(n))
    }

    /// The samples in ms, as a new vector.
    pub fn to_ms(&self) -> Vec<f64> {
        self.iter_ms().collect()
    }

    /// The sum in ns (exact: no sample count overflows i128).
    pub fn total_ns(&self) -> i128 {
        self.0.iter().map(|&n| i128::from(n)).sum()
    }
}

impl From<Vec<i64>> for Samples {
    fn from(ns: Vec<i64>) -> Self {
        Samples::from_ns(ns)
    }
}

impl std::fmt::Debug for Samples {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

/// Equal to durations in ms when each sample's ms ([`ns_to_ms`]) is exactly that value
/// (a test's truth in ms, say).
impl PartialEq<Vec<f64>> for Samples {
    fn eq(&self, other: &Vec<f64>) -> bool {
        self.len() == other.len() && self.iter_ms().zip(other).all(|(a, &b)| a == b)
    }
}

impl<const N: usize> PartialEq<[f64; N]> for Samples {
    fn eq(&self, other: &[f64; N]) -> bool {
        self.len() == N && self.iter_ms().zip(other).all(|(a, &b)| a == b)
    }
}

impl Serialize for Samples {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for &n in self.0.iter() {
            seq.serialize_element(&ns_to_ms(n))?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Samples {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<f64>::deserialize(d).map(|ms| Samples::from_ms(&ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_shares_the_samples_and_serialises_as_ms() {
        let a = Samples::from_ns(vec![500_000, 31_185, -2]);
        let b = a.clone();
        assert!(b.shares(&a));
        // 31,185 ns is 0.031185 ms exactly as text (not 0.031184999999999997).
        assert_eq!(serde_json::to_string(&b).unwrap(), "[0.5,0.031185,-2e-6]");
        let back: Samples = serde_json::from_str("[0.5,0.031185,-2e-6]").unwrap();
        assert_eq!(back, a);
        assert_eq!(a.total_ns(), 531_183);
    }

    proptest::proptest! {
        /// ms made from ns round back to the same ns, and their shortest text is the
        /// exact decimal (ns / 10^6 written out by hand).
        #[test]
        fn ms_round_trip_and_print_exactly(ns in 0i64..1_000_000_000_000_000) {
            let ms = ns_to_ms(ns);
            proptest::prop_assert_eq!(ms_to_ns(ms), ns);
            let int = ns / 1_000_000;
            let frac = format!("{:06}", ns % 1_000_000);
            let frac = frac.trim_end_matches('0');
            let decimal = if frac.is_empty() { format!("{int}") } else { format!("{int}.{frac}") };
            proptest::prop_assert_eq!(ms, decimal.parse::<f64>().unwrap());
        }
    }
}
