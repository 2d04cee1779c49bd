#!/usr/bin/env python3
"""Make dumps the Python package's DataFrame had not been checked on (issue #49), and the
live Inspector's `to_dataframe()` of each as a golden, so the test runs without executorch.

Real programs (executorch 1.5.1, exported with `to_edge_transform_and_lower(...,
generate_etrecord=True)`, run through the pybindings with `enable_etdump=True`):

  mixed_xnn_portable  conv -> relu -> cumsum -> linear -> tanh -> linear: two XNNPACK
                      delegates around portable kernels; 1 + 5 runs; ETRecord.
  two_methods_xnn     methods `encode` (XNNPACK) and `score` (XNNPACK + portable softmax),
                      loaded with `_load_program` and run interleaved (encode, score,
                      score, ...); ETRecord.
  portable_attn       layer norm, matmuls, softmax, portable kernels only; no ETRecord
                      given to the Inspector (etdump only).
  debugbuf_portable   a small MLP with a debug buffer (intermediate outputs logged:
                      debug events beside the profile events).

Made from fixtures/real/mlp_xnnpack.etdp by executorch's own ETDump (de)serializer and its
flatc (written size-prefixed, as the runtime writes):

  int_ids     each XNNPACK operator's string delegate id replaced by an integer (7, 8, 9).
  many_runs   its Execute run copied 300 times with jittered times (seeded), every 7th
              run with its first event logged twice, every 11th with an event's end
              wrapped past 2^32 ticks, every 13th named `Execute2`.

Synthetic CpuBackend dumps (ET/registry and CPU plan steps), by the shared generator
/work/shared/fixtures/gen_cpu_fixtures.py with seeds and options no fixture of
fixtures/cpu uses (see GEN below).

Dumps of scripts/check_unseen_dumps.py (models exported and run there) on which the
package's frame differed from the Inspector's before a fix, one per kind of difference
(see UNSEEN below); their goldens are the Inspector's frames given the ETRecord (and the
debug buffer, trimmed to the bytes its tensors use).

For each STEM: STEM.etdp (+ .pte, .etrecord where made; .log for the generated ones) and
STEM.frame.json: the Inspector's frame, every row and column (`debug_data` as the shapes
and dtypes of its tensors; tuples as lists), with the columns' dtypes.

Usage: /work/venv/bin/python scripts/make_py_fixtures.py fixtures/py [STEM...]
"""
import json
import os
import subprocess
import sys
import warnings

SEED = 20261207
HERE = os.path.dirname(os.path.abspath(__file__))
GEN = "/work/shared/fixtures/gen_cpu_fixtures.py"

# stem -> generator arguments (small: few runs).
GENERATED = {
    "gen_wide_s41": ["--model", "wide", "--warmup", "1", "--timed", "4", "--seed", "41"],
    "gen_cnn2_s23_slow": ["--model", "cnn2", "--warmup", "2", "--timed", "5", "--seed", "23",
                          "--slow", "0:OPERATOR_CALL:3", "--slow", "x:DELEGATE_CALL:2"],
    "gen_mlp_s77_noshapes": ["--model", "mlp", "--warmup", "0", "--timed", "6", "--seed", "77",
                             "--no-shapes"],
    "gen_cnn2_s5_dropstep": ["--model", "cnn2", "--warmup", "1", "--timed", "4", "--seed", "5",
                             "--drop-step-event", "0:1:2"],
}


def lower(programs, xnnpack):
    from executorch.exir import to_edge_transform_and_lower

    partitioner = []
    if xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        partitioner = [XnnpackPartitioner()]
    return to_edge_transform_and_lower(programs, partitioner=partitioner,
                                       generate_etrecord=True).to_executorch()


def write_program(et, out, stem):
    with open(os.path.join(out, f"{stem}.pte"), "wb") as f:
        et.write_to_file(f)
    et.get_etrecord().save(os.path.join(out, f"{stem}.etrecord"))


