#!/usr/bin/env python3
"""Make small real ExecuTorch programs the way users make them ("programs from the wild",
issue #43) with executorch 1.5.1, run them with ETDump on, and record what the ExecuTorch
Inspector says about them.

Every program is exported with `to_edge_transform_and_lower(..., generate_etrecord=True)`
(dim order on, the default), written as `.pte` + ETRecord, run on the CPU through the
pybindings with `enable_etdump=True`.

  attn_dimorder   a tiny causal attention block, portable kernels only: a mask filled
                  with float32's lowest value (a `torch.ops.aten.scalar_tensor.default`
                  node, an op outside the edge dialect) and two dtype casts (`dim_order_ops::_to_dim_order_copy.out` in
                  the program, `native_call__to_dim_order_copy.out` in the dump). Run by
                  scripts/et_cpu_runner.py (2 warm-up + 8 timed runs): its log is kept.
  attn_neginf     the same block with the mask filled with -inf: its edge program holds
                  `{"as_float": -Infinity}` (Python's json writes non-finite floats so).
  timm_effnet     timm's `test_efficientnet` (num_classes=10) at 1x3x32x32, XNNPACK
                  partitioner, run by scripts/et_cpu_runner.py (2 + 8 runs, log kept).
  const_methods   one program with methods `prefill`, `decode` (XNNPACK + portable
                  kernels, `decode` with a dtype cast) and three constant methods
                  (`constant_methods=`: get_max_seq_len, use_kv_cache, get_vocab_size,
                  whose runs hold only Method::execute). Loaded with `_load_program` and
                  each method loaded (a `Default` block) just before its first run, as a
                  runner loading methods on first use does. `run.json`: every block of the
                  dump in order with the method it belongs to (the truth of naming and
                  loads), and what the Inspector says with the ETRecord.
  cond_branches   `torch.cond` on the sign of the input's sum (true: linear+relu, false:
                  linear+cumsum+add), portable; runs alternate branches, so the
                  method's runs form two groups. `run.json`: each Execute run's branch.

For each STEM: STEM.pte, STEM.etrecord, STEM.etdp, STEM.inspector.json (the Inspector's
event blocks: every event's name, instruction id, delegate id, samples in ms, median,
mean, op_types, debug handles, node names, module hierarchy; with the ETRecord where the
Inspector reads it, else etdump only), STEM.log where a runner ran it, STEM.run.json.

Usage: /work/venv/bin/python scripts/make_wild_fixtures.py fixtures/wild
"""
import json
import os
import subprocess
import sys
import traceback
import warnings

SEED = 20261206
HERE = os.path.dirname(os.path.abspath(__file__))


def lower(programs, xnnpack, constant_methods=None):
    from executorch.exir import to_edge_transform_and_lower

    partitioner = []
    if xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        partitioner = [XnnpackPartitioner()]
    edge = to_edge_transform_and_lower(
        programs,
        partitioner=partitioner,
        constant_methods=constant_methods,
        generate_etrecord=True,
    )
    return edge.to_executorch()


def write_program(et, out, stem):
    with open(os.path.join(out, f"{stem}.pte"), "wb") as f:
        et.write_to_file(f)
    et.get_etrecord().save(os.path.join(out, f"{stem}.etrecord"))


def run_with_runner(out, stem, warmup=2, timed=8):
    """scripts/et_cpu_runner.py in a subprocess; its standard error is the log."""
    env = dict(os.environ, ET_CPU_WARMUP_RUNS=str(warmup), ET_CPU_TIMED_RUNS=str(timed))
    cmd = [sys.executable, os.path.join(HERE, "et_cpu_runner.py"),
           os.path.join(out, f"{stem}.pte"), "--etdump", os.path.join(out, f"{stem}.etdp"),
           "--seed", "1"]
    with open(os.path.join(out, f"{stem}.log"), "wb") as f:
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    if rc != 0:
        raise SystemExit(f"runner failed on {stem}: see {stem}.log")


