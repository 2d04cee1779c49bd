#!/usr/bin/env python3
"""Cut a Kineto Chrome trace to its first N ms (for small test fixtures).

Keeps the top-level fields and every event that is not a timed one (metadata `ph: M`)
plus every timed event starting within N ms of the earliest `cpu_op` / `user_annotation`
event. Numbers are copied as written (the JSON is read with decimals, never floats).

Usage: trim_kineto_trace.py IN.json[.gz] OUT.json.gz MS
"""
import decimal
import gzip
import json
import sys


def main():
    src, dst, ms = sys.argv[1], sys.argv[2], decimal.Decimal(sys.argv[3])
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    events = doc["traceEvents"]
    starts = [
        decimal.Decimal(e["ts"])
        for e in events
        if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation")
    ]
    cut = min(starts) + ms * 1000
    doc["traceEvents"] = [
        e for e in events if "ts" not in e or decimal.Decimal(e["ts"]) < cut
    ]

    text = "".join(_encode(doc))
    with gzip.open(dst, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write(text)


def _encode(o):
    if isinstance(o, decimal.Decimal):
        yield str(o)
    elif isinstance(o, dict):
        yield "{"
        for i, (k, v) in enumerate(o.items()):
            if i:
                yield ","
            yield json.dumps(k, ensure_ascii=False)
            yield ":"
            yield from _encode(v)
        yield "}"
    elif isinstance(o, list):
        yield "["
        for i, v in enumerate(o):
            if i:
                yield ","
            yield from _encode(v)
        yield "]"
    else:
        yield json.dumps(o, ensure_ascii=False)


if __name__ == "__main__":
    main()
