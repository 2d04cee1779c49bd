use std::path::Path;

use super::RunLog;

/// Parse a whole runner log (any bytes; invalid UTF-8 is replaced, never fatal).
pub fn parse(_bytes: &[u8]) -> RunLog {
    RunLog::default()
}

/// Read and parse a log file. The error is the I/O error text; callers add the path.
pub fn read_file(path: &Path) -> Result<RunLog, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    Ok(parse(&bytes))
}
