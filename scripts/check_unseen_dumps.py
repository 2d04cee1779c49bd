#!/usr/bin/env python3
"""Export many kinds of models with executorch, run them with ETDump profiling, and compare
`cpuprof.load(...).to_dataframe()` with the live Inspector's `to_dataframe()` on each dump
(issue #49: "dumps you have not seen"). This project's script; same licence as the project.

For each dump, every variant the dump allows: the ETRecord given and not given, the debug
buffer given and not given (`Inspector(etdump_path=, etrecord=, debug_buffer_path=)`
against `cpuprof.load(etdp, warmup=0, etrecord=, debug_buffer=)`). A variant the
Inspector cannot read (it raises) is reported and skipped. The frames are compared with
`pandas.testing.assert_frame_equal(check_dtype=True)` over the Inspector's columns but
the object columns, then those (`raw`, `start_time`, `op_types`, `stack_traces`,
`module_hierarchy`, `debug_data`, `delegate_debug_identifier`, `delegate_backend_name`)
element by element, Python types included (a tensor by its type, shape, dtype and values).

Usage:
  /work/venv/bin/python scripts/check_unseen_dumps.py OUT_DIR [CASE...]   # make and compare
  /work/venv/bin/python scripts/check_unseen_dumps.py --compare-only OUT_DIR [CASE...]
  /work/venv/bin/python scripts/check_unseen_dumps.py --list
Prints one line per variant (`ok` or `MISMATCH` with the first difference) and a summary;
exit status 1 when a variant differs.
"""
import math
import os
import subprocess
import sys
import traceback
import warnings

SEED = 4949

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Dump:
    def __init__(self, stem, etrecord=True, debug_buffer=False):
        self.stem = stem
        self.etrecord = etrecord
        self.debug_buffer = debug_buffer


# --- making programs and dumps -------------------------------------------------------


def _quiet():
    import logging

    warnings.simplefilter("ignore")
    logging.disable(logging.WARNING)


def quantize(model, inputs, dynamic=False, per_channel=True):
    import torch
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config)
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    q = XNNPACKQuantizer()
    q.set_global(get_symmetric_quantization_config(is_per_channel=per_channel, is_dynamic=dynamic))
    m = torch.export.export(model, inputs).module()
    m = prepare_pt2e(m, q)
    m(*inputs)
    m(*inputs)
    return convert_pt2e(m)


def lower(programs, xnnpack, etrecord=True):
    from executorch.exir import EdgeCompileConfig, to_edge_transform_and_lower

    partitioner = []
    if xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        partitioner = [XnnpackPartitioner()]
    return to_edge_transform_and_lower(programs, partitioner=partitioner,
                                       compile_config=EdgeCompileConfig(_check_ir_validity=False),
                                       generate_etrecord=etrecord).to_executorch()


def save(et, out, stem, etrecord=True):
    with open(os.path.join(out, f"{stem}.pte"), "wb") as f:
        et.write_to_file(f)
    if etrecord:
        et.get_etrecord().save(os.path.join(out, f"{stem}.etrecord"))


def run(out, stem, inputs, runs, debug_buffer=False, method="forward", extra=None):
    """Runs through the pybindings with ETDump profiling (and a debug buffer: intermediate
    outputs logged)."""
    from executorch.extension.pybindings import portable_lib as pl

    kw = {"enable_etdump": True}
    if debug_buffer:
        kw["debug_buffer_size"] = 1 << 21
    prog = pl._load_program(os.path.join(out, f"{stem}.pte"), **kw)
    methods = {}
    plan = extra or [(method, inputs)] * runs
    for name, args in plan:
        m = methods.get(name) or methods.setdefault(name, prog.load_method(name))
        m.call(list(args))
    etdp = os.path.join(out, f"{stem}.etdp")
    if debug_buffer:
        prog.write_etdump_result_to_file(etdp, os.path.join(out, f"{stem}.debug.bin"))
    else:
        prog.write_etdump_result_to_file(etdp)