# stem -> what of ours it showed wrong (scripts/check_unseen_dumps.py makes it).
UNSEEN = {
    "q_xnn_linear": "PT2E-quantized XNNPACK linear: nodes without a stack trace",
    "sdpa_xnn": "SDPA lowered to XNNPACK: its handle listed once per node (5 times) by the delegate",
    "int_ids_quant": "q_xnn_conv with integer delegate ids: the backend from the ETRecord",
    "debugbuf_tensorlist": "split/cat/argmax/bool ops with a debug buffer: its tensors' values",
    "debug_partly_profiled": "debugbuf_tensorlist without two instructions' profile events: "
                             "figures None, columns of dtype object",
}


def _cell(v, values=False):
    import torch

    if isinstance(v, torch.Tensor):
        cell = {"tensor": list(v.shape), "dtype": str(v.dtype), "all_zero": bool((v == 0).all())}
        if values:
            cell["values"] = v.tolist()
        return cell
    if isinstance(v, tuple):
        return [_cell(x, values) for x in v]
    if isinstance(v, list):
        return [_cell(x, values) for x in v]
    if isinstance(v, dict):
        return {k: _cell(x, values) for k, x in v.items()}
    if hasattr(v, "item") and not isinstance(v, (int, float, str, bool)):
        return v.item()
    return v


def frame_golden(out, stem, etrecord, debug_buffer=None):
    """The Inspector's frame, every cell, as JSON (floats as repr: exact). With a debug
    buffer, its tensors' values too."""
    from executorch.devtools import Inspector

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = Inspector(etdump_path=os.path.join(out, f"{stem}.etdp"),
                       etrecord=None if etrecord is None else os.path.join(out, etrecord),
                       debug_buffer_path=None if debug_buffer is None else os.path.join(out, debug_buffer)
                       ).to_dataframe()
    rows = []
    for i in range(len(df)):
        row = {}
        for c in df.columns:
            v = df[c].iloc[i]
            row[c] = {"type": type(v).__name__, "value": _cell(v, debug_buffer is not None)}
        rows.append(row)
    doc = {
        "producer": "scripts/make_py_fixtures.py, executorch 1.5.1: "
                    "Inspector(etdump_path, etrecord, debug_buffer_path).to_dataframe(), every cell "
                    "(debug_data tensors as shape/dtype, and their values where a debug buffer "
                    "is given; tuples as lists)",
        "etdump": f"{stem}.etdp",
        "etrecord": etrecord,
        "debug_buffer": debug_buffer,
        "columns": list(df.columns),
        "dtypes": {c: str(df[c].dtype) for c in df.columns},
        "rows": rows,
    }
    with open(os.path.join(out, f"{stem}.frame.json"), "w") as f:
        # One line (the goldens made before issue #49's unseen dumps: one value a line).
        json.dump(doc, f, separators=(",", ":"))
    print(f"[golden] {stem}: {len(rows)} rows")


def run(module_path, inputs, runs, out, stem, debug_buffer=False):
    from executorch.extension.pybindings import portable_lib as pl

    kw = {"enable_etdump": True}
    if debug_buffer:
        kw["debug_buffer_size"] = 1 << 20
    m = pl._load_for_executorch(module_path, **kw)
    for _ in range(runs):
        m.forward(inputs)
    if debug_buffer:
        m.write_etdump_result_to_file(os.path.join(out, f"{stem}.etdp"),
                                      os.path.join(out, f"{stem}.debug.bin"))
        os.remove(os.path.join(out, f"{stem}.debug.bin"))
    else:
        m.write_etdump_result_to_file(os.path.join(out, f"{stem}.etdp"))


def mixed_xnn_portable(out):
    import torch
    from torch import nn

    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3)
            self.fc1 = nn.Linear(4 * 6 * 6, 16)
            self.fc2 = nn.Linear(16, 5)

        def forward(self, x):
            y = torch.relu(self.conv(x)).flatten(1)
            y = torch.cumsum(y, 1)
            return self.fc2(torch.tanh(self.fc1(y)))

    torch.manual_seed(SEED)
    x = torch.randn(1, 3, 8, 8)
    et = lower(torch.export.export(Mixed().eval(), (x,)), xnnpack=True)
    write_program(et, out, "mixed_xnn_portable")
    run(os.path.join(out, "mixed_xnn_portable.pte"), (x,), 6, out, "mixed_xnn_portable")
    frame_golden(out, "mixed_xnn_portable", "mixed_xnn_portable.etrecord")


