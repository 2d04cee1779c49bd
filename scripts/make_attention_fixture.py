#!/usr/bin/env python3
"""A real ETRecord holding `-Infinity`: a tiny causal self-attention block (the mask applied
with `masked_fill(mask, float("-inf"))`, as every attention mask does), exported with
executorch 1.5.1 like the other fixtures of fixtures/etrecord (see make_etrecord_fixtures.py):
`to_edge_transform_and_lower(..., generate_etrecord=True)`, portable kernels only, written as
`.pte` + ETRecord, loaded through the pybindings with `enable_etdump=True` and run RUNS
times. Python's json writes the mask value as `{"as_float": -Infinity}` in the edge program,
which strict JSON readers reject.

Files (in DIR):
  attention_mask.pte, .etrecord, .etdp, .inspector.json (Inspector(etdump, etrecord), the
  golden of make_etrecord_fixtures.golden), and attention_mask.bpte (the same program
  bundled with one test case, for the "a program given as the dump" message).
Then `python3 scripts/etrecord_truth.py DIR` writes attention_mask.truth.json.

Usage: /work/venv/bin/python scripts/make_attention_fixture.py fixtures/etrecord
"""
import os
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_etrecord_fixtures import RUNS, golden, lower, seed  # noqa: E402

STEM = "attention_mask"


def model():
    import torch
    from torch import nn

    class Attention(nn.Module):
        def __init__(self, d, t):
            super().__init__()
            self.q = nn.Linear(d, d)
            self.k = nn.Linear(d, d)
            self.v = nn.Linear(d, d)
            self.out = nn.Linear(d, d)
            self.register_buffer("mask", torch.triu(torch.ones(t, t, dtype=torch.bool), 1))
            self.scale = d ** -0.5

        def forward(self, x):
            q, k, v = self.q(x), self.k(x), self.v(x)
            scores = torch.matmul(q, k.transpose(-2, -1)) * self.scale
            scores = scores.masked_fill(self.mask, float("-inf"))
            return self.out(torch.matmul(torch.softmax(scores, dim=-1), v))

    class Block(nn.Module):
        def __init__(self, d=16, t=8):
            super().__init__()
            self.attn = Attention(d, t)
            self.norm = nn.LayerNorm(d)

        def forward(self, x):
            return self.norm(x + self.attn(x))

    return Block


def main(out):
    import torch

    os.makedirs(out, exist_ok=True)
    seed()
    m = model()().eval()
    x = (torch.randn(1, 8, 16),)
    ep = torch.export.export(m, x)
    et = lower(ep, xnnpack=False)
    with open(os.path.join(out, f"{STEM}.pte"), "wb") as f:
        et.write_to_file(f)
    rec = os.path.join(out, f"{STEM}.etrecord")
    et.get_etrecord().save(rec)
    with zipfile.ZipFile(rec) as z:
        text = z.read("edge_dialect_exported_program/forward")
    assert b"-Infinity" in text, "the edge program holds no -Infinity"
    from executorch.extension.pybindings import portable_lib as pl

    prog = pl._load_for_executorch(os.path.join(out, f"{STEM}.pte"), enable_etdump=True)
    for _ in range(RUNS):
        prog.forward(x)
    prog.write_etdump_result_to_file(os.path.join(out, f"{STEM}.etdp"))
    golden(out, STEM, f"{STEM}.etrecord")
    try:
        from executorch.devtools import BundledProgram
        from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
        from executorch.devtools.bundled_program.serialize import (
            serialize_from_bundled_program_to_flatbuffer,
        )

        suite = MethodTestSuite(
            method_name="forward",
            test_cases=[MethodTestCase(inputs=list(x), expected_outputs=(m(*x),))],
        )
        bp = BundledProgram(et, [suite])
        with open(os.path.join(out, f"{STEM}.bpte"), "wb") as f:
            f.write(serialize_from_bundled_program_to_flatbuffer(bp))
    except Exception as e:  # noqa: BLE001 - the bundle is optional
        print(f"[bpte] not made: {type(e).__name__}: {e}")
    print(f"[attention] {STEM}: -Infinity in the edge program ({text.count(b'-Infinity')} times)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/etrecord")