def simple(out, stem, model, inputs, *, xnnpack, runs, debug_buffer=False, quant=None,
           etrecord=True):
    import torch

    model = model.eval()
    if quant is not None:
        model = quantize(model, inputs, **quant)
    et = lower(torch.export.export(model, inputs), xnnpack, etrecord)
    save(et, out, stem, etrecord)
    run(out, stem, inputs, runs, debug_buffer)
    return [Dump(stem, etrecord=etrecord, debug_buffer=debug_buffer)]


def _nn():
    import torch
    from torch import nn

    torch.manual_seed(SEED)
    return torch, nn


@case
def q_xnn_linear(out):
    torch, nn = _nn()
    m = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 16))
    return simple(out, "q_xnn_linear", m, (torch.randn(4, 32),), xnnpack=True, runs=5, quant={})


@case
def q_xnn_dynamic_linear(out):
    torch, nn = _nn()
    m = nn.Sequential(nn.Linear(32, 48), nn.Linear(48, 8))
    return simple(out, "q_xnn_dynamic_linear", m, (torch.randn(3, 32),), xnnpack=True, runs=4,
                  quant={"dynamic": True})


@case
def q_xnn_conv(out):
    torch, nn = _nn()

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(3, 8, 3, padding=1)
            self.c2 = nn.Conv2d(8, 8, 3, stride=2)
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            y = torch.relu(self.c1(x))
            y = torch.relu(self.c2(y))
            return self.fc(self.pool(y).flatten(1))

    return simple(out, "q_xnn_conv", M(), (torch.randn(1, 3, 16, 16),), xnnpack=True, runs=6,
                  quant={})


@case
def cnn_bn_relu_xnn(out):
    torch, nn = _nn()
    m = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(8, 16, 3), nn.BatchNorm2d(16), nn.ReLU(),
                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    return simple(out, "cnn_bn_relu_xnn", m, (torch.randn(2, 3, 20, 20),), xnnpack=True, runs=5)


@case
def cnn_bn_relu_portable(out):
    torch, nn = _nn()
    m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Linear(4 * 3 * 3, 5))
    return simple(out, "cnn_bn_relu_portable", m, (torch.randn(1, 3, 8, 8),), xnnpack=False,
                  runs=3)


@case
def depthwise_xnn(out):
    torch, nn = _nn()
    m = nn.Sequential(nn.Conv2d(8, 8, 3, groups=8, padding=1), nn.ReLU6(),
                      nn.Conv2d(8, 16, 1), nn.Hardswish(), nn.Conv2d(16, 16, 3, groups=16))
    return simple(out, "depthwise_xnn", m, (torch.randn(1, 8, 12, 12),), xnnpack=True, runs=4)


@case
def lstm_portable(out):
    torch, nn = _nn()

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(6, 8, batch_first=True)
            self.fc = nn.Linear(8, 3)

        def forward(self, x):
            y, _ = self.lstm(x)
            return self.fc(y[:, -1])

    return simple(out, "lstm_portable", M(), (torch.randn(1, 3, 6),), xnnpack=False, runs=3)


@case
def gru_mixed(out):
    torch, nn = _nn()

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = nn.GRU(5, 6, batch_first=True)
            self.fc = nn.Linear(6, 4)

        def forward(self, x):
            y, h = self.gru(x)
            return self.fc(y).sum(1), h

    return simple(out, "gru_mixed", M(), (torch.randn(1, 2, 5),), xnnpack=True, runs=3)


class _Attn:
    @staticmethod
    def make(nn, torch):
        F = torch.nn.functional

        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(50, 16)
                self.ln = nn.LayerNorm(16)
                self.qkv = nn.Linear(16, 48)
                self.out = nn.Linear(16, 16)

            def forward(self, ids):
                x = self.ln(self.emb(ids))
                q, k, v = self.qkv(x).view(1, -1, 3, 2, 8).unbind(2)
                a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2),
                                                   v.transpose(1, 2), is_causal=True)
                return self.out(a.transpose(1, 2).reshape(1, -1, 16)) + x

        return M()


@case
def emb_ln_sdpa_portable(out):
    torch, nn = _nn()
    ids = torch.randint(0, 50, (1, 6))
    return simple(out, "emb_ln_sdpa_portable", _Attn.make(nn, torch), (ids,), xnnpack=False,
                  runs=4)


