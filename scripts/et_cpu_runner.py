#!/usr/bin/env python3
"""A CpuBackend-style runner on ExecuTorch's Python bindings, for `cpuprof-tui run`.

Loads a .pte with ETDump enabled, runs one method ET_CPU_WARMUP_RUNS warm-up and
ET_CPU_TIMED_RUNS timed times on one loaded method (every run is an Execute block of the
dump, warm-ups first, as the C++ runner does), writes the ETDump to ET_CPU_ETDUMP and
logs to standard error in the POSIX PAL's ET_LOG format, including the runner's
`Running W warm-up and T timed iteration(s).` line.

Usage: python scripts/et_cpu_runner.py MODEL.pte [--method NAME] [--etdump PATH] [--seed N]
  ET_CPU_ETDUMP       where the dump goes (or --etdump PATH; required)
  ET_CPU_WARMUP_RUNS  warm-up iterations (default 1)
  ET_CPU_TIMED_RUNS   timed iterations (default 10, at least 1)
Inputs are random tensors of the method's input shapes (seeded). Exit status 1 when the
model cannot be loaded or run, 2 on bad arguments.

Example: cpuprof-tui run --warmup 2 --timed 20 -- python scripts/et_cpu_runner.py m.pte
"""
import argparse
import os
import sys
import time

T0 = time.monotonic()


def log(level, line, message):
    t = time.monotonic() - T0
    h, rem = divmod(t, 3600)
    m, s = divmod(rem, 60)
    sys.stderr.write(
        f"{level} {int(h):02d}:{int(m):02d}:{s:09.6f} executorch:et_cpu_runner.py:{line}] {message}\n"
    )
    sys.stderr.flush()


def count(name, default, least):
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        n = int(raw)
    except ValueError:
        n = -1
    if n < least:
        log("E", 50, f"{name}={raw!r}: expected a whole number, {least} or more")
        sys.exit(2)
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pte")
    ap.add_argument("--method", default="forward")
    ap.add_argument("--etdump", default=os.environ.get("ET_CPU_ETDUMP"))
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if not a.etdump:
        log("E", 60, "no ETDump path: set ET_CPU_ETDUMP (or --etdump)")
        return 2
    warmup = count("ET_CPU_WARMUP_RUNS", 1, 0)
    timed = count("ET_CPU_TIMED_RUNS", 10, 1)

    import torch
    from executorch.extension.pybindings import portable_lib as pl

    try:
        m = pl._load_for_executorch(a.pte, enable_etdump=True)
    except Exception as e:  # noqa: BLE001 - the runtime raises plain RuntimeErrors
        log("E", 70, f"Model file {a.pte} could not be loaded: {e}")
        return 1
    log("I", 72, f"Model file {a.pte} is loaded.")
    log("I", 73, f"Using method {a.method}")
    meta = m.method_meta(a.method)
    torch.manual_seed(a.seed)
    inputs = []
    for i in range(meta.num_inputs()):
        info = meta.input_tensor_meta(i)
        inputs.append(torch.randn(tuple(info.sizes())))
    log("I", 80, "Inputs prepared.")
    log("I", 81, f"Running {warmup} warm-up and {timed} timed iteration(s).")
    try:
        for _ in range(warmup):
            m.run_method(a.method, tuple(inputs))
        t = time.monotonic()
        for _ in range(timed):
            outs = m.run_method(a.method, tuple(inputs))
        ms = (time.monotonic() - t) * 1e3
    except Exception as e:  # noqa: BLE001
        log("E", 90, f"Execution of method {a.method} failed: {e}")
        return 1
    log("I", 93, f"Model executed successfully {timed} time(s) in {ms:.6f} ms.")
    log("I", 94, f"{len(outs)} outputs: ")
    m.write_etdump_result_to_file(a.etdump)
    log("I", 96, f"ETDump written to file '{a.etdump}'.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