def two_methods_xnn(out):
    import torch
    from torch import nn

    class Encode(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(12, 12)

        def forward(self, x):
            return torch.relu(self.fc(x))

    class Score(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(12, 6)

        def forward(self, x):
            return torch.softmax(self.fc(x), -1).cumsum(-1)

    torch.manual_seed(SEED)
    x = torch.randn(2, 12)
    et = lower({"encode": torch.export.export(Encode().eval(), (x,)),
                "score": torch.export.export(Score().eval(), (x,))}, xnnpack=True)
    write_program(et, out, "two_methods_xnn")
    from executorch.extension.pybindings import portable_lib as pl

    prog = pl._load_program(os.path.join(out, "two_methods_xnn.pte"), enable_etdump=True)
    enc, score = prog.load_method("encode"), prog.load_method("score")
    for _ in range(4):
        enc.call([x])
        score.call([x])
        score.call([x])
    prog.write_etdump_result_to_file(os.path.join(out, "two_methods_xnn.etdp"))
    try:
        frame_golden(out, "two_methods_xnn", "two_methods_xnn.etrecord")
    except Exception as e:  # noqa: BLE001 - the Inspector cannot read a multi-method ETRecord
        print(f"[golden] two_methods_xnn: with ETRecord: {type(e).__name__}: {e}; etdump only")
        frame_golden(out, "two_methods_xnn", None)


def portable_attn(out):
    import torch
    from torch import nn

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm = nn.LayerNorm(8)
            self.qkv = nn.Linear(8, 24)

        def forward(self, x):
            q, k, v = self.qkv(self.norm(x)).split(8, -1)
            a = torch.softmax(q @ k.transpose(-1, -2) / 8 ** 0.5, -1)
            return a @ v

    torch.manual_seed(SEED)
    x = torch.randn(1, 5, 8)
    et = lower(torch.export.export(Attn().eval(), (x,)), xnnpack=False)
    write_program(et, out, "portable_attn")
    run(os.path.join(out, "portable_attn.pte"), (x,), 5, out, "portable_attn")
    frame_golden(out, "portable_attn", None)


def debugbuf_portable(out):
    import torch
    from torch import nn

    torch.manual_seed(SEED)
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).eval()
    x = torch.randn(2, 6)
    et = lower(torch.export.export(model, (x,)), xnnpack=False)
    write_program(et, out, "debugbuf_portable")
    run(os.path.join(out, "debugbuf_portable.pte"), (x,), 4, out, "debugbuf_portable",
        debug_buffer=True)
    frame_golden(out, "debugbuf_portable", "debugbuf_portable.etrecord")


def _unseen_dumps():
    """scripts/check_unseen_dumps.py as a module (its cases and its ETDump writer)."""
    sys.path.insert(0, HERE)
    import check_unseen_dumps

    return check_unseen_dumps


def _serialized(out, stem, etdump):
    """`etdump` written as OUT/STEM.etdp by executorch's serializer and flatc."""
    _unseen_dumps()._serialize(out, stem, etdump)


def _mlp_xnnpack():
    from executorch.devtools.etdump import serialize as S

    with open(os.path.join(HERE, "..", "fixtures", "real", "mlp_xnnpack.etdp"), "rb") as f:
        return S.deserialize_from_etdump_flatcc(f.read())


def int_ids(out):
    etdump = _mlp_xnnpack()
    ids = {}
    for run in etdump.run_data:
        for ev in run.events or []:
            pe = ev.profile_event
            if pe is not None and pe.delegate_debug_id_str:
                pe.delegate_debug_id_int = ids.setdefault(pe.delegate_debug_id_str, len(ids) + 7)
                pe.delegate_debug_id_str = None
    _serialized(out, "int_ids", etdump)
    frame_golden(out, "int_ids", None)


def many_runs(out):
    import copy
    import random

    etdump = _mlp_xnnpack()
    runs = [r for r in etdump.run_data if r.events and r.name == "Execute"]
    rng = random.Random(49)
    kept = [r for r in etdump.run_data if r.name != "Execute"]
    for k in range(300):
        run = copy.deepcopy(runs[k % len(runs)])
        base = rng.randrange(1, 1 << 31)
        for ev in run.events:
            pe = ev.profile_event
            if pe is None:
                continue
            dur = pe.end_time - pe.start_time
            pe.start_time = base + rng.randrange(0, 1000)
            pe.end_time = pe.start_time + max(0, dur + rng.randrange(-500, 500))
        profiled = [ev for ev in run.events if ev.profile_event is not None]
        if k % 7 == 3:
            twin = copy.deepcopy(profiled[0])
            twin.profile_event.end_time += 12345
            run.events.append(twin)
        if k % 11 == 5:
            pe = profiled[1].profile_event
            pe.start_time, pe.end_time = (1 << 32) - 100, 250
        if k % 13 == 6:
            run.name = "Execute2"
        kept.append(run)
    etdump.run_data = kept
    _serialized(out, "many_runs", etdump)
    frame_golden(out, "many_runs", None)


def generated(out, stem):
    args = GENERATED[stem]
    subprocess.run([sys.executable, GEN, *args, "--out", out, "--name", stem, "--no-inspector"],
                   check=True, stdout=subprocess.DEVNULL)
    for ext in (".truth.json",):
        p = os.path.join(out, stem + ext)
        if os.path.exists(p):
            os.remove(p)
    frame_golden(out, stem, None)


def _trim_debug_buffer(etdp, buf):
    """Cut the debug buffer (written whole: its size as allocated) after the last byte a
    logged tensor of the dump uses; the Inspector reads only those."""
    from executorch.devtools.etdump import serialize as S

    sizes = {0: 1, 1: 1, 11: 1, 2: 2, 5: 2, 22: 2, 27: 2, 3: 4, 6: 4, 7: 8, 4: 8}
    with open(etdp, "rb") as f:
        etdump = S.deserialize_from_etdump_flatcc(f.read())
    end = 0
    for r in etdump.run_data:
        for ev in r.events or []:
            d = ev.debug_event
            if d is None or d.debug_entry is None:
                continue
            v = d.debug_entry
            ts = [v.tensor] if v.tensor is not None else list(getattr(v.tensor_list, "tensors", None) or [])
            for t in ts:
                n = 1
                for s in t.sizes:
                    n *= s
                end = max(end, t.offset + n * sizes[int(t.scalar_type.value)])
    with open(buf, "rb") as f:
        data = f.read()
    with open(buf, "wb") as f:
        f.write(data[:end])


def unseen(out, stem):
    """A dump of scripts/check_unseen_dumps.py, its Inspector frame given the ETRecord
    (and debug buffer); the files it made on the way removed."""
    U = _unseen_dumps()
    before = set(os.listdir(out))
    dumps = U.CASES[stem](out)
    d = [x for x in dumps if x.stem == stem][0]
    buf = None
    if d.debug_buffer:
        buf = f"{stem}.debug.bin"
        _trim_debug_buffer(os.path.join(out, f"{stem}.etdp"), os.path.join(out, buf))
    etrecord = f"{stem}.etrecord" if d.etrecord else None
    frame_golden(out, stem, etrecord, buf)
    keep = {f"{stem}.etdp", f"{stem}.frame.json", etrecord, buf}
    for f in set(os.listdir(out)) - before - keep:
        os.remove(os.path.join(out, f))


def main(out):
    os.makedirs(out, exist_ok=True)
    only = set(sys.argv[2:])
    for make in (mixed_xnn_portable, two_methods_xnn, portable_attn, debugbuf_portable, int_ids,
                 many_runs):
        if not only or make.__name__ in only:
            make(out)
    for stem in GENERATED:
        if not only or stem in only:
            generated(out, stem)
    for stem in UNSEEN:
        if not only or stem in only:
            unseen(out, stem)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/py")
