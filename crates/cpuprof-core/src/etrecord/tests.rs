use super::*;

#[test]
fn module_stack_items_split_on_commas_outside_brackets() {
    let s = split_module_stack(
        "L__self__,,__main__.M;L['self'].layers[0],layers.0,__main__.Block;L__self__x,x.y,typing.Dict[str, int]",
    );
    assert_eq!(s.len(), 3);
    assert_eq!(
        (s[0].key.as_str(), s[0].path.as_str(), s[0].ty.as_str()),
        ("L__self__", "", "__main__.M")
    );
    assert_eq!(s[1].key, "L['self'].layers[0]");
    assert_eq!(s[1].path, "layers.0");
    assert_eq!(s[2].ty, "typing.Dict[str, int]");
    // Not three fields: left out, not guessed.
    assert!(split_module_stack("a,b").is_empty());
    assert!(split_module_stack("").is_empty());
}

#[test]
fn the_first_frame_is_the_models_own() {
    let t = "File \"/tmp/make.py\", line 83, in forward\n    x = self.fc(x)\n  File \"/venv/torch/nn/modules/linear.py\", line 134, in forward\n    return F.linear(x)";
    let f = first_frame(t).unwrap();
    assert_eq!(f.short(), "make.py:83 in forward");
    assert_eq!(f.file_line(), "/tmp/make.py:83");
    assert_eq!(first_frame("no frames here"), None);
    assert_eq!(first_frame("File \"cut"), None);
    // A malformed frame is skipped, the next one read.
    let f = first_frame("File \"a.py\", line x, in f\nFile \"b.py\", line 2, in g").unwrap();
    assert_eq!(f.short(), "b.py:2 in g");
}

#[test]
fn op_types_are_the_inspectors() {
    assert_eq!(
        graph::op_type("executorch.exir.dialects.edge.ops.aten.flip.default"),
        "aten.flip.default"
    );
    // As the Inspector lists them in fixtures/wild/attn_dimorder.inspector.json: an op
    // outside the edge dialect loses its namespace, a dialect op of another namespace
    // keeps it.
    assert_eq!(
        graph::op_type("torch.ops.aten.scalar_tensor.default"),
        "scalar_tensor.default"
    );
    assert_eq!(
        graph::op_type(
            "executorch.exir.dialects.edge.ops.dim_order_ops._to_dim_order_copy.default"
        ),
        "dim_order_ops._to_dim_order_copy.default"
    );
    // `__name__` of a higher-order operator and of a Python function.
    assert_eq!(graph::op_type("torch.ops.higher_order.cond"), "cond");
    assert_eq!(graph::op_type("_operator.getitem"), "getitem");
    assert_eq!(graph::op_type("plain"), "plain");
}

