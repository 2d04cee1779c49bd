//! A row's samples, shared rather than copied: the profile's top-level figures describe
//! its first method, so the same samples sit in `Profile::delegates` and in
//! `methods[0].delegates`. Cloning [`Samples`] shares one allocation (a 1 GB dump's 8M
//! samples are 65 MB once, not twice); the serde form is a plain array of numbers.

use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Samples in ms, in run order; read as a slice.
#[derive(Clone, Default)]
pub struct Samples(Arc<Vec<f64>>);

/// By value; one allocation (a clone) is equal to itself without comparing its samples.
impl PartialEq for Samples {
    fn eq(&self, other: &Samples) -> bool {
        self.shares(other) || self.0[..] == other.0[..]
    }
}

impl Samples {
    pub fn new(values: Vec<f64>) -> Self {
        Samples(Arc::new(values))
    }

    /// Whether both are one allocation (a clone of the other): the same samples without
    /// comparing them.
    pub fn shares(&self, other: &Samples) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for Samples {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.0
    }
}

impl<'a> IntoIterator for &'a Samples {
    type Item = &'a f64;
    type IntoIter = std::slice::Iter<'a, f64>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<Vec<f64>> for Samples {
    fn from(values: Vec<f64>) -> Self {
        Samples::new(values)
    }
}

impl std::fmt::Debug for Samples {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl PartialEq<Vec<f64>> for Samples {
    fn eq(&self, other: &Vec<f64>) -> bool {
        self[..] == other[..]
    }
}

impl<const N: usize> PartialEq<[f64; N]> for Samples {
    fn eq(&self, other: &[f64; N]) -> bool {
        self[..] == other[..]
    }
}

impl Serialize for Samples {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if BULK.get() {
            // A writer that takes arrays whole is serializing on this thread: it finds
            // these samples by the marker (see `in_bulk`).
            PENDING.set(Some(self.clone()));
            return s.serialize_u128(BULK_MARKER);
        }
        self.0.as_slice().serialize(s)
    }
}

thread_local! {
    /// Whether [`in_bulk`] runs on this thread.
    static BULK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The samples whose marker was just serialized.
    static PENDING: std::cell::Cell<Option<Samples>> = const { std::cell::Cell::new(None) };
}

/// What [`Samples`] serialize as inside [`in_bulk`]: a u128 no profile holds.
pub const BULK_MARKER: u128 = 0x5a3f_9c1e_0b7d_4e26_8c55_13a9_f0e2_d771;

/// Runs `serialize` with every [`Samples`] serialized on this thread as [`BULK_MARKER`],
/// the samples themselves left for [`take_bulk`]: a JSON formatter that knows the marker
/// (`report::json_format`) writes the whole array in one loop instead of a serializer
/// call per number (most of a big profile's text). Only for a serializer whose formatter
/// takes the marker: any other would write the number.
pub fn in_bulk<R>(serialize: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            BULK.set(self.0);
            PENDING.set(None);
        }
    }
    let _restore = Restore(BULK.replace(true));
    serialize()
}

/// The samples whose [`BULK_MARKER`] was serialized last on this thread (once).
pub fn take_bulk() -> Option<Samples> {
    PENDING.take()
}

impl<'de> Deserialize<'de> for Samples {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<f64>::deserialize(d).map(Samples::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_shares_the_samples_and_serialises_as_an_array() {
        let a = Samples::new(vec![0.5, 0.25]);
        let b = a.clone();
        assert!(std::ptr::eq(a.as_ptr(), b.as_ptr()));
        assert_eq!(serde_json::to_string(&b).unwrap(), "[0.5,0.25]");
        let back: Samples = serde_json::from_str("[0.5,0.25]").unwrap();
        assert_eq!(back, a);
    }
}
