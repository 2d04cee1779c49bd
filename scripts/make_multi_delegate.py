#!/usr/bin/env python3
"""Make a real partially delegated ETDump with several XNNPACK delegates (executorch 1.5.1)
and record the ExecuTorch Inspector's view of it.

The model is a small recurrent cell unrolled over STEPS time steps:
    h = tanh(fc_x(x_t) + fc_h(h)); h = cumsum(h, dim=-1)
XNNPACK takes the linear/add/tanh part of each step; `cumsum` is not an XNNPACK op, so it
runs as a portable kernel between the delegates. The program therefore holds STEPS
XNNPACK delegates whose operators have the same names (`Fully Connected (NC, F32) GEMM #1`
restarts in each delegate) and STEPS portable `native_call_cumsum.out` instructions: the
case where a frame naming only the operator merges different operators.

The .pte is loaded through the pybindings with enable_etdump=True, `forward()` runs RUNS
times, and the ETDump is written. The golden is the Inspector's event table
(etdump_only: every Execute event's raw samples and statistics, in ms), in the layout of
fixtures/real/*.inspector.json (see fixtures/real/make_fixtures.py).

Usage: /work/venv/bin/python scripts/make_multi_delegate.py fixtures/real [STEPS NAME]
Writes: multi_delegate.pte (not kept in git), multi_delegate.etdp,
        multi_delegate.inspector.json, multi_delegate.graph.txt
  (`... fixtures/real 8 multi_delegate8`: the 8-delegate unrolled cell, as NAME.*)
"""
import json
import os
import sys
import warnings

STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 4
NAME = sys.argv[3] if len(sys.argv) > 3 else "multi_delegate"
RUNS = 15


def main(out):
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.extension.pybindings import portable_lib as pl

    torch.manual_seed(11)

    class Unrolled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc_x = torch.nn.Linear(64, 256)
            self.fc_h = torch.nn.Linear(256, 256)

        def forward(self, xs):
            h = torch.zeros(xs.shape[1], 256)
            for t in range(STEPS):
                h = torch.tanh(self.fc_x(xs[t]) + self.fc_h(h))
                h = torch.cumsum(h, dim=-1)
            return h

    example = (torch.randn(STEPS, 16, 64),)
    program = torch.export.export(Unrolled().eval(), example)
    edge = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
    et = edge.to_executorch()
    pte = os.path.join(out, f"{NAME}.pte")
    with open(pte, "wb") as f:
        et.write_to_file(f)
    graph = str(et.exported_program().graph_module.graph)
    with open(os.path.join(out, f"{NAME}.graph.txt"), "w") as f:
        f.write(graph)

    m = pl._load_for_executorch(pte, enable_etdump=True)
    for _ in range(RUNS):
        m.forward(example)
    etdp = os.path.join(out, f"{NAME}.etdp")
    m.write_etdump_result_to_file(etdp)
    print(f"[run] wrote {etdp} ({os.path.getsize(etdp)} bytes)", flush=True)

    from executorch.devtools import Inspector

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        insp = Inspector(etdump_path=etdp)
    blocks = []
    for b in insp.event_blocks:
        events = []
        for ev in b.events:
            pd_ = ev.perf_data
            raw = [float(x) for x in pd_.raw] if pd_ is not None else []
            events.append({
                "event_name": ev.name,
                "instruction_id": ev._instruction_id,
                "delegate_debug_identifier": ev.delegate_debug_identifier,
                "is_delegated_op": ev.is_delegated_op,
                "num_samples": len(raw),
                "raw_ms": raw,
                "p10_ms": float(pd_.p10) if pd_ else None,
                "median_ms": float(pd_.p50) if pd_ else None,
                "p90_ms": float(pd_.p90) if pd_ else None,
                "avg_ms": float(pd_.avg) if pd_ else None,
                "min_ms": float(pd_.min) if pd_ else None,
                "max_ms": float(pd_.max) if pd_ else None,
            })
        blocks.append({"name": b.name, "bundled_input_index": b.bundled_input_index,
                       "num_events": len(b.events), "events": events})
    golden = {
        "producer": "scripts/make_multi_delegate.py, executorch 1.5.1, Inspector(etdump_path) only",
        "runs": RUNS,
        "unit": "ms (Inspector source_time_scale NS -> target MS)",
        "etdump_only": {"event_blocks": blocks},
    }
    with open(os.path.join(out, f"{NAME}.inspector.json"), "w") as f:
        json.dump(golden, f, indent=1)
    for b in blocks:
        print(f"[inspector] block {b['name']} events={b['num_events']}")
        for e in b["events"]:
            print(f"    {e['event_name']!r} instr={e['instruction_id']} n={e['num_samples']} median={e['median_ms']}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/real")
