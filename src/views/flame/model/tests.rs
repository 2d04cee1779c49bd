//! Tests of `flame`: operator types, sibling numbering and order.

use super::*;
use crate::app::data::{ExplorerData, NodeKind, SourceKind};

#[test]
fn op_types_by_name() {
    assert_eq!(
        op_type("Fully Connected (NC, F32) GEMM #1"),
        Some(OpType::Gemm)
    );
    assert_eq!(
        op_type("Convolution (NHWC, F32) IGEMM #3"),
        Some(OpType::Convolution)
    );
    assert_eq!(op_type("native_call_add.out"), Some(OpType::Elementwise));
    assert_eq!(op_type("aten::addmm"), Some(OpType::Gemm));
    assert_eq!(op_type("aten::conv2d"), Some(OpType::Convolution));
    assert_eq!(op_type("aten::relu"), Some(OpType::Elementwise));
    assert_eq!(op_type("aten::view"), None);
    assert_eq!(op_type("Method::execute"), None);
}

fn trace_of(names: &[&str]) -> ExplorerData {
    use crate::app::data::TreeNode;
    let mut d = ExplorerData {
        kind: SourceKind::Trace,
        ..ExplorerData::default()
    };
    let node = |name: &str, parent| TreeNode {
        name: name.into(),
        kind: NodeKind::Operator,
        info: String::new(),
        depth: 0,
        parent,
        children: Vec::new(),
        stats: crate::profile::Stats::from_ns(vec![1_000_000]),
        share: None,
        op_row: None,
        scope: None,
        findings: (0, 0),
        instruction: None,
        row: None,
    };
    let root = d.push_node(node("thread 1", None));
    for n in names {
        d.push_node(node(n, Some(root)));
    }
    d
}

#[test]
fn repeated_sibling_names_are_numbered_as_the_folded_export() {
    let t = FlameTree::from_explorer(&trace_of(&["a", "b", "a", "a"]));
    let labels: Vec<&str> = t.frames.iter().map(|f| f.label.as_str()).collect();
    assert_eq!(labels, ["thread 1", "a", "b", "a (2)", "a (3)"]);
    // Many children take the other path; same rule.
    let names: Vec<String> = (0..20).map(|i| format!("op{}", i % 3)).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let t = FlameTree::from_explorer(&trace_of(&refs));
    assert_eq!(t.frames[1].label, "op0");
    assert_eq!(t.frames[4].label, "op0 (2)");
    assert_eq!(t.frames[19].label, "op0 (7)");
    assert_eq!(t.frames[20].label, "op1 (7)");
    // Widest first, ties by name.
    assert_eq!(t.sorted_children(0, 0)[..3], [1, 4, 7]);
}

#[test]
fn ms_to_whole_ns() {
    assert_eq!(ms_to_ns(1.5), 1_500_000);
    assert_eq!(ms_to_ns(-1.0), 0);
    assert_eq!(ms_to_ns(f64::NAN), 0);
}
