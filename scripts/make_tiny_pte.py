#!/usr/bin/env python3
"""Make fixtures/run/tiny_mlp.pte: a 3-layer MLP (8 -> 16 -> 16 -> 4, ReLU) lowered to
XNNPACK with executorch 1.5.1, for the run tests (`tests/it/run_executorch.rs`). Seeded, so
the file is the same on every run.

Usage: /work/venv/bin/python scripts/make_tiny_pte.py fixtures/run
"""
import os
import sys


def main(out):
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    torch.manual_seed(3)
    model = torch.nn.Sequential(
        torch.nn.Linear(8, 16), torch.nn.ReLU(),
        torch.nn.Linear(16, 16), torch.nn.ReLU(),
        torch.nn.Linear(16, 4),
    ).eval()
    example = (torch.randn(2, 8),)
    program = torch.export.export(model, example)
    et = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()]).to_executorch()
    path = os.path.join(out, "tiny_mlp.pte")
    with open(path, "wb") as f:
        et.write_to_file(f)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/run")