def inspector(out, stem, with_etrecord=True):
    """Inspector's event blocks as JSON-able dicts; the error text when it cannot read."""
    from executorch.devtools import Inspector

    etdp = os.path.join(out, f"{stem}.etdp")
    kwargs = {"etdump_path": etdp}
    if with_etrecord:
        kwargs["etrecord"] = os.path.join(out, f"{stem}.etrecord")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        insp = Inspector(**kwargs)
    blocks = []
    for b in insp.event_blocks:
        events = []
        for ev in b.events:
            pd_ = ev.perf_data
            events.append({
                "event_name": ev.name,
                "instruction_id": ev._instruction_id,
                "delegate_debug_identifier": ev.delegate_debug_identifier,
                "is_delegated_op": ev.is_delegated_op,
                "delegate_backend_name": ev.delegate_backend_name,
                "num_samples": len(pd_.raw) if pd_ is not None else 0,
                "raw_ms": [float(v) for v in pd_.raw] if pd_ is not None else [],
                "median_ms": float(pd_.p50) if pd_ is not None else None,
                "avg_ms": float(pd_.avg) if pd_ is not None else None,
                "op_types": list(ev.op_types),
                "debug_handles": ev.debug_handles,
                "nodes": list(ev.stack_traces.keys()),
                "module_hierarchy": {
                    n: {k: list(v) for k, v in (h or {}).items()}
                    for n, h in ev.module_hierarchy.items()
                },
            })
        blocks.append({"name": b.name, "bundled_input_index": b.bundled_input_index,
                       "events": events})
    return blocks


def golden(out, stem, with_etrecord=True, extra=None):
    doc = {
        "producer": "scripts/make_wild_fixtures.py, executorch 1.5.1; "
                    "Inspector(etdump_path[, etrecord]).event_blocks; times in ms",
        "etdump": f"{stem}.etdp",
        "etrecord": f"{stem}.etrecord" if with_etrecord else None,
        "event_blocks": inspector(out, stem, with_etrecord),
    }
    doc.update(extra or {})
    with open(os.path.join(out, f"{stem}.inspector.json"), "w") as f:
        json.dump(doc, f, indent=1)
    n = sum(len(b["events"]) for b in doc["event_blocks"])
    print(f"[golden] {stem}: {len(doc['event_blocks'])} blocks, {n} events")


def attention(out, stem, fill):
    import torch
    from torch import nn

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.q = nn.Linear(16, 16)
            self.k = nn.Linear(16, 16)
            self.o = nn.Linear(16, 8)

        def forward(self, x):
            q, k = self.q(x), self.k(x)
            a = q @ k.transpose(-1, -2)
            n = x.shape[1]
            mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
            a = a.masked_fill(mask, fill).softmax(-1)
            # Two dtype casts: `_to_dim_order_copy` kernels with dim order on.
            y = (a @ x).to(torch.float64).sum(-1, keepdim=True).to(torch.float32)
            return self.o(x) + y

    torch.manual_seed(SEED)
    x = (torch.randn(1, 6, 16),)
    et = lower(torch.export.export(Attn().eval(), x), xnnpack=False)
    write_program(et, out, stem)
    run_with_runner(out, stem)
    golden(out, stem)


def attn_dimorder(out):
    # The mask filled with float32's lowest finite value, as Hugging Face models fill it.
    import torch

    attention(out, "attn_dimorder", torch.finfo(torch.float32).min)


def attn_neginf(out):
    attention(out, "attn_neginf", float("-inf"))


def timm_effnet(out):
    import timm
    import torch

    torch.manual_seed(SEED)
    model = timm.create_model("test_efficientnet", pretrained=False, num_classes=10).eval()
    x = (torch.randn(1, 3, 32, 32),)
    et = lower(torch.export.export(model, x), xnnpack=True)
    write_program(et, out, "timm_effnet")
    run_with_runner(out, "timm_effnet")
    golden(out, "timm_effnet")


