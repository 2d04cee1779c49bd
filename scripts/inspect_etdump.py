#!/usr/bin/env python3
"""Print the ExecuTorch Inspector's view of an ETDump as JSON (etdump only, every run
kept): for each event block its name and events (event name, instruction id, raw ms).
Used by tests/it/run_executorch.rs as the truth for a dump `cpuprof-tui run` produced.

Usage: python scripts/inspect_etdump.py DUMP.etdp
"""
import json
import sys
import warnings


def main(path):
    from executorch.devtools import Inspector

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        insp = Inspector(etdump_path=path)
    blocks = []
    for b in insp.event_blocks:
        events = []
        for e in b.events:
            raw = list(map(float, e.perf_data.raw)) if e.perf_data is not None else []
            events.append({"event_name": e.name, "instruction_id": e._instruction_id,
                           "raw_ms": raw})
        blocks.append({"name": b.name, "events": events})
    json.dump({"event_blocks": blocks}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
