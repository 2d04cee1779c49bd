"""cpuprof's DataFrame against the ExecuTorch Inspector's frames of the dumps in fixtures/py
(`STEM.frame.json`, written by the Inspector: scripts/make_py_fixtures.py), cell by cell:
the same columns and dtypes, rows in the same order, every value equal (floats exactly:
the samples and figures are computed as the Inspector computes them) and of the same
type. Runs without executorch (torch is imported only for `debug_data`'s tensors)."""

import glob
import json
import os

import pytest

import cpuprof

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = os.path.join(ROOT, "fixtures", "py")


def _goldens():
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(PY, "*.frame.json")))


def cell(v):
    """A cell as the golden writes it (see scripts/make_py_fixtures.py)."""
    if type(v).__name__ == "Tensor":
        return {"tensor": list(v.shape), "dtype": str(v.dtype), "all_zero": bool((v == 0).all())}
    if isinstance(v, (list, tuple)):
        return [cell(x) for x in v]
    if isinstance(v, dict):
        return {k: cell(x) for k, x in v.items()}
    if hasattr(v, "item") and not isinstance(v, (int, float, str, bool)):
        return v.item()
    return v


def test_the_goldens_cover_the_new_dumps():
    # Real programs (XNNPACK, portable, two methods, a debug buffer) and generated
    # CpuBackend dumps with ET/registry steps.
    names = _goldens()
    assert len(names) >= 8
    assert {"debugbuf_portable.frame.json", "two_methods_xnn.frame.json"} <= set(names)
    assert sum(n.startswith("gen_") for n in names) >= 4


@pytest.mark.parametrize("name", _goldens())
def test_dataframe_equals_the_inspectors_frame(name):
    with open(os.path.join(PY, name)) as f:
        g = json.load(f)
    etrecord = g["etrecord"] and os.path.join(PY, g["etrecord"])
    if any(r["debug_data"]["value"] for r in g["rows"]):
        pytest.importorskip("torch", reason="debug_data holds torch tensors (pip install torch)")
    # The Inspector keeps every run: no warm-up dropped.
    df = cpuprof.load(os.path.join(PY, g["etdump"]), warmup=0, etrecord=etrecord).to_dataframe()
    assert list(df.columns[: len(g["columns"])]) == g["columns"], name
    for c in g["columns"]:
        assert str(df[c].dtype) == g["dtypes"][c], (name, c, df[c].dtype)
    assert len(df) == len(g["rows"]), name
    for i, row in enumerate(g["rows"]):
        for c in g["columns"]:
            v = df[c].iloc[i]
            where = (name, i, row["event_name"]["value"], c)
            assert type(v).__name__ == row[c]["type"], where + (type(v).__name__, row[c]["type"])
            assert cell(v) == row[c]["value"], where + (cell(v), row[c]["value"])


def _golden(name):
    with open(os.path.join(PY, name)) as f:
        return json.load(f)


def test_default_load_keeps_every_run_as_the_inspector():
    # gen_cnn2_s23_slow's runner log states 2 warm-up runs: the profile drops them by
    # default (json(): the command's default), the frame keeps every run, as the Inspector.
    g = _golden("gen_cnn2_s23_slow.frame.json")
    p = cpuprof.load(os.path.join(PY, g["etdump"]))
    assert json.loads(p.json())["runs"]["warmup_dropped"] == 2
    df = p.to_dataframe()
    assert [list(r) for r in df.raw] == [r["raw"]["value"] for r in g["rows"]]
    assert [list(r) for r in df.start_time] == [r["start_time"]["value"] for r in g["rows"]]


