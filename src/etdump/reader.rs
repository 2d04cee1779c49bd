use std::path::Path;

use super::{EtDump, EtDumpError};

/// Parse the bytes of a whole `.etdp` file.
pub fn parse(_bytes: &[u8]) -> Result<EtDump, EtDumpError> {
    Err(EtDumpError::Corrupt("reader not implemented yet".into()))
}

/// Read and parse a file. Errors do not include the path; callers add it.
pub fn read_file(path: &Path) -> Result<EtDump, EtDumpError> {
    let bytes = std::fs::read(path).map_err(|e| EtDumpError::Io(e.to_string()))?;
    parse(&bytes)
}