@case
def emb_ln_sdpa_xnn(out):
    torch, nn = _nn()
    ids = torch.randint(0, 50, (1, 6))
    return simple(out, "emb_ln_sdpa_xnn", _Attn.make(nn, torch), (ids,), xnnpack=True, runs=4)


@case
def sdpa_xnn(out):
    # One decomposed op (SDPA: matmuls, mul, softmax) whose nodes XNNPACK takes: the
    # delegate lists its debug handle once per node.
    torch, nn = _nn()
    F = torch.nn.functional

    class M(nn.Module):
        def forward(self, q, k, v):
            return F.scaled_dot_product_attention(q, k, v)

    x = tuple(torch.randn(1, 1, 3, 4) for _ in range(3))
    return simple(out, "sdpa_xnn", M(), x, xnnpack=True, runs=3)


@case
def old_api_etrecord(out):
    # to_edge, a deep copy, to_backend(XNNPACK), to_executorch, and the ETRecord written by
    # generate_etrecord (the older way: the edge program before lowering).
    import copy

    torch, nn = _nn()
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.devtools import generate_etrecord
    from executorch.exir import to_edge

    m = nn.Sequential(nn.Linear(6, 6), nn.Tanh(), nn.Linear(6, 3)).eval()
    x = (torch.randn(2, 6),)
    ep = torch.export.export(m, x)
    edge = to_edge(ep)
    edge_copy = copy.deepcopy(edge)
    et = edge.to_backend(XnnpackPartitioner()).to_executorch()
    with open(os.path.join(out, "old_api_etrecord.pte"), "wb") as f:
        et.write_to_file(f)
    generate_etrecord(os.path.join(out, "old_api_etrecord.etrecord"), edge_copy, et,
                      exported_program=ep)
    run(out, "old_api_etrecord", x, 4)
    return [Dump("old_api_etrecord")]


@case
def q_per_tensor_mha(out):
    # PT2E per-tensor quantization of a MultiheadAttention block on XNNPACK.
    torch, nn = _nn()

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = nn.MultiheadAttention(8, 2, batch_first=True)
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            y, _ = self.mha(x, x, x, need_weights=False)
            return self.fc(y)

    return simple(out, "q_per_tensor_mha", M(), (torch.randn(1, 4, 8),), xnnpack=True, runs=3,
                  quant={"per_channel": False})


@case
def forward_and_decode(out):
    # Two methods, one of them `forward` (the Inspector reads an ETRecord's `forward`
    # maps only, and uses them for every block), XNNPACK and portable ops.
    torch, nn = _nn()

    class A(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 6)

        def forward(self, x):
            return torch.cumsum(torch.relu(self.fc(x)), -1)

    class B(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 2)
            self.fc2 = nn.Linear(2, 2)

        def forward(self, x):
            return self.fc2(torch.flip(self.fc(x), [-1]))

    x = torch.randn(2, 6)
    et = lower({"forward": torch.export.export(A().eval(), (x,)),
                "decode": torch.export.export(B().eval(), (x,))}, xnnpack=True)
    save(et, out, "forward_and_decode")
    plan = [("forward", (x,)), ("decode", (x,)), ("decode", (x,))] * 3
    run(out, "forward_and_decode", None, 0, extra=plan)
    return [Dump("forward_and_decode")]


@case
def lstm_xnn(out):
    # A longer LSTM on XNNPACK: its one handle listed many times by the delegate.
    torch, nn = _nn()

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(4, 4, batch_first=True)

        def forward(self, x):
            return self.lstm(x)[0]

    return simple(out, "lstm_xnn", M(), (torch.randn(1, 6, 4),), xnnpack=True, runs=2)


@case
def many_small_ops(out):
    torch, nn = _nn()

    class M(nn.Module):
        def forward(self, x):
            for i in range(60):
                x = x * 1.01 + 0.1 if i % 3 else torch.sin(x) - x.abs()
            return x

    return simple(out, "many_small_ops", M(), (torch.randn(3, 4),), xnnpack=False, runs=3)


