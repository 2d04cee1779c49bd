#!/usr/bin/env python3
"""key_averages() of a torch.profiler (Kineto) Chrome trace, computed from the JSON alone.

An independent reading for tests: every `ts`/`dur` is read as a decimal (never a float:
at epoch scale a double holds µs only to 0.25 µs) and made integer ns, rounding half away
from zero. Then PyTorch's own rules (torch/autograd/profiler_util.py, profiler.py):

* events: `ph` "X" of `cat` `cpu_op`, `user_annotation` and `python_function` (the Python
  frames of `with_stack=True`); names `_filter_name` drops (`aten::is_leaf`, ...) left out;
* per (pid, tid): sorted by (start, -end), a stack; an event is a child of the stack top
  when it starts before the top's end and ends at or before it (`_populate_cpu_children`),
  with `--tolerance-ns` added to the parent's end (0 = PyTorch's rule);
* `ProfilerStep#N` is the key `ProfilerStep*`; an event whose parent has the same key and
  no other child is merged into it (`_remove_dup_nodes`, repeated until none is left);
* per key: count, total = sum of durations, self = sum of (duration - children's
  durations); Python frames are children but no key unless `--python-keys`.

Usage: kineto_key_averages.py TRACE.json[.gz] [--tolerance-ns N] [--python-keys]
Prints JSON: {"KEY": {"count": C, "self_ns": S, "total_ns": T}, ...} sorted by key.
"""
import argparse
import decimal
import gzip
import json
import sys
from collections import defaultdict

FILTERED = {
    "[memory]",
    "[OutOfMemory]",
    "profiler::_record_function_enter",
    "profiler::_record_function_enter_new",
    "profiler::_record_function_exit",
    "aten::is_leaf",
    "aten::output_nr",
    "aten::_version",
}
CATS = {"cpu_op", "user_annotation", "python_function"}


def to_ns(v):
    if isinstance(v, str):
        v = v.strip()
    d = decimal.Decimal(v) if not isinstance(v, decimal.Decimal) else v
    return int((d * 1000).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        text = f.read()
    doc = json.loads(text, parse_float=decimal.Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def key_of(name):
    return "ProfilerStep*" if name.startswith("ProfilerStep#") else name


def key_averages(events, tolerance_ns=0, python_keys=False):
    evs = []
    for e in events:
        if not isinstance(e, dict) or e.get("ph") != "X" or e.get("cat") not in CATS:
            continue
        if e.get("name") in FILTERED:
            continue
        start = to_ns(e["ts"])
        dur = to_ns(e["dur"])
        evs.append(
            {
                "key": key_of(e["name"]),
                "python": e["cat"] == "python_function",
                "thread": (str(e["pid"]), str(e["tid"])),
                "start": start,
                "end": start + dur,
                "dur": dur,
                "parent": None,
                "children": [],
            }
        )
    by_thread = defaultdict(list)
    for i, e in enumerate(evs):
        by_thread[e["thread"]].append(i)
    for ids in by_thread.values():
        ids.sort(key=lambda i: (evs[i]["start"], -evs[i]["end"], i))
        stack = []
        for i in ids:
            e = evs[i]
            while stack:
                p = evs[stack[-1]]
                if e["start"] >= p["end"] or e["end"] > p["end"] + tolerance_ns:
                    stack.pop()
                else:
                    p["children"].append(i)
                    e["parent"] = stack[-1]
                    break
            stack.append(i)
    deleted = set()
    while True:
        gone = set()
        for i, e in enumerate(evs):
            if i in deleted:
                continue
            p = e["parent"]
            if p is not None and evs[p]["key"] == e["key"] and len(evs[p]["children"]) == 1:
                evs[p]["children"] = e["children"]
                for c in e["children"]:
                    evs[c]["parent"] = p
                gone.add(i)
        if not gone:
            break
        deleted |= gone
    out = {}
    for i, e in enumerate(evs):
        if i in deleted or (e["python"] and not python_keys):
            continue
        a = out.setdefault(e["key"], {"count": 0, "self_ns": 0, "total_ns": 0})
        a["count"] += 1
        a["total_ns"] += e["dur"]
        a["self_ns"] += e["dur"] - sum(evs[c]["dur"] for c in e["children"])
    return dict(sorted(out.items()))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--tolerance-ns", type=int, default=0)
    ap.add_argument("--python-keys", action="store_true")
    a = ap.parse_args()
    res = key_averages(load(a.trace), a.tolerance_ns, a.python_keys)
    json.dump(res, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
