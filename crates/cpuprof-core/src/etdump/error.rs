use thiserror::Error;

/// Why bytes could not be read as an ETDump. Three outcomes matter to callers:
/// `Incomplete` (retry later: still being written), `Corrupt`, and `NotEtDump`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum EtDumpError {
    #[error("incomplete ETDump: size prefix says {declared} bytes follow, only {available} present (still being written?)")]
    Incomplete { declared: u64, available: u64 },
    #[error("corrupt ETDump: {0}")]
    Corrupt(String),
    /// Readers try traces first, so a file that is not an ETDump is no recognised trace
    /// either (babeltrace2/THAPI text, CTF directory, Chrome JSON).
    #[error("not an ETDump nor a recognised trace: {0}")]
    NotEtDump(String),
    #[error("cannot read: {0}")]
    Io(String),
}

impl EtDumpError {
    /// A short machine-friendly kind, used in profile.json and tests.
    pub fn kind(&self) -> &'static str {
        match self {
            EtDumpError::Incomplete { .. } => "incomplete",
            EtDumpError::Corrupt(_) => "corrupt",
            EtDumpError::NotEtDump(_) => "not_etdump",
            EtDumpError::Io(_) => "io",
        }
    }
}