@case
def interleaved_xnn_portable(out):
    torch, nn = _nn()

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(8, 8)
            self.b = nn.Linear(8, 8)
            self.c = nn.Linear(8, 8)

        def forward(self, x):
            x = self.a(x)
            x = torch.cumsum(x, -1)           # portable
            x = torch.relu(self.b(x))
            x = torch.flip(x, [-1])           # portable
            x = self.c(x)
            return torch.cumsum(x, 0)         # portable

    return simple(out, "interleaved_xnn_portable", M(), (torch.randn(3, 8),), xnnpack=True,
                  runs=5)


@case
def three_methods(out):
    torch, nn = _nn()

    class A(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 6)

        def forward(self, x):
            return torch.tanh(self.fc(x))

    class B(nn.Module):
        def forward(self, x):
            return torch.cumsum(x, 0) * 2

    class C(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(6, 2)

        def forward(self, x):
            return torch.softmax(self.fc(x), -1)

    x = torch.randn(2, 6)
    et = lower({n: torch.export.export(m.eval(), (x,)) for n, m in
                (("alpha", A()), ("beta", B()), ("gamma", C()))}, xnnpack=True)
    save(et, out, "three_methods")
    plan = [("alpha", (x,)), ("beta", (x,)), ("gamma", (x,))] * 2 + [("beta", (x,))] * 3
    run(out, "three_methods", None, 0, extra=plan)
    return [Dump("three_methods")]


@case
def debugbuf_mixed(out):
    # XNNPACK delegates and portable ops with a debug buffer: intermediate outputs of the
    # portable ops (and the delegates' outputs) logged.
    torch, nn = _nn()

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(5, 7)
            self.b = nn.Linear(7, 3)

        def forward(self, x):
            y = torch.cumsum(self.a(x), -1)
            return self.b(y), y.argmax(-1)

    return simple(out, "debugbuf_mixed", M(), (torch.randn(2, 5),), xnnpack=True, runs=3,
                  debug_buffer=True)


@case
def debugbuf_tensorlist(out):
    # split (a tensor list output), an int64 output, bools.
    torch, nn = _nn()

    class M(nn.Module):
        def forward(self, x):
            a, b, c = torch.split(x, [1, 2, 3], -1)
            m = (a > 0) & (b.sum(-1, keepdim=True) < 1)
            return torch.cat([c, b], -1) * m, x.argmax(-1), a.to(torch.float64)

    return simple(out, "debugbuf_tensorlist", M(), (torch.randn(2, 6),), xnnpack=False, runs=2,
                  debug_buffer=True)


@case
def debugbuf_one_run(out):
    torch, nn = _nn()
    m = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid(), nn.Linear(4, 2))
    return simple(out, "debugbuf_one_run", m, (torch.randn(1, 4),), xnnpack=False, runs=1,
                  debug_buffer=True)


@case
def debugbuf_quant_xnn(out):
    torch, nn = _nn()
    m = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 3))
    return simple(out, "debugbuf_quant_xnn", m, (torch.randn(1, 2, 6, 6),), xnnpack=True,
                  runs=2, debug_buffer=True, quant={})


@case
def one_run_xnn(out):
    torch, nn = _nn()
    m = nn.Sequential(nn.Linear(10, 10), nn.GELU(), nn.Linear(10, 2))
    return simple(out, "one_run_xnn", m, (torch.randn(2, 10),), xnnpack=True, runs=1)


@case
def no_etrecord_xnn(out):
    torch, nn = _nn()
    m = nn.Sequential(nn.Conv1d(3, 6, 3), nn.ReLU(), nn.Conv1d(6, 6, 3), nn.Flatten())
    return simple(out, "no_etrecord_xnn", m, (torch.randn(1, 3, 10),), xnnpack=True, runs=3,
                  etrecord=False)


