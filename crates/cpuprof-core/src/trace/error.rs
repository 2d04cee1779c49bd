//! Why a trace could not be imported. Display is one line naming the problem; the caller
//! adds the path (`cpuprof-tui: <file>: <what is wrong>`).

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error("cannot read file: {0}")]
    Io(String),
    #[error("empty file")]
    Empty,
    #[error("not a recognised trace (expected babeltrace2 text, THAPI pretty text or Chrome-trace JSON): {0}")]
    UnknownFormat(String),
    #[error("gzip data is corrupt: {0}")]
    Gzip(String),
    #[error("invalid Chrome-trace JSON: {0}")]
    Json(String),
    #[error("no operator events found: {0}")]
    NoEvents(String),
    /// A CTF trace directory that cannot be read; the message names the file inside it.
    #[error("{0}")]
    Ctf(String),
}
