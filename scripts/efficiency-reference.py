#!/usr/bin/env python3
"""FLOPs and bytes per call of every operator of the CpuBackend fixtures, by the rule of
issue #22, computed from the truth files' shapes (independently of the Rust code).

    python3 scripts/efficiency-reference.py > fixtures/cpu/efficiency.expected.json

The rule, as written in the issue:
  FLOPs = 2 x output elements x reduction length for convolution and fully connected
  operators (the product of the weight's dimensions after the first: [16,3,3,3] -> 27)
  and batch matrix multiply (the shared dimension); elementwise operators 1 per output
  element; operators that only move data 0. Bytes = inputs + outputs at the element
  type in the operator's name (F32 4, F16 2, QS8/QU8/QC8/X8 1, X32 4); none when the
  name has no type. Other operators (pooling, softmax, mean): no FLOPs (null).
Operators whose metadata is not the shape JSON have no shapes: both null.

Standard library only. Output: {"<case>": [{"instruction_id", "step", "event", "flops",
"bytes"}, ...]} for fixtures/cpu and fixtures/cpu-faults, operators in truth order.
"""

import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TYPE_BYTES = {"F32": 4, "X32": 4, "F16": 2, "X16": 2, "QS8": 1, "QU8": 1, "QC8": 1, "X8": 1}

# Operator families by the words before the parenthesis of the XNNPACK name.
MATMUL_LIKE = {"Convolution", "Fully Connected"}
ELEMENTWISE = {
    "Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "Squared Difference",
    "Clamp", "HardSwish", "Sigmoid", "Tanh", "ELU", "GELU", "Leaky ReLU", "Negate", "Abs",
    "Square", "Square Root", "Exp", "Log",
}
DATA_MOVEMENT = {"Transpose", "Static Reshape", "Copy", "Constant Pad", "Concatenate",
                 "Slice", "Depth To Space", "Space To Depth", "Channel Shuffle"}


def product(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def parse(event):
    """'Convolution (NHWC, F32) IGEMM #3' -> ('Convolution', ['NHWC', 'F32'])."""
    m = re.match(r"^(.*?) \(([^)]*)\)", event)
    if not m:
        return event, []
    return m.group(1), [t.strip() for t in m.group(2).split(",")]


def cost(event, shapes):
    if shapes is None:
        return None, None
    inputs, outputs = shapes["inputs"], shapes["outputs"]
    head, tokens = parse(event)
    out_elems = sum(product(s) for s in outputs)
    if head in MATMUL_LIKE:
        weight = inputs[1]
        flops = 2 * out_elems * product(weight[1:])
    elif head == "Batch Matrix Multiply":
        flops = 2 * out_elems * inputs[0][-1]
    elif head in ELEMENTWISE:
        flops = out_elems
    elif head in DATA_MOVEMENT:
        flops = 0
    else:
        flops = None
    dtypes = tokens[1:]
    if len(dtypes) == 1 and dtypes[0] in TYPE_BYTES:
        size = TYPE_BYTES[dtypes[0]]
        nbytes = (sum(product(s) for s in inputs) + out_elems) * size
    else:
        nbytes = None
    return flops, nbytes


def main():
    out = {}
    files = sorted(glob.glob(os.path.join(ROOT, "fixtures/cpu/*.truth.json")))
    files += sorted(glob.glob(os.path.join(ROOT, "fixtures/cpu-faults/*.truth.json")))
    for path in files:
        truth = json.load(open(path))
        rows = []
        for d in truth["delegates"]:
            for step in d["steps"]:
                for op in step["operators"]:
                    shapes = op["shapes"] if op.get("metadata") == "json" else None
                    flops, nbytes = cost(op["event"], shapes)
                    rows.append({
                        "instruction_id": d["instruction_id"],
                        "step": step["event"],
                        "event": op["event"],
                        "flops": flops,
                        "bytes": nbytes,
                    })
        out[truth["case"]] = rows
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
