#!/usr/bin/env python3
"""Synthetic PyTorch profiler Chrome traces (Kineto JSON) for compare tests.

A small CNN forward pass, ITERS iterations under a `## forward ##` user annotation,
one CPU thread. Every op's self time is base * lognormal(0, 0.10) per call, times a
per-iteration factor lognormal(0, 0.03); `--slow NAME:FACTOR` multiplies the self time
of op NAME (its ancestors grow by the same absolute amount). Same --iters and a
different --seed give a null pair.

    gen-compare-traces.py --seed 1 --iters 20 --out a.json [--slow aten::addmm:1.5]
"""
import argparse, json, random

# (name, self_us, children)
MODEL = ("## forward ##", 4.0, [
    ("aten::conv2d", 1.5, [("aten::convolution", 1.0, [("aten::_convolution", 1.0, [("aten::mkldnn_convolution", 120.0, [])])])]),
    ("aten::relu", 2.0, [("aten::clamp_min", 9.0, [])]),
    ("aten::max_pool2d", 1.0, [("aten::max_pool2d_with_indices", 30.0, [])]),
    ("aten::conv2d", 1.5, [("aten::convolution", 1.0, [("aten::_convolution", 1.0, [("aten::mkldnn_convolution", 80.0, [])])])]),
    ("aten::relu", 2.0, [("aten::clamp_min", 6.0, [])]),
    ("aten::flatten", 1.0, [("aten::view", 1.2, [])]),
    ("aten::linear", 1.5, [("aten::t", 1.0, [("aten::transpose", 1.5, [])]), ("aten::addmm", 40.0, [])]),
    ("aten::softmax", 1.0, [("aten::_softmax", 5.0, [])]),
])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--out", required=True)
    ap.add_argument("--slow", action="append", default=[], metavar="NAME:FACTOR")
    a = ap.parse_args()
    slow = {s.rsplit(":", 1)[0]: float(s.rsplit(":", 1)[1]) for s in a.slow}
    rng = random.Random(a.seed)
    events = []
    pid = tid = 4242

    def emit(node, start, rf):
        name, self_us, children = node
        t = start + 0.4
        for c in children:
            t = emit(c, t, rf) + 0.3
        own = self_us * rf * rng.lognormvariate(0.0, 0.10) * slow.get(name, 1.0)
        end = t + own
        cat = "user_annotation" if name.startswith("##") else "cpu_op"
        events.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
                       "ts": round(start, 3), "dur": round(end - start, 3), "args": {}})
        return end

    t = 1000.0
    for _ in range(a.iters):
        rf = rng.lognormvariate(0.0, 0.03)
        t = emit(MODEL, t, rf) + 50.0
    doc = {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
           "traceEvents": sorted(events, key=lambda e: e["ts"]), "traceName": a.out}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=0)


if __name__ == "__main__":
    main()
