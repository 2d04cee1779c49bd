#!/usr/bin/env python3
"""Make torch.profiler traces the way people record them in the wild, each with PyTorch's
own `key_averages()` of the same run (issue #44).

Traces (small models, CPU only):

* `with_stack`: a two-layer MLP trained with SGD, each step under
  `record_function("request")`, `with_stack=True` (the trace holds `python_function`
  events, the Python frames), a schedule (wait 1, warmup 1, active 3);
* `compiled`: `torch.compile` of a small function, its first call (the compilation: dynamo,
  inductor, `async_compile.wait (dynamo_timed)` ...) and two more under the profiler;
* `tb/`: nested `record_function` scopes under a schedule with two cycles, written by
  `tensorboard_trace_handler(use_gzip=True)` (one `.pt.trace.json.gz` per cycle);
* `threads`: three Python threads running ops at once, `profile_all_threads=True`.

Each trace `X` gets `X.key_averages.json`: per key (`key_averages()` with its defaults: no
Python frames) `count`, `self_ns` and `total_ns` (PyTorch's µs times times 1000, rounded
to whole ns), and `X.summary.txt` (`key_averages().table()`).

Usage: /work/venv/bin/python scripts/make_wild_traces.py fixtures/torch/wild [NAME...]
"""
import gzip
import json
import os
import shutil
import sys
import threading


def golden(prof, path_stem):
    ka = prof.key_averages()
    rows = {
        e.key: {
            "count": e.count,
            "self_ns": round(e.self_cpu_time_total * 1000),
            "total_ns": round(e.cpu_time_total * 1000),
        }
        for e in ka
    }
    with open(path_stem + ".key_averages.json", "w") as f:
        json.dump(dict(sorted(rows.items())), f, indent=1, ensure_ascii=False)
        f.write("\n")
    with open(path_stem + ".summary.txt", "w") as f:
        f.write(ka.table(sort_by="self_cpu_time_total", row_limit=-1))
    print(f"[golden] {path_stem}: {len(rows)} keys")


def with_stack(out):
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    torch.manual_seed(1)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))
    stem = os.path.join(out, "with_stack")

    def ready(prof):
        prof.export_chrome_trace(stem + ".json")
        golden(prof, stem)

    with profile(
        activities=[ProfilerActivity.CPU],
        record_shapes=True,
        with_stack=True,
        schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
        on_trace_ready=ready,
    ) as prof:
        for _ in range(5):
            with record_function("request"):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
            prof.step()


def compiled(out):
    import torch
    from torch.profiler import ProfilerActivity, profile

    def f(a, b):
        return torch.nn.functional.gelu(a @ b).sum(dim=-1).softmax(dim=0)

    fc = torch.compile(f)
    a, b = torch.randn(16, 32), torch.randn(32, 16)
    stem = os.path.join(out, "compiled")
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(3):
            fc(a, b)
    prof.export_chrome_trace(stem + ".json")
    golden(prof, stem)


def tb(out):
    import torch
    from torch.profiler import (
        ProfilerActivity,
        profile,
        record_function,
        schedule,
        tensorboard_trace_handler,
    )

    d = os.path.join(out, "tb")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    handler = tensorboard_trace_handler(d, worker_name="worker0", use_gzip=True)
    cycle = [0]

    def ready(prof):
        before = set(os.listdir(d))
        handler(prof)
        (written,) = set(os.listdir(d)) - before
        cycle[0] += 1
        name = f"worker0.cycle{cycle[0]}.pt.trace.json.gz"
        os.rename(os.path.join(d, written), os.path.join(d, name))
        golden(prof, os.path.join(d, f"worker0.cycle{cycle[0]}"))

    torch.manual_seed(2)
    conv = torch.nn.Conv2d(3, 8, 3)
    x = torch.randn(2, 3, 16, 16)
    with torch.no_grad(), profile(
        activities=[ProfilerActivity.CPU],
        record_shapes=True,
        schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
        on_trace_ready=ready,
    ) as prof:
        for _ in range(8):
            with record_function("batch"):
                with record_function("preprocess"):
                    z = (x - x.mean()) / x.std()
                with record_function("forward"):
                    with record_function("forward.conv"):
                        h = conv(z)
                    h = torch.relu(h).flatten(1).sum(1)
            prof.step()
    # The handler's gzip timestamps make the files differ run to run; nothing else.
    for name in os.listdir(d):
        if name.endswith(".gz"):
            p = os.path.join(d, name)
            with gzip.open(p, "rb") as f:
                data = f.read()
            with open(p, "wb") as f:
                f.write(gzip.compress(data, mtime=0))


def threads(out):
    import torch
    from torch._C._profiler import _ExperimentalConfig
    from torch.profiler import ProfilerActivity, profile, record_function

    torch.manual_seed(3)
    mats = [torch.randn(48, 48) for _ in range(3)]
    barrier = threading.Barrier(4)

    def work(i):
        barrier.wait()
        with record_function(f"worker{i}"):
            m = mats[i]
            for _ in range(4):
                m = torch.tanh(m @ mats[i]) + 1
        barrier.wait()

    stem = os.path.join(out, "threads")
    ts = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in ts:
        t.start()
    with profile(
        activities=[ProfilerActivity.CPU],
        experimental_config=_ExperimentalConfig(profile_all_threads=True),
    ) as prof:
        barrier.wait()
        with record_function("main"):
            torch.ones(8).cumsum(0)
        barrier.wait()
    for t in ts:
        t.join()
    prof.export_chrome_trace(stem + ".json")
    golden(prof, stem)


MAKERS = {"with_stack": with_stack, "compiled": compiled, "tb": tb, "threads": threads}


def main():
    import torch

    out = sys.argv[1] if len(sys.argv) > 1 else "fixtures/torch/wild"
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(1)
    for name in sys.argv[2:] or list(MAKERS):
        MAKERS[name](out)
    print(f"torch {torch.__version__}")


if __name__ == "__main__":
    main()
