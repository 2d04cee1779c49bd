//! Copying the selected row as text, through the terminal's clipboard escape (OSC 52:
//! works over ssh and inside tmux with `set-clipboard on`). Pure: `update` returns the
//! text in `Effect::Copy`, the shell writes `osc52(text)`.

use base64::Engine;

use super::data::{ExplorerData, SourceKind};
use super::format::{duration_ms, percent};
use super::table::{cell, Column};

/// The selected operator row as one line: name, delegate, step, statistics, shapes.
pub fn op_text(data: &ExplorerData, row: usize) -> Option<String> {
    data.ops.get(row).map(|op| row_text(data, op))
}

/// A table row (operator or type) as one line.
pub fn row_text(data: &ExplorerData, op: &super::data::OpRow) -> String {
    let kind = data.kind;
    let columns: &[Column] = kind.columns();
    let mut parts = Vec::new();
    for &c in columns {
        let value = cell(op, c);
        if value.is_empty()
            || value == "-"
                && matches!(
                    c,
                    Column::Step | Column::Share | Column::Gflops | Column::Gbps | Column::Peak
                )
        {
            continue;
        }
        parts.push(match c {
            Column::Name => value,
            Column::Delegate if kind == SourceKind::Etdump => data.delegate_text(op),
            Column::Count if op.instances > 0 => format!("{} instances", op.instances),
            Column::Step => format!("step {value}"),
            Column::Inputs => format!("in {value}"),
            Column::Outputs => format!("out {value}"),
            c => format!("{} {value}", c.label().to_lowercase()),
        });
    }
    parts.join(" · ")
}

/// A tree node as one line: name, facts, median, p90 and share of its parent.
pub fn node_text(data: &ExplorerData, id: usize) -> Option<String> {
    let n = data.nodes.get(id)?;
    if let Some(row) = n.op_row {
        return op_text(data, row);
    }
    let mut parts = vec![n.name.clone()];
    if !n.info.is_empty() {
        parts.push(n.info.clone());
    }
    if n.stats.count > 0 {
        parts.push(format!("count {}", n.stats.count));
        parts.push(format!("median {}", duration_ms(n.stats.median())));
        parts.push(format!("p90 {}", duration_ms(n.stats.p90())));
    }
    if let Some(s) = n.share {
        parts.push(format!("%parent {}", percent(s)));
    }
    Some(parts.join(" · "))
}

/// The OSC 52 sequence that puts `text` on the clipboard (`c`), BEL-terminated. The text
/// is escaped first (`escape::escape`): what is copied is pasted, into a shell as often
/// as not, and a newline from an input (a source path in an ETRecord, an op name) would
/// run what follows it.
pub fn osc52(text: &str) -> String {
    let text = crate::escape::escape(text);
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{b64}\x07")
}

#[cfg(test)]
mod tests {
    use super::*;
    use cpuprof_testkit::sample;

    #[test]
    fn osc52_carries_base64() {
        // "hi" is aGk= in base64 (RFC 4648).
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn what_is_copied_has_no_control_character() {
        // A source path with newlines (round 3, `paste`): the clipboard gets the escaped
        // text, one line. base64 of `a\nb` (4 characters: a, backslash, n, b) is YVxuYg==.
        assert_eq!(osc52("a\nb"), "\x1b]52;c;YVxuYg==\x07");
        let copied = |s: &str| {
            let b64 = osc52(s)
                .trim_start_matches("\x1b]52;c;")
                .trim_end_matches('\x07')
                .to_string();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap();
            String::from_utf8(bytes).unwrap()
        };
        let path = "/tmp/x.py\ntouch /tmp/PASTED\n:83 \x1b]0;T\x07 \u{9b}2J \u{202e}";
        let got = copied(path);
        assert!(!got.chars().any(crate::escape::is_unsafe_char), "{got:?}");
        assert_eq!(
            got,
            "/tmp/x.py\\ntouch /tmp/PASTED\\n:83 \\x1b]0;T\\x07 \\u{9b}2J \\u{202e}"
        );
        // Plain text is copied as it is.
        assert_eq!(copied("model.py:83 · fc1"), "model.py:83 · fc1");
    }

    #[test]
    fn an_operator_row_reads_in_full() {
        let d = ExplorerData::from_profile(&sample::profile());
        let row = d
            .ops
            .iter()
            .position(|o| o.name == "Clamp (NC, F32) #1")
            .unwrap();
        // Clamp: base 0.05 ms, median 0.05 * 1.075 = 0.05375 ms = 53.8 µs; min 0.9 ×
        // 0.05 = 45.0 µs, max 1.2 × = 60.0 µs; p90 of 45 50 52.5 55 57.5 60 (linear) =
        // 58.75 µs; share of its step 0.05 / 0.5 = 10.0%, of the method 53.75 / 1075 = 5.0%.
        // Clamp: 1 FLOP per output element, 1×8×16×16 = 2048 in 53.75 µs = 0.038 GFLOP/s;
        // bytes (2048 + 576 + 2048) × 4 = 18688 in 53.75 µs = 0.348 GB/s.
        assert_eq!(
            op_text(&d, row).unwrap(),
            "Clamp (NC, F32) #1 · delegate #1 · step XNNPACK/subgraph:conv2d+2 · count 6 · \
             median 53.8 µs · min 45.0 µs · max 60.0 µs · p90 58.8 µs · %parent 10.0% · \
             %method 5.0% · gflop/s 0.038 · gb/s 0.348 · in [1,8,16,16] [8,3,3,8] · \
             out [1,8,16,16]"
        );
    }
}
