//! Operator shapes from `delegate_debug_metadata`: the UTF-8 JSON object
//! `{"inputs":[[...]],"outputs":[[...]]}`. Anything else means "no shapes" plus a note.

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shapes {
    pub inputs: Vec<Vec<i64>>,
    pub outputs: Vec<Vec<i64>>,
}

/// What the metadata of one operator event held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Metadata {
    /// Absent or zero-length: nothing to decode, nothing wrong.
    Empty,
    Shapes(Shapes),
    /// Present but not the shape JSON; the text says what it was.
    Malformed(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShapeJson {
    inputs: Vec<Vec<i64>>,
    outputs: Vec<Vec<i64>>,
}

pub fn decode_metadata(bytes: Option<&[u8]>) -> Metadata {
    let bytes = match bytes {
        None | Some([]) => return Metadata::Empty,
        Some(b) => b,
    };
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => {
            // Some XNNPACK forks pack `<microkernel symbol>\0<microseconds>`.
            return Metadata::Malformed(describe_binary(bytes));
        }
    };
    if let Some((symbol, us)) = text.split_once('\0') {
        return Metadata::Malformed(format!(
            "microkernel record (symbol {symbol:?}, {us:?} us), not shape JSON"
        ));
    }
    match serde_json::from_str::<ShapeJson>(text) {
        Ok(j) => Metadata::Shapes(Shapes {
            inputs: j.inputs,
            outputs: j.outputs,
        }),
        Err(e) => Metadata::Malformed(format!("not shape JSON ({e}): {}", preview(text))),
    }
}

fn preview(text: &str) -> String {
    let mut s: String = text.chars().take(48).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    format!("{s:?}")
}

fn describe_binary(bytes: &[u8]) -> String {
    let hex: String = bytes.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!(
        "{} bytes, not UTF-8 (starts {hex}{})",
        bytes.len(),
        if bytes.len() > 16 { "…" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_json() {
        let m = decode_metadata(Some(
            br#"{"inputs":[[1,3,32,32],[16,3,3,3]],"outputs":[[1,16,30,30]]}"#,
        ));
        assert_eq!(
            m,
            Metadata::Shapes(Shapes {
                inputs: vec![vec![1, 3, 32, 32], vec![16, 3, 3, 3]],
                outputs: vec![vec![1, 16, 30, 30]],
            })
        );
    }

    #[test]
    fn empty_and_absent() {
        assert_eq!(decode_metadata(None), Metadata::Empty);
        assert_eq!(decode_metadata(Some(b"")), Metadata::Empty);
    }

    #[test]
    fn malformed_kinds() {
        for bad in [
            &br#"{"inputs":[[1,3"#[..],
            &[0xff, 0xfe, 0x00, 0x41][..],
            &b"xnn_f32_gemm_minmax_ukernel\x0012"[..],
            &br#"{"in":[[1]],"out":[[2]]}"#[..],
            &br#"{"inputs":[[1]],"outputs":[[2]],"extra":1}"#[..],
            &b"garbage"[..],
        ] {
            assert!(
                matches!(decode_metadata(Some(bad)), Metadata::Malformed(_)),
                "{bad:?}"
            );
        }
    }
}