@pytest.mark.parametrize("name, warmup", [("mixed_xnn_portable.frame.json", 2), ("gen_cnn2_s23_slow.frame.json", "log")])
def test_a_warmup_given_drops_those_runs_from_the_frame(name, warmup):
    # warmup= given: the runs the profile drops leave each Execute block's samples and
    # start times; the figures are numpy's of the samples kept (the Default block's
    # load-time events are untouched).
    np = pytest.importorskip("numpy")
    g = _golden(name)
    etrecord = g["etrecord"] and os.path.join(PY, g["etrecord"])
    p = cpuprof.load(os.path.join(PY, g["etdump"]), warmup=warmup, etrecord=etrecord)
    k = json.loads(p.json())["runs"]["warmup_dropped"]
    assert k == 2
    df = p.to_dataframe()
    assert len(df) == len(g["rows"])
    for i, row in enumerate(g["rows"]):
        raw, start = row["raw"]["value"], row["start_time"]["value"]
        if row["event_block_name"]["value"] == "Execute":
            raw, start = raw[k:], start[k:]
        assert list(df.raw.iloc[i]) == raw, (name, i)
        assert list(df.start_time.iloc[i]) == start, (name, i)
        want = [np.percentile(raw, 10), np.percentile(raw, 50), np.percentile(raw, 90), np.mean(raw), min(raw), max(raw)]
        got = [df[c].iloc[i] for c in ("p10 (ms)", "p50 (ms)", "p90 (ms)", "avg (ms)", "min (ms)", "max (ms)")]
        assert got == want, (name, i, got, want)


def test_debug_data_without_torch_is_numpy_zeros_of_the_same_shapes():
    # Where torch is not installed (a venv with pandas only), a logged tensor is
    # numpy.zeros of its shape and dtype instead of torch.zeros (in a child process
    # where `import torch` fails).
    import subprocess
    import sys

    g = _golden("debugbuf_portable.frame.json")
    code = (
        "import sys, json; sys.modules['torch'] = None\n"
        "import cpuprof\n"
        "df = cpuprof.load(sys.argv[1], warmup=0).to_dataframe()\n"
        "print(json.dumps([[[type(v).__name__, list(v.shape), str(v.dtype)] for v in c] for c in df.debug_data]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, os.path.join(PY, g["etdump"])],
                         check=True, capture_output=True, text=True).stdout
    got = json.loads(out)
    want = [[["ndarray", v["tensor"], v["dtype"].replace("torch.", "")] for v in r["debug_data"]["value"]]
            for r in g["rows"]]
    assert got == want
    assert any(got)


def _arrow_output(v):
    """A logged output of the Inspector's golden as to_arrow()'s debug_data struct holds it."""
    out = {"kind": None, "shape": None, "dtype": None, "tensors": None, "int": None, "float": None, "bool": None}
    if isinstance(v, dict):
        out.update(kind="tensor", shape=v["tensor"], dtype=v["dtype"].replace("torch.", ""))
    elif isinstance(v, list):
        out.update(kind="tensor_list",
                   tensors=[{"shape": t["tensor"], "dtype": t["dtype"].replace("torch.", "")} for t in v])
    elif isinstance(v, bool):
        out.update(kind="bool", bool=v)
    elif isinstance(v, int):
        out.update(kind="int", int=v)
    elif isinstance(v, float):
        out.update(kind="float", float=v)
    else:
        out.update(kind="none")
    return out


@pytest.mark.parametrize("name", _goldens())
def test_arrow_debug_data_is_the_inspectors_outputs(name):
    # to_arrow()'s debug_data: per row, each output the Inspector's frame holds (its
    # tensors' shapes and dtypes; scalars as they are), in its order; [] where none.
    pytest.importorskip("pyarrow")
    g = _golden(name)
    etrecord = g["etrecord"] and os.path.join(PY, g["etrecord"])
    t = cpuprof.load(os.path.join(PY, g["etdump"]), warmup=0, etrecord=etrecord).to_arrow()
    got = t.column("debug_data").to_pylist()
    want = [[_arrow_output(v) for v in r["debug_data"]["value"]] for r in g["rows"]]
    assert got == want, name
    if name == "debugbuf_portable.frame.json":
        assert sum(map(len, got)) >= 10
