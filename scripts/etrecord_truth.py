#!/usr/bin/env python3
"""What an ETRecord says about every instruction of every method, read with nothing but
zipfile and json (no executorch, no torch): the truth the Rust reader is checked against
for programs the Inspector cannot read (it reads only `forward`).

For each ETRecord in DIR (*.etrecord, *.etrecord.bin; not the bad_* copies) writes STEM.truth.json:
  methods.<name>.instructions.<id>: handles (debug_handle_map), delegate backend (if the
  instruction is in delegate_map), nodes carrying those handles in graph order (name,
  op_type, module path = the innermost nn_module_stack path, first stack frame).

op_type is what the Inspector lists, the target's `__name__`, which the serializer wrote
after the target's module: without the edge dialect's module
(`executorch.exir.dialects.edge.ops.aten.flip.default` -> `aten.flip.default`), without
`torch.ops.NAMESPACE` for a torch operator (`torch.ops.aten.scalar_tensor.default` ->
`scalar_tensor.default`), a Python function's last name (checked on the Inspector goldens
of fixtures/etrecord and fixtures/wild);
`_operator.getitem` nodes are left out as the Inspector leaves them out.

Usage: python3 scripts/etrecord_truth.py fixtures/etrecord
"""
import glob
import json
import os
import re
import sys
import zipfile

EDGE = "executorch.exir.dialects.edge.ops."
BACKEND = "executorch.exir.dialects.backend.ops."


def inspector_op_type(target):
    """`target.__name__` from the serialized `{module}.{__name__}`."""
    for dialect in (EDGE, BACKEND):
        if target.startswith(dialect):
            return target[len(dialect):]
    if target.startswith("torch.ops."):
        rest = target[len("torch.ops."):]
        return rest.split(".", 1)[1] if "." in rest else rest
    return target.rsplit(".", 1)[-1]
FRAME = re.compile(r'File "([^"]*)", line (\d+), in (\S+)')


def split_items(text):
    """nn_module_stack: `key,path,type` items joined by `;`; commas inside brackets do not
    split."""
    out = []
    for item in text.split(";"):
        parts, depth, cur = [], 0, ""
        for ch in item:
            if ch in "([{<":
                depth += 1
            elif ch in ")]}>":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
        out.append(parts)
    return out


def node_info(node):
    meta = node.get("metadata", {})
    target = node["target"]
    op_type = inspector_op_type(target)
    stack = meta.get("nn_module_stack")
    module = None
    if stack:
        items = split_items(stack)
        module = items[-1][1] if len(items[-1]) >= 2 else None
    frame = None
    m = FRAME.search(meta.get("stack_trace") or "")
    if m:
        frame = f"{os.path.basename(m.group(1))}:{m.group(2)} in {m.group(3)}"
    return {"name": node["name"], "op_type": op_type, "module": module, "frame": frame}


def truth(path):
    z = zipfile.ZipFile(path)
    names = z.namelist()
    dhm = json.loads(z.read("debug_handle_map"))
    dm = json.loads(z.read("delegate_map")) if "delegate_map" in names else {}
    methods = {}
    for method, table in dhm.items():
        entry = f"edge_dialect_exported_program/{method}"
        if entry not in names:
            entry = "edge_dialect_exported_program"
        graph = json.loads(z.read(entry))["graph_module"]["graph"]
        by_handle = {}
        for node in graph["nodes"]:
            if node["target"] == "_operator.getitem":
                continue
            h = node.get("metadata", {}).get("debug_handle")
            if h is not None:
                by_handle.setdefault(int(h), []).append(node_info(node))
        instructions = {}
        for instr, handles in table.items():
            hs = handles if isinstance(handles, list) else [handles]
            delegate = (dm.get(method) or {}).get(instr)
            instructions[instr] = {
                "handles": hs,
                "delegate": delegate.get("name") if delegate else None,
                "nodes": [n for h in hs for n in by_handle.get(h, [])],
            }
        methods[method] = {"instructions": instructions}
    return {"producer": "scripts/etrecord_truth.py (zipfile + json)", "etrecord": os.path.basename(path),
            "methods": methods}


def main(d):
    for path in sorted(glob.glob(os.path.join(d, "*.etrecord")) + glob.glob(os.path.join(d, "*.etrecord.bin"))):
        stem = os.path.basename(path).split(".etrecord")[0]
        if stem.startswith("bad_"):
            continue  # damaged on purpose (see make_etrecord_fixtures.py)
        with open(os.path.join(d, f"{stem}.truth.json"), "w") as f:
            json.dump(truth(path), f, indent=1)
        print(f"[truth] {stem}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/etrecord")