@case
def varying_inputs(out):
    # Runs with different inputs (dynamic shapes): same events, other times.
    torch, nn = _nn()
    from torch.export import Dim

    m = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1)).eval()
    b = Dim("b", min=1, max=16)
    x = torch.randn(2, 8)
    et = lower(torch.export.export(m, (x,), dynamic_shapes=({0: b},)), xnnpack=True)
    save(et, out, "varying_inputs")
    plan = [("forward", (torch.randn(n, 8),)) for n in (1, 4, 16, 2, 9)]
    run(out, "varying_inputs", None, 0, extra=plan)
    return [Dump("varying_inputs")]


@case
def cond_portable(out):
    torch, nn = _nn()

    class M(nn.Module):
        def forward(self, x):
            return torch.cond(x.sum() > 0, lambda x: torch.sin(x) * 2, lambda x: x.cos() - 1,
                              (x,))

    m = M().eval()
    x = torch.randn(3)
    # (the ETRecord of a torch.cond program cannot be written: getattr nodes)
    et = lower(torch.export.export(m, (x,)), xnnpack=False, etrecord=False)
    save(et, out, "cond_portable", etrecord=False)
    plan = [("forward", (v,)) for v in (torch.ones(3), -torch.ones(3), torch.ones(3),
                                        torch.ones(3), -torch.ones(3))]
    run(out, "cond_portable", None, 0, extra=plan)
    return [Dump("cond_portable", etrecord=False)]


def _serialize(out, stem, etdump):
    import tempfile

    from executorch.devtools.etdump import serialize as S
    from executorch.exir._serialize._flatbuffer import _get_flatc_path

    with tempfile.TemporaryDirectory() as d:
        S._write_schema(d, S.ETDUMP_FLATCC_SCHEMA_NAME)
        S._write_schema(d, S.SCALAR_TYPE_SCHEMA_NAME)
        with open(os.path.join(d, stem + ".json"), "w") as f:
            f.write(S._serialize_from_etdump_to_json(etdump))
        schema = os.path.join(d, S.ETDUMP_FLATCC_SCHEMA_NAME + ".fbs")
        subprocess.run([_get_flatc_path(), "--binary", "--size-prefixed", "-o", out, schema,
                        os.path.join(d, stem + ".json")], check=True, capture_output=True)


def _read(path):
    from executorch.devtools.etdump import serialize as S

    with open(path, "rb") as f:
        return S.deserialize_from_etdump_flatcc(f.read())


@case
def int_ids_quant(out):
    # q_xnn_conv's dump with each delegate's string ids made integers (0 first: the
    # Inspector keeps 0 as an id), and the ETRecord given.
    if not os.path.exists(os.path.join(out, "q_xnn_conv.etdp")):
        q_xnn_conv(out)
    etdump = _read(os.path.join(out, "q_xnn_conv.etdp"))
    ids = {}
    for r in etdump.run_data:
        for ev in r.events or []:
            pe = ev.profile_event
            if pe is not None and pe.delegate_debug_id_str:
                pe.delegate_debug_id_int = ids.setdefault(pe.delegate_debug_id_str, len(ids))
                pe.delegate_debug_id_str = None
    _serialize(out, "int_ids_quant", etdump)
    import shutil

    shutil.copy(os.path.join(out, "q_xnn_conv.etrecord"), os.path.join(out, "int_ids_quant.etrecord"))
    return [Dump("int_ids_quant")]


@case
def delegate_metadata(out):
    # q_xnn_linear's delegate events given delegate_debug_metadata bytes, and a delegate
    # event with a name and an int id of -1 and no string (not a delegate id).
    if not os.path.exists(os.path.join(out, "q_xnn_linear.etdp")):
        q_xnn_linear(out)
    etdump = _read(os.path.join(out, "q_xnn_linear.etdp"))
    for r in etdump.run_data:
        for ev in r.events or []:
            pe = ev.profile_event
            if pe is not None and pe.delegate_debug_id_str:
                pe.delegate_debug_metadata = b"meta:" + pe.delegate_debug_id_str.encode()
    _serialize(out, "delegate_metadata", etdump)
    return [Dump("delegate_metadata", etrecord=False)]


