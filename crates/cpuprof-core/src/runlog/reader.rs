use std::path::Path;

use super::chunks::{self, RawSequence};
use super::{LogLines, LogWarning, PlanSequence, RunLog};

/// Parse a whole runner log (any bytes; invalid UTF-8 is replaced, never fatal).
///
/// Lines end at `\n`; one `\r` before it is dropped (LF, CRLF or a mix). A final line
/// without a line ending still counts; the empty text after a final line ending does not.
pub fn parse(bytes: &[u8]) -> RunLog {
    let lines = LogLines::parse(bytes);
    let raw = raw_sequences(&lines);
    let mut sequences = Vec::with_capacity(raw.len());
    let mut warnings = Vec::new();
    for (k, seq) in raw.iter().enumerate() {
        let outcome = chunks::decode_sequence(seq);
        if let Err(problem) = &outcome {
            warnings.push(LogWarning {
                code: problem.code(),
                sequence: k,
                message: format!("plan sequence {k} (line {}): {problem}", seq.first_line()),
            });
        }
        sequences.push(PlanSequence {
            expected_chunks: seq.expected_chunks(),
            chunk_indexes: seq.indexes(),
            first_line: seq.first_line(),
            outcome,
        });
    }
    RunLog {
        sequences,
        warnings,
        lines,
    }
}

/// Read and parse a log file. The error is the I/O error text; callers add the path.
pub fn read_file(path: &Path) -> Result<RunLog, String> {
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    Ok(parse(&bytes))
}

/// The chunk sequences of already split lines (for [`RunLog::plan_json`]).
pub(crate) fn raw_sequences(lines: &LogLines) -> Vec<RawSequence<'_>> {
    chunks::assemble(lines.containing(chunks::MARK).map(|l| (l.number, l.text)))
}