def const_methods(out):
    import torch
    from torch import nn

    class Prefill(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 16)

        def forward(self, x):
            return torch.cumsum(torch.relu(self.fc(x)), 1)

    class Decode(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 16)

        def forward(self, x):
            return torch.tanh(self.fc(x)).to(torch.float64).sum(-1)

    torch.manual_seed(SEED)
    x = torch.randn(2, 16)
    programs = {
        "prefill": torch.export.export(Prefill().eval(), (x,)),
        "decode": torch.export.export(Decode().eval(), (x,)),
    }
    constants = {"get_max_seq_len": 128, "use_kv_cache": True, "get_vocab_size": 32}
    et = lower(programs, xnnpack=True, constant_methods=constants)
    write_program(et, out, "const_methods")
    from executorch.extension.pybindings import portable_lib as pl

    prog = pl._load_program(os.path.join(out, "const_methods.pte"), enable_etdump=True)
    methods = {}
    blocks = []  # (block name, method), in the dump's order

    def call(name, args):
        if name not in methods:
            methods[name] = prog.load_method(name)
            blocks.append(("Default", name))
        outs = methods[name].call(args)
        blocks.append(("Execute", name))
        return outs

    # What a runner does: read the metadata methods, then prefill once per prompt and
    # decode token by token.
    for name in constants:
        got = call(name, [])
        assert got[0] == constants[name], (name, got)
    for _prompt in range(3):
        call("prefill", [x])
        for _token in range(6):
            call("decode", [x])
    etdp = os.path.join(out, "const_methods.etdp")
    prog.write_etdump_result_to_file(etdp)
    try:
        inspector(out, "const_methods", with_etrecord=True)
        with_record = "read it"
    except Exception as e:  # noqa: BLE001 - recorded as the fact it is
        with_record = f"{type(e).__name__}: {e}"
        traceback.print_exc(limit=1)
    program_methods = [prog.get_method_name(i) for i in range(prog.num_methods())]
    run = {
        "producer": "scripts/make_wild_fixtures.py, executorch 1.5.1",
        "program_methods": program_methods,
        "constant_methods": constants,
        "blocks": [{"name": b, "method": m} for b, m in blocks],
        "inspector_with_etrecord": with_record,
    }
    with open(os.path.join(out, "const_methods.run.json"), "w") as f:
        json.dump(run, f, indent=1)
    golden(out, "const_methods", with_etrecord=False)
    print(f"[multi] const_methods: {len(blocks)} blocks; Inspector with ETRecord: {with_record}")


def cond_branches(out):
    import torch
    from torch import nn

    class Branchy(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(8, 8)
            self.b = nn.Linear(8, 8)

        def forward(self, x):
            def positive(x):
                return torch.relu(self.a(x))

            def negative(x):
                return torch.cumsum(self.b(x), 1) + x

            return torch.cond(x.sum() > 0, positive, negative, (x,))

    torch.manual_seed(SEED)
    x = torch.rand(2, 8) + 0.1
    et = lower(torch.export.export(Branchy().eval(), (x,)), xnnpack=False)
    write_program(et, out, "cond_branches")
    from executorch.extension.pybindings import portable_lib as pl

    m = pl._load_for_executorch(os.path.join(out, "cond_branches.pte"), enable_etdump=True)
    branches = []
    for i in range(12):
        # 8 runs of the true branch, 4 of the false one, interleaved.
        positive = i % 3 != 2
        m.forward(((x if positive else -x),))
        branches.append("true" if positive else "false")
    m.write_etdump_result_to_file(os.path.join(out, "cond_branches.etdp"))
    with open(os.path.join(out, "cond_branches.run.json"), "w") as f:
        json.dump({"producer": "scripts/make_wild_fixtures.py, executorch 1.5.1",
                   "execute_branches": branches}, f, indent=1)
    golden(out, "cond_branches")


def main(out):
    os.makedirs(out, exist_ok=True)
    only = set(sys.argv[2:])
    for make in (attn_dimorder, attn_neginf, timm_effnet, const_methods, cond_branches):
        if not only or make.__name__ in only:
            make(out)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/wild")
