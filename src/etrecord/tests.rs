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
    assert_eq!(m[0].0, "forward");
    assert_eq!(m[0].1[&0], vec![1, 2]);
    assert_eq!(m[0].1[&1], vec![3]);
    // An older file: instruction ids at the top.
    let old = graph::parse_handle_map(br#"{"0": [1], "2": 4}"#).unwrap();
    assert_eq!(old[0].0, "forward");
    assert_eq!(old[0].1[&2], vec![4]);
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