#[test]
fn handle_maps_keyed_by_method_or_not() {
    let m = graph::parse_handle_map(br#"{"forward": {"0": [1, 2], "1": 3}}"#).unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(m[0].name, "forward");
    assert_eq!(m[0].table[&0], vec![1, 2]);
    assert_eq!(m[0].table[&1], vec![3]);
    // An older file: instruction ids at the top.
    let old = graph::parse_handle_map(br#"{"0": [1], "2": 4}"#).unwrap();
    assert_eq!(old[0].name, "forward");
    assert_eq!(old[0].table[&2], vec![4]);
    assert!(graph::parse_handle_map(br#"{"forward": {"x": 1}}"#)
        .unwrap_err()
        .contains("instruction id"));
    assert!(graph::parse_handle_map(b"[1]").is_err());
}

#[test]
fn not_a_zip_is_one_line() {
    for bytes in [&b""[..], b"hello, not a zip at all", &[0u8; 64][..]] {
        let e = parse(bytes).unwrap_err().to_string();
        assert!(e.starts_with("not an ETRecord"), "{e}");
        assert!(!e.contains('\n'));
    }
}

#[test]
fn repeated_handles_are_kept_up_to_a_few_times() {
    // As XNNPACK writes them (and the Inspector keeps them): repeats kept.
    let m =
        graph::parse_handle_map(br#"{"forward": {"0": [1, 2, 2, 3], "1": [2, "2", 3]}}"#).unwrap();
    assert_eq!(m[0].table[&0], vec![1, 2, 2, 3]);
    assert_eq!(m[0].table[&1], vec![2, 2, 3]);
    assert_eq!(m[0].repeats, 0);
    // A thousand repeats: MAX_REPEATS kept, the rest counted.
    let text = format!(r#"{{"forward": {{"0": [{}1]}}}}"#, "1, ".repeat(1000));
    let m = graph::parse_handle_map(text.as_bytes()).unwrap();
    assert_eq!(m[0].table[&0], vec![1; graph::MAX_REPEATS]);
    assert_eq!(m[0].repeats, 1001 - graph::MAX_REPEATS as u64);
    // Many distinct handles, each six times: the map takes over past a few.
    let many: Vec<String> = (0..6)
        .flat_map(|_| 0..40)
        .map(|h: u64| h.to_string())
        .collect();
    let text = format!(r#"{{"0": [{}]}}"#, many.join(","));
    let m = graph::parse_handle_map(text.as_bytes()).unwrap();
    let want: Vec<u64> = (0..graph::MAX_REPEATS).flat_map(|_| 0..40).collect();
    assert_eq!(m[0].table[&0], want);
    assert_eq!(m[0].repeats, 80);
}

#[test]
fn a_list_past_the_repeats_kept_has_its_whole_counts() {
    // XNNPACK lists a handle once per node of its subgraph carrying it: gru's delegate
    // lists handle 2 twelve times (issue #49). The list keeps MAX_REPEATS of them; the
    // whole list's counts and last positions are kept beside it.
    let text = br#"{"forward": {"0": [1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2], "1": [1, 1]}}"#;
    let m = graph::parse_handle_map(text).unwrap();
    assert_eq!(m[0].table[&0], [1, 2, 2, 2, 2, 3]);
    assert_eq!(
        m[0].full[&0].handles,
        [(1, 1, 0), (2, 13, 14), (3, 1, 13)],
        "(handle, times, last position)"
    );
    assert!(
        !m[0].full.contains_key(&1),
        "nothing left out of instruction 1"
    );
}

#[test]
fn edge_programs_with_non_finite_floats_and_unused_keys_are_read() {
    let text = br#"{"graph_module": {"graph": {"nodes": [
        {"name": "mask", "target": "executorch.exir.dialects.edge.ops.aten.masked_fill.Scalar",
         "inputs": [{"name": "value", "arg": {"as_float": -Infinity}}, {"arg": {"as_float": NaN}}],
         "outputs": [], "metadata": {"debug_handle": "3", "junk": [0, 0, {"x": Infinity}],
         "stack_trace": "File \"m.py\", line 9, in forward\n    x", "nn_module_stack": "L__self__,,M;L__self__attn,attn,A"}},
        {"target": "_operator.getitem", "metadata": {}},
        {"target": "t", "outputs": [{"as_tensor": {"name": "old_name"}}], "metadata": {"debug_handle": [4, 4]}}
    ]}, "signature": {"x": -Infinity}}, "range_constraints": {}}"#;
    let nodes = graph::parse_nodes(text).unwrap();
    assert_eq!(nodes.len(), 2);
    assert_eq!(nodes[0].name, "mask");
    assert_eq!(nodes[0].op_type(), "aten.masked_fill.Scalar");
    assert_eq!(nodes[0].debug_handles, vec![3]);
    assert_eq!(nodes[0].module_path(), Some("attn"));
    assert_eq!(nodes[0].frame().unwrap().short(), "m.py:9 in forward");
    assert_eq!(nodes[1].name, "old_name");
    assert_eq!(nodes[1].debug_handles, vec![4, 4]);
    // A node without a target, a handle that is not one: errors naming them.
    let e = graph::parse_nodes(br#"{"graph_module": {"graph": {"nodes": [{"name": "a"}]}}}"#)
        .unwrap_err();
    assert!(e.contains("without `target`"), "{e}");
    let e = graph::parse_nodes(
        br#"{"graph_module": {"graph": {"nodes": [{"name": "a", "target": "t", "metadata": {"debug_handle": -1}}]}}}"#,
    )
    .unwrap_err();
    assert!(
        e.contains("node \"a\": debug_handle -1 is not a handle"),
        "{e}"
    );
}

#[test]
fn delegate_maps_keyed_by_method_or_not() {
    let new = graph::parse_delegate_map(
        br#"{"forward": {"0": {"name": "XnnpackBackend", "delegate_map": {"1": [5, 6]}}}}"#,
    )
    .unwrap();
    assert_eq!(new["forward"][&0].backend, "XnnpackBackend");
    assert_eq!(new["forward"][&0].handles_by_id["1"], vec![5, 6]);
    let old = graph::parse_delegate_map(br#"{"2": {"name": "X", "delegate_map": {}}}"#).unwrap();
    assert_eq!(old["forward"][&2].backend, "X");
    assert!(graph::parse_delegate_map(b"null").unwrap().is_empty());
    assert!(graph::parse_delegate_map(b"[1]").is_err());
    assert!(graph::parse_delegate_map(br#"{"forward": 3}"#)
        .unwrap_err()
        .contains("not an object"));
}
