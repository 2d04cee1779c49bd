#!/usr/bin/env python3
"""Make a real ETDump of two twin methods (identical graphs, so identical run
signatures) with executorch 1.5.1 and record the Inspector's view.

One program with two methods exported from the same module:
  encode, encode_twin: x -> relu(linear(x))   (one XNNPACK delegate each)
Both are loaded through the pybindings with enable_etdump=True (two method loads: two
`Default` blocks) and run alternately RUNS times each. Their Execute blocks have one
signature, so the Inspector groups them into one block (and both loads into one Default
block of 2 samples). The Inspector's event blocks (counts, raw samples, medians in ms)
are written as golden JSON.

Usage: /work/venv/bin/python scripts/make_twin_methods.py fixtures/real
Writes: twin_methods.pte (not kept in git), twin_methods.etdp, twin_methods.inspector.json
"""
import json
import os
import sys
import warnings

RUNS = 8


def main(out):
    import torch
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.extension.pybindings import portable_lib as pl

    torch.manual_seed(7)

    class Encode(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(32, 64)

        def forward(self, x):
            return torch.relu(self.fc(x))

    enc = Encode().eval()
    enc_in = (torch.randn(4, 32),)
    programs = {
        "encode": torch.export.export(enc, enc_in),
        "encode_twin": torch.export.export(enc, enc_in),
    }
    edge = to_edge_transform_and_lower(programs, partitioner=[XnnpackPartitioner()])
    et = edge.to_executorch()
    pte = os.path.join(out, "twin_methods.pte")
    with open(pte, "wb") as f:
        et.write_to_file(f)

    m = pl._load_for_executorch(pte, enable_etdump=True)
    order = []
    for i in range(RUNS):
        for name in ("encode", "encode_twin"):
            m.run_method(name, enc_in)
            order.append(name)
    etdp = os.path.join(out, "twin_methods.etdp")
    m.write_etdump_result_to_file(etdp)
    print(f"[run] order: {order}", flush=True)
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
                "median_ms": float(pd_.p50) if pd_ is not None else None,
            })
        blocks.append({"name": b.name, "bundled_input_index": b.bundled_input_index,
                       "num_events": len(b.events), "events": events})
    golden = {
        "producer": "scripts/make_twin_methods.py, executorch 1.5.1, Inspector(etdump_path) only",
        "run_order": order,
        "unit": "ms (Inspector source_time_scale NS -> target MS)",
        "event_blocks": blocks,
    }
    with open(os.path.join(out, "twin_methods.inspector.json"), "w") as f:
        json.dump(golden, f, indent=1)
    for b in blocks:
        print(f"[inspector] block {b['name']} bii={b['bundled_input_index']} events={b['num_events']}")
        for e in b["events"]:
            print(f"    {e['event_name']!r} instr={e['instruction_id']} n={e['num_samples']} median={e['median_ms']}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/real")
