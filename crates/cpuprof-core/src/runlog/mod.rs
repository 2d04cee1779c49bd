//! Runner log reader: ET_LOG lines and the CpuBackend plans logged as `CPU_PLAN_CHUNK`.
//!
//! A broken chunk sequence becomes a warning and an unusable slot; the other plans still
//! load, and sequence k keeps its position (it belongs to the k-th CPU delegate).
//! How chunk lines are grouped into sequences (lost chunk 0, repeats, changed counts)
//! is documented in `chunks.rs`.

mod chunks;
mod etlog;
mod lines;
mod plan;
mod reader;
#[cfg(test)]
mod tests;

pub use lines::{LogLine, LogLines};
pub use plan::{CpuPlan, PlanCandidate, PlanRegion, SelectionContext};
pub use reader::{parse, read_file};

/// `Running W warm-up and T timed iteration(s).` -> (W, T).
fn parse_iterations(text: &str) -> Option<(usize, usize)> {
    let rest = text.trim().strip_prefix("Running ")?;
    let (w, rest) = rest.split_once(" warm-up and ")?;
    let (t, rest) = rest.split_once(" timed iteration")?;
    if !(rest.starts_with("(s).") || rest.starts_with("s.") || rest.starts_with('.')) {
        return None;
    }
    Some((w.trim().parse().ok()?, t.trim().parse().ok()?))
}

#[cfg(test)]
mod iteration_tests {
    #[test]
    fn the_runner_line_states_both_counts() {
        let p = super::parse_iterations;
        assert_eq!(
            p("Running 3 warm-up and 20 timed iteration(s)."),
            Some((3, 20))
        );
        assert_eq!(
            p("Running 0 warm-up and 3 timed iteration(s)."),
            Some((0, 3))
        );
        assert_eq!(p("Running x warm-up and 3 timed iteration(s)."), None);
        assert_eq!(p("Running 3 warm-up"), None);
    }
}

/// Everything read from one runner log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunLog {
    /// One entry per `CPU_PLAN_CHUNK` sequence, in log order (= delegate init order).
    pub sequences: Vec<PlanSequence>,
    /// Problems with sequences (each also recorded in its `PlanSequence::outcome`).
    pub warnings: Vec<LogWarning>,
    /// Every line of the log (plan chunk lines included), for the log view.
    pub lines: LogLines,
}

impl RunLog {
    /// The warm-up and timed iteration counts the runner states
    /// (`Running 3 warm-up and 20 timed iteration(s).`), from its first such line.
    pub fn stated_iterations(&self) -> Option<(usize, usize)> {
        self.lines.containing(" warm-up and ").find_map(|line| {
            let text = line
                .et_log
                .as_ref()
                .map_or(line.text, |e| e.message.as_str());
            parse_iterations(text)
        })
    }

    /// Decoded plans with their sequence index.
    pub fn plans(&self) -> impl Iterator<Item = (usize, &CpuPlan)> {
        self.sequences
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.outcome.as_ref().ok().map(|p| (i, p)))
    }

    /// The decoded report text (the JSON exactly as logged) of sequence `sequence`, when its
    /// chunks are complete and decode to UTF-8. Recomputed from `lines`.
    pub fn plan_json(&self, sequence: usize) -> Option<String> {
        let raw = reader::raw_sequences(&self.lines);
        let seq = raw.get(sequence)?;
        chunks::check_structure(seq).ok()?;
        chunks::decode_text(seq).ok()
    }
}

/// One chunk sequence (one delegate's plan report).
#[derive(Debug, Clone, PartialEq)]
pub struct PlanSequence {
    /// Chunk count announced by the chunk lines.
    pub expected_chunks: usize,
    /// Chunk indexes seen, in order.
    pub chunk_indexes: Vec<usize>,
    /// 1-based log line of the first chunk.
    pub first_line: usize,
    pub outcome: Result<CpuPlan, PlanProblem>,
}

/// Why a sequence gave no plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanProblem {
    /// Missing, repeated or out-of-order chunks, or a count that changes mid-sequence.
    Incomplete(String),
    BadHex(String),
    BadUtf8(String),
    BadJson(String),
}

impl PlanProblem {
    pub fn code(&self) -> &'static str {
        match self {
            PlanProblem::Incomplete(_) => "plan_chunks_incomplete",
            PlanProblem::BadHex(_) => "plan_bad_hex",
            PlanProblem::BadUtf8(_) => "plan_bad_utf8",
            PlanProblem::BadJson(_) => "plan_bad_json",
        }
    }
}

impl std::fmt::Display for PlanProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanProblem::Incomplete(s) => write!(f, "incomplete chunk sequence: {s}"),
            PlanProblem::BadHex(s) => write!(f, "bad hex: {s}"),
            PlanProblem::BadUtf8(s) => write!(f, "plan is not UTF-8: {s}"),
            PlanProblem::BadJson(s) => write!(f, "plan is not valid plan JSON: {s}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogWarning {
    /// Same codes as the profile warnings (`plan_chunks_incomplete`, ...).
    pub code: &'static str,
    /// Index of the sequence concerned.
    pub sequence: usize,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EtLogFields {
    /// `D`, `I`, `E`, `F` or `?`; None in the short `[file:line]` form.
    pub level: Option<char>,
    /// Microseconds since PAL init; None in the short form.
    pub time_us: Option<u64>,
    pub file: String,
    pub line: u32,
    pub message: String,
}