@case
def bundled_inputs(out):
    # q_xnn_linear's runs given bundled input indices (0, 1, 2, 0, 1; the pybindings of
    # 1.5.1 cannot load a bundled input any more): a block per index.
    if not os.path.exists(os.path.join(out, "q_xnn_linear.etdp")):
        q_xnn_linear(out)
    etdump = _read(os.path.join(out, "q_xnn_linear.etdp"))
    k = 0
    for r in etdump.run_data:
        if r.name == "Execute":
            r.bundled_input_index = k % 3
            k += 1
    _serialize(out, "bundled_inputs", etdump)
    return [Dump("bundled_inputs", etrecord=False)]


def _copy_buffer(out, src, dst):
    import shutil

    for ext in (".etrecord", ".debug.bin"):
        if os.path.exists(os.path.join(out, src + ext)):
            shutil.copy(os.path.join(out, src + ext), os.path.join(out, dst + ext))


@case
def debug_outputs(out):
    # debugbuf_tensorlist's dump with the last two debug events of each run marked as the
    # run's outputs (`output: true`, as kProgramOutputs logs them): left out of the events.
    if not os.path.exists(os.path.join(out, "debugbuf_tensorlist.etdp")):
        debugbuf_tensorlist(out)
    from executorch.devtools.etdump.schema_flatcc import Bool

    etdump = _read(os.path.join(out, "debugbuf_tensorlist.etdp"))
    for r in etdump.run_data:
        debug = [ev for ev in r.events or [] if ev.debug_event is not None]
        for ev in debug[-2:]:
            ev.debug_event.debug_entry.output = Bool(bool_val=True)
    _serialize(out, "debug_outputs", etdump)
    _copy_buffer(out, "debugbuf_tensorlist", "debug_outputs")
    return [Dump("debug_outputs", debug_buffer=True)]


@case
def debug_only(out):
    # debugbuf_mixed's dump without its profile events (intermediate outputs logged, no
    # profiling): every event unprofiled.
    if not os.path.exists(os.path.join(out, "debugbuf_mixed.etdp")):
        debugbuf_mixed(out)
    etdump = _read(os.path.join(out, "debugbuf_mixed.etdp"))
    for r in etdump.run_data:
        r.events = [ev for ev in r.events or [] if ev.debug_event is not None] or None
    _serialize(out, "debug_only", etdump)
    _copy_buffer(out, "debugbuf_mixed", "debug_only")
    return [Dump("debug_only", debug_buffer=True)]


@case
def debug_partly_profiled(out):
    # debugbuf_tensorlist's dump with the profile events of two instructions that log
    # outputs left out: their rows unprofiled among profiled ones.
    if not os.path.exists(os.path.join(out, "debugbuf_tensorlist.etdp")):
        debugbuf_tensorlist(out)
    etdump = _read(os.path.join(out, "debugbuf_tensorlist.etdp"))
    logged = sorted({ev.debug_event.instruction_id for r in etdump.run_data
                     for ev in r.events or [] if ev.debug_event is not None})[:2]
    for r in etdump.run_data:
        r.events = [ev for ev in r.events or [] if ev.profile_event is None
                    or ev.profile_event.instruction_id not in logged
                    or r.name != "Execute"] or None
    _serialize(out, "debug_partly_profiled", etdump)
    _copy_buffer(out, "debugbuf_tensorlist", "debug_partly_profiled")
    return [Dump("debug_partly_profiled", debug_buffer=True)]


# --- comparing -------------------------------------------------------------------------

OBJECT_COLUMNS = ("raw", "start_time", "op_types", "stack_traces", "module_hierarchy",
                  "debug_data", "delegate_debug_identifier", "delegate_backend_name")


def typed(v):
    """A cell comparable with ==, its Python types kept (a tensor as type, shape, dtype and
    values; NaN as a marker)."""
    t = type(v).__name__
    if t in ("Tensor", "ndarray"):
        return (t, tuple(v.shape), str(v.dtype), v.tolist())
    if isinstance(v, (list, tuple)):
        return (t, [typed(x) for x in v])
    if isinstance(v, dict):
        return (t, sorted((k, typed(x)) for k, x in v.items()))
    if isinstance(v, float) and math.isnan(v):
        return (t, "nan")
    return (t, v)


