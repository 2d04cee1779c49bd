#!/usr/bin/env python3
"""Generate CpuBackend fault-case fixtures with fixtures/gen_cpu_fixtures.py.

That generator writes ETDumps through executorch's Python serializer; executorch (and
torch) are too heavy to install here, so this wrapper swaps in a writer that feeds the
same events to flatc 25.12.19 with our schema (assets/schema/etdump.fbs), size-prefixed,
exactly as the generator's own writer does with executorch's bundled schema and flatc.
The wrapper checks its writer against a shipped fixture first (same seed -> same events).

    python3 scripts/gen-fault-fixtures.py fixtures/cpu-faults
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "fixtures"))
import gen_cpu_fixtures as G  # noqa: E402

SCHEMA = os.path.join(ROOT, "assets", "schema", "etdump.fbs")


def write_etdump(blocks, path):
    run_data = []
    for name, evs in blocks:
        events = []
        for e in evs:
            pe = {"chain_index": e.chain, "instruction_id": e.instr,
                  "start_time": e.start, "end_time": e.end}
            if e.name is not None:
                pe["name"] = e.name
            if e.dstr is not None:
                pe["delegate_debug_id_str"] = e.dstr
            if e.md is not None:
                pe["delegate_debug_metadata"] = list(e.md)
            events.append({"profile_event": pe})
        run_data.append({"name": name, "events": events})
    with tempfile.TemporaryDirectory() as d:
        jpath = os.path.join(d, "etdump.json")
        with open(jpath, "w") as fh:
            json.dump({"version": 0, "run_data": run_data}, fh)
        subprocess.run(["flatc", "--binary", "--size-prefixed", "-o", d, SCHEMA, jpath], check=True)
        with open(os.path.join(d, "etdump.etdp"), "rb") as fh:
            data = fh.read()
    size = struct.unpack_from("<I", data, 0)[0]
    assert size == len(data) - 4 and data[8:12] == b"ED00"
    with open(path, "wb") as fh:
        fh.write(data)
    return len(data)


G.write_etdump = write_etdump

CASES = [
    # (name, model, warmup, timed, seed, generator flags)
    ("cnn2_drop_ops", "cnn2", 2, 10, 31, ["--drop-xnn-ops", "0:2"]),
    ("cnn2_drop_step", "cnn2", 2, 10, 32, ["--drop-step-event", "0:1:5", "--drop-step-event", "1:0:7"]),
    ("cnn2_bad_metadata", "cnn2", 1, 6, 33, [f"--bad-metadata=0:0:{i}:{k}" for i, k in
                                            enumerate(["truncated", "not_utf8", "symbol_us", "wrong_layout", "garbage"])]),
    ("cnn2_truncated_plan", "cnn2", 1, 6, 34, ["--truncate-chunks", "0:5"]),
    ("cnn2_gap_plan", "cnn2", 1, 6, 35, ["--drop-chunk", "1:2"]),
    ("mlp_noshapes_hours", "mlp", 2, 5, 36, ["--no-shapes", "--hours", "101.5"]),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "fixtures", "cpu-faults")
    os.makedirs(out, exist_ok=True)
    for name, model, w, t, seed, flags in CASES:
        G.main(["--model", model, "--warmup", str(w), "--timed", str(t), "--seed", str(seed),
                "--out", out, "--name", name] + flags)
    print("wrote", ", ".join(c[0] for c in CASES), "to", out)


if __name__ == "__main__":
    main()
