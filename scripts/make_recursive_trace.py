#!/usr/bin/env python3
"""Make a real torch.profiler Chrome trace in which ops call themselves, with several
profiler steps, and record PyTorch's own `key_averages()` of the same run.

`torch.abs(x)` runs `aten::abs`, which calls `aten::empty` and then `aten::abs` (the out
variant) inside itself; `torch.logsumexp` likewise calls `aten::logsumexp` (out) among
other children. Neither inner call is an only child, so PyTorch's aggregate keeps both
calls and counts both durations in the inclusive total. The loop runs under a profiler
schedule (wait 1, warmup 1, active STEPS), so the trace holds `ProfilerStep#2`,
`ProfilerStep#3`, ... which `key_averages()` reports as one key `ProfilerStep*`.

Usage: /work/venv/bin/python scripts/make_recursive_trace.py fixtures/torch
Writes: recursive_steps.json (the Chrome trace), recursive_steps.key_averages.json
        (per key: count, self_cpu_time_total_us, cpu_time_total_us), and
        recursive_steps.summary.txt (key_averages().table()).
"""
import json
import os
import sys

STEPS = 4


def main(out):
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function, schedule

    torch.manual_seed(3)
    lin = torch.nn.Linear(32, 32)
    x = torch.randn(16, 32)

    def step():
        with record_function("iteration"):
            y = lin(x)
            z = torch.abs(y)
            s = torch.logsumexp(z, dim=-1)
            return (s.abs() + z.abs().sum()).sum()

    with torch.no_grad():
        with profile(
            activities=[ProfilerActivity.CPU],
            record_shapes=True,
            schedule=schedule(wait=1, warmup=1, active=STEPS, repeat=1),
        ) as prof:
            for _ in range(STEPS + 2):
                step()
                prof.step()
    trace = os.path.join(out, "recursive_steps.json")
    prof.export_chrome_trace(trace)
    ka = prof.key_averages()
    rows = [
        {
            "name": e.key,
            "count": e.count,
            "self_cpu_time_total_us": e.self_cpu_time_total,
            "cpu_time_total_us": e.cpu_time_total,
        }
        for e in ka
    ]
    with open(os.path.join(out, "recursive_steps.key_averages.json"), "w") as f:
        json.dump(rows, f, indent=1)
    with open(os.path.join(out, "recursive_steps.summary.txt"), "w") as f:
        f.write(ka.table(sort_by="self_cpu_time_total", row_limit=-1))
    print(f"[trace] {trace} ({os.path.getsize(trace)} bytes), torch {torch.__version__}")
    for r in rows:
        print(f"    {r['name']!r} count={r['count']} self={r['self_cpu_time_total_us']:.3f} total={r['cpu_time_total_us']:.3f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/torch")
