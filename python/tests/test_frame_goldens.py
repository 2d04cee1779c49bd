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
