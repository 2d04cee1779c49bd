//! The tally's input: per-op aggregates in integer ns, as THAPI `iprof` counts them, made
//! from a trace's rows (`report::tally::tally_input`) or straight by the CTF reader
//! (`ctf::tally_dir`). `report::tally` renders it. The readers' tests hold the CTF
//! reader's tally to the model's ([`TallyInput::from_profile`], test builds only).

use std::borrow::Cow;
#[cfg(test)]
use std::collections::BTreeSet;

#[cfg(test)]
use super::model::TraceProfile;

/// One op's aggregate, as the tally needs it (integer ns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TallyRow<'a> {
    /// Borrowed from the rows it is made of (`report::tally::tally_input`), or owned
    /// (the CTF reader's).
    pub name: Cow<'a, str>,
    /// Sum of successful calls' durations.
    pub total_ns: i64,
    pub self_ns: i64,
    pub calls: u64,
    pub errors: u64,
    pub min_ns: Option<i64>,
    pub max_ns: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TallyInput<'a> {
    pub hostnames: usize,
    pub processes: usize,
    pub threads: usize,
    pub rows: Vec<TallyRow<'a>>,
}

impl TallyInput<'_> {
    /// Counts as iprof does: distinct hostnames, distinct pids and distinct tids, each
    /// counted on its own (THAPI collects one set per key component). The readers' tests'
    /// reference; the reports read the rows (`report::tally::tally_input`).
    #[cfg(test)]
    pub fn from_profile(p: &TraceProfile) -> TallyInput<'_> {
        let keys = p.threads.iter().map(|t| &t.key);
        TallyInput {
            hostnames: keys.clone().map(|k| &k.host).collect::<BTreeSet<_>>().len(),
            processes: keys.clone().map(|k| k.pid).collect::<BTreeSet<_>>().len(),
            threads: keys.map(|k| k.tid).collect::<BTreeSet<_>>().len(),
            rows: p
                .ops
                .iter()
                .map(|o| TallyRow {
                    name: Cow::Borrowed(&o.name),
                    total_ns: o.inclusive_total_ns,
                    self_ns: o.self_total_ns,
                    calls: o.calls,
                    errors: o.errors,
                    min_ns: o.min_ns,
                    max_ns: o.max_ns,
                })
                .collect(),
        }
    }
}
