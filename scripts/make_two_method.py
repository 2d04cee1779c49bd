#!/usr/bin/env python3
"""Make a real two-method ETDump with executorch 1.5.1 and record the Inspector's view.

One program with two methods, exported from two torch.export programs:
  encode: x -> relu(linear(x))            (one XNNPACK delegate)
  decode: y -> cumsum(linear(y), dim=-1)  (an XNNPACK delegate, then portable cumsum)
Both are loaded through the pybindings with enable_etdump=True and run alternately
(encode, decode) ENCODE_RUNS times, then decode alone until it has DECODE_RUNS runs, so
the ETDump holds interleaved Execute blocks of two run signatures. Then the ExecuTorch
Inspector (etdump only) is asked for its event blocks; their counts, raw samples and
medians (ms) are written as golden JSON.

Usage: /work/venv/bin/python scripts/make_two_method.py fixtures/real
Writes: two_method.pte (not kept in git), two_method.etdp, two_method.inspector.json
"""
import json
import os
import sys
import warnings

ENCODE_RUNS = 12
DECODE_RUNS = 16


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

    class Decode(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(64, 16)

        def forward(self, y):
            return torch.cumsum(self.fc(y), dim=-1)

    enc_in = (torch.randn(4, 32),)
    dec_in = (torch.randn(4, 64),)
    programs = {
        "encode": torch.export.export(Encode().eval(), enc_in),
        "decode": torch.export.export(Decode().eval(), dec_in),
    }
    edge = to_edge_transform_and_lower(programs, partitioner=[XnnpackPartitioner()])
    et = edge.to_executorch()
    pte = os.path.join(out, "two_method.pte")
    with open(pte, "wb") as f:
        et.write_to_file(f)
    for name in ("encode", "decode"):
        print(f"[export] {name}:\n{et.exported_program(name).graph_module.graph}", flush=True)

    m = pl._load_for_executorch(pte, enable_etdump=True)
    order = []
    for i in range(DECODE_RUNS):
        if i < ENCODE_RUNS:
            m.run_method("encode", enc_in)
            order.append("encode")
        m.run_method("decode", dec_in)
        order.append("decode")
    etdp = os.path.join(out, "two_method.etdp")
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
        "producer": "scripts/make_two_method.py, executorch 1.5.1, Inspector(etdump_path) only",
        "run_order": order,
        "unit": "ms (Inspector source_time_scale NS -> target MS)",
        "event_blocks": blocks,
    }
    with open(os.path.join(out, "two_method.inspector.json"), "w") as f:
        json.dump(golden, f, indent=1)
    for b in blocks:
        print(f"[inspector] block {b['name']} bii={b['bundled_input_index']} events={b['num_events']}")
        for e in b["events"]:
            print(f"    {e['event_name']!r} instr={e['instruction_id']} n={e['num_samples']} median={e['median_ms']}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/real")