def compare_frames(ours, theirs):
    """None where equal, else the first difference."""
    import pandas as pd

    cols = list(theirs.columns)
    if list(ours.columns[: len(cols)]) != cols:
        return f"columns: {list(ours.columns)} vs {cols}"
    plain = [c for c in cols if c not in OBJECT_COLUMNS]
    try:
        pd.testing.assert_frame_equal(ours[plain], theirs[plain], check_dtype=True, check_exact=True)
    except AssertionError as e:
        return "assert_frame_equal: " + " ".join(str(e).split())[:600]
    for c in OBJECT_COLUMNS:
        if c not in cols:
            continue
        if ours[c].dtype != theirs[c].dtype:
            return f"{c}: dtype {ours[c].dtype} vs {theirs[c].dtype}"
        for i, (a, b) in enumerate(zip(ours[c], theirs[c])):
            if typed(a) != typed(b):
                return f"{c}[{i}] ({theirs.event_name.iloc[i]}): ours {typed(a)!r:.300} vs {typed(b)!r:.300}"
    return None


def inspector_frame(etdp, etrecord, debug_buffer):
    from executorch.devtools import Inspector

    return Inspector(etdump_path=etdp, etrecord=etrecord,
                     debug_buffer_path=debug_buffer).to_dataframe()


def ours_frame(etdp, etrecord, debug_buffer):
    import cpuprof

    kw = {}
    if debug_buffer is not None:
        kw["debug_buffer"] = debug_buffer
    return cpuprof.load(etdp, warmup=0, etrecord=etrecord, **kw).to_dataframe()


def variants(out, d):
    etdp = os.path.join(out, d.stem + ".etdp")
    er = os.path.join(out, d.stem + ".etrecord")
    buf = os.path.join(out, d.stem + ".debug.bin")
    ers = [None] + ([er] if d.etrecord and os.path.exists(er) else [])
    bufs = [None] + ([buf] if d.debug_buffer and os.path.exists(buf) else [])
    for e in ers:
        for b in bufs:
            yield etdp, e, b


def compare(out, dumps):
    results = []
    for d in dumps:
        for etdp, er, buf in variants(out, d):
            what = f"{d.stem}{' +etrecord' if er else ''}{' +debug_buffer' if buf else ''}"
            try:
                theirs = inspector_frame(etdp, er, buf)
            except Exception as e:  # noqa: BLE001
                results.append((what, "inspector-fails", f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"))
                continue
            try:
                ours = ours_frame(etdp, er, buf)
            except Exception as e:  # noqa: BLE001
                results.append((what, "MISMATCH", f"ours raised {type(e).__name__}: {e}"))
                continue
            diff = compare_frames(ours, theirs)
            results.append((what, "ok" if diff is None else "MISMATCH",
                            f"{len(theirs)} rows" if diff is None else diff))
            print(f"{results[-1][1]:10} {what}: {results[-1][2]}", flush=True)
    return results


def main(argv):
    if argv and argv[0] == "--list":
        print("\n".join(CASES))
        return 0
    compare_only = bool(argv) and argv[0] == "--compare-only"
    if compare_only:
        argv = argv[1:]
    out = argv[0] if argv else "/tmp/unseen_dumps"
    only = argv[1:] or list(CASES)
    os.makedirs(out, exist_ok=True)
    _quiet()
    dumps = []
    for name in only:
        if compare_only:
            dumps.append(Dump(name, etrecord=True, debug_buffer=True))
            continue
        try:
            dumps += CASES[name](out)
            print(f"[made] {name}", flush=True)
        except Exception:  # noqa: BLE001
            print(f"[failed to make] {name}:\n{traceback.format_exc(limit=3)}", flush=True)
    results = compare(out, dumps)
    bad = [r for r in results if r[1] == "MISMATCH"]
    for what, status, msg in results:
        if status != "ok":
            print(f"{status:16} {what}: {msg}")
    print(f"{len(results)} variants: {sum(r[1] == 'ok' for r in results)} ok, {len(bad)} mismatched, "
          f"{sum(r[1] == 'inspector-fails' for r in results)} the Inspector cannot read")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
