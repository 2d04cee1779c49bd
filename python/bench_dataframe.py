"""Time `cpuprof.load(DUMP).to_dataframe()` against the ExecuTorch Inspector's
`Inspector(etdump_path=DUMP).to_dataframe()` on the same dumps: best of N runs each (the
file warm in the page cache, the modules imported before timing), then the ratio.

    python python/bench_dataframe.py [-n N] [DUMP ...]

Defaults: fixtures/real/mlp_xnnpack.etdp and fixtures/cpu/wide_browse.etdp (the biggest
dump of fixtures/cpu), N = 7. Needs the cpuprof module (`maturin develop --release` for
figures worth quoting) and executorch (its Inspector).
"""

import argparse
import os
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULTS = [
    os.path.join(ROOT, "fixtures", "real", "mlp_xnnpack.etdp"),
    os.path.join(ROOT, "fixtures", "cpu", "wide_browse.etdp"),
]


def best_of(n, f):
    best = float("inf")
    rows = None
    for _ in range(n):
        t = time.perf_counter()
        rows = len(f())
        best = min(best, time.perf_counter() - t)
    return best, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=7, help="runs of each (best taken)")
    ap.add_argument("dumps", nargs="*", default=DEFAULTS)
    args = ap.parse_args()

    import cpuprof
    from executorch.devtools import Inspector

    for dump in args.dumps:
        with open(dump, "rb") as f:
            size = len(f.read())
        # No warm-up dropped: the Inspector keeps every run.
        ours, our_rows = best_of(args.n, lambda: cpuprof.load(dump, warmup=0).to_dataframe())
        theirs, their_rows = best_of(args.n, lambda: Inspector(etdump_path=dump).to_dataframe())
        print(
            "{} ({:,} bytes): cpuprof {:.2f} ms ({} rows), Inspector {:.1f} ms ({} rows), "
            "{:.0f}x (best of {})".format(
                os.path.relpath(dump, ROOT), size, ours * 1e3, our_rows, theirs * 1e3,
                their_rows, theirs / ours, args.n,
            )
        )


if __name__ == "__main__":
    main()
