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


def cell(v, values=False):
    """A cell as the golden writes it (see scripts/make_py_fixtures.py): a tensor by its
    shape and dtype, and its values where the golden was made with a debug buffer."""
    if type(v).__name__ == "Tensor":
        out = {"tensor": list(v.shape), "dtype": str(v.dtype), "all_zero": bool((v == 0).all())}
        if values:
            out["values"] = v.tolist()
        return out
    if isinstance(v, (list, tuple)):
        return [cell(x, values) for x in v]
    if isinstance(v, dict):
        return {k: cell(x, values) for k, x in v.items()}
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
    buf = g.get("debug_buffer") and os.path.join(PY, g["debug_buffer"])
    if any(r["debug_data"]["value"] for r in g["rows"]):
        pytest.importorskip("torch", reason="debug_data holds torch tensors (pip install torch)")
    # The Inspector keeps every run: no warm-up dropped.
    df = cpuprof.load(os.path.join(PY, g["etdump"]), warmup=0, etrecord=etrecord,
                      debug_buffer=buf).to_dataframe()
    assert list(df.columns[: len(g["columns"])]) == g["columns"], name
    for c in g["columns"]:
        assert str(df[c].dtype) == g["dtypes"][c], (name, c, df[c].dtype)
    assert len(df) == len(g["rows"]), name
    for i, row in enumerate(g["rows"]):
        for c in g["columns"]:
            v = df[c].iloc[i]
            where = (name, i, row["event_name"]["value"], c)
            assert type(v).__name__ == row[c]["type"], where + (type(v).__name__, row[c]["type"])
            assert cell(v, bool(buf)) == row[c]["value"], where + (cell(v), row[c]["value"])


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


# Kinds of dumps the frame differed on from the Inspector's before a fix (issue #49: dumps
# of scripts/check_unseen_dumps.py, made and compared there). Each golden above holds the
# whole frame; these check the kind of cell against the model files themselves.


def _etrecord_json(name, entry):
    import zipfile

    with zipfile.ZipFile(os.path.join(PY, name)) as z:
        return json.loads(z.read(entry))


def test_a_node_without_a_stack_trace_is_listed_with_none():
    # A PT2E-quantized model's input quantize node has no stack trace: the Inspector lists
    # the node in `stack_traces` with None (the node is kept), as for a node without an
    # nn_module_stack in `module_hierarchy`.
    g = _golden("q_xnn_linear.frame.json")
    nodes = _etrecord_json("q_xnn_linear.etrecord", "edge_dialect_exported_program/forward")
    bare = {n["name"] + "_" for n in nodes["graph_module"]["graph"]["nodes"]
            if n["target"] != "_operator.getitem" and "debug_handle" in n.get("metadata", {})
            and not n["metadata"].get("stack_trace")}
    assert bare
    df = cpuprof.load(os.path.join(PY, g["etdump"]), warmup=0,
                      etrecord=os.path.join(PY, g["etrecord"])).to_dataframe()
    call = df[df.event_name == "DELEGATE_CALL"].iloc[0]
    gold = [r for r in g["rows"] if r["event_name"]["value"] == "DELEGATE_CALL"][0]
    assert {k for k, v in call.stack_traces.items() if v is None} == bare
    assert {k for k, v in gold["stack_traces"]["value"].items() if v is None} == bare


def test_op_types_count_every_time_a_delegate_lists_a_handle():
    # XNNPACK lists an op's debug handle once per node it lowered (SDPA: five and six
    # times), and the Inspector lists each node of the handle each time: past four
    # repeats too. The count from the ETRecord's own maps.
    g = _golden("sdpa_xnn.frame.json")
    nodes = _etrecord_json("sdpa_xnn.etrecord", "edge_dialect_exported_program/forward")
    handles = _etrecord_json("sdpa_xnn.etrecord", "debug_handle_map")["forward"]
    per_handle = {}
    for n in nodes["graph_module"]["graph"]["nodes"]:
        h = n.get("metadata", {}).get("debug_handle")
        if h is not None and n["target"] != "_operator.getitem":
            per_handle[int(h)] = per_handle.get(int(h), 0) + 1
    lists = {int(i): hs if isinstance(hs, list) else [hs] for i, hs in handles.items()}
    df = cpuprof.load(os.path.join(PY, g["etdump"]), warmup=0,
                      etrecord=os.path.join(PY, g["etrecord"])).to_dataframe()
    calls = df[df.event_name == "DELEGATE_CALL"]
    want = {int(i): sum(per_handle.get(h, 0) for h in lists[int(i)]) for i in calls.instruction_id}
    assert sum(max(map(lists[i].count, lists[i])) > 4 for i in want) == 2, lists
    got = {int(i): int(t.rsplit("(", 1)[1].split()[0]) for i, t in zip(calls.instruction_id, calls.op_types)}
    assert got == want
    gold = {r["op_types"]["value"] for r in g["rows"] if r["event_name"]["value"] == "DELEGATE_CALL"}
    assert gold == set(calls.op_types)


def test_integer_delegate_ids_take_the_backend_from_the_etrecord():
    # Integer delegate ids say nothing of the backend: the Inspector names it from the
    # ETRecord's delegate_map, for the delegate's events and its DELEGATE_CALL.
    g = _golden("int_ids_quant.frame.json")
    names = {e["name"] for e in _etrecord_json("int_ids_quant.etrecord", "delegate_map")["forward"].values()}
    assert names == {"XnnpackBackend"}
    df = cpuprof.load(os.path.join(PY, g["etdump"]), warmup=0,
                      etrecord=os.path.join(PY, g["etrecord"])).to_dataframe()
    ints = df[df.delegate_debug_identifier.map(lambda v: isinstance(v, int))]
    assert len(ints) >= 5
    assert set(ints.delegate_backend_name) == names
    assert set(df[df.event_name == "DELEGATE_CALL"].delegate_backend_name) == names


def test_a_debug_buffer_gives_the_tensors_values():
    # debug_buffer= (the Inspector's debug_buffer_path=): each logged tensor holds the
    # buffer's bytes at its offset (the golden's values, read by the Inspector); without
    # it, zeros of the same shapes and dtypes.
    torch = pytest.importorskip("torch")
    g = _golden("debugbuf_tensorlist.frame.json")
    dump, buf = os.path.join(PY, g["etdump"]), os.path.join(PY, g["debug_buffer"])
    with_buf = cpuprof.load(dump, warmup=0, debug_buffer=buf).to_dataframe()
    without = cpuprof.load(dump, warmup=0).to_dataframe()
    want = [r["debug_data"]["value"] for r in g["rows"]]
    assert [cell(v, True) for v in with_buf.debug_data] == want
    flat = lambda col: [t for c in col for v in c for t in (v if isinstance(v, list) else [v])
                        if isinstance(t, torch.Tensor)]
    assert any(bool((t != 0).any()) for t in flat(with_buf.debug_data))
    assert all(bool((t == 0).all()) for t in flat(without.debug_data))
    assert {t.dtype for t in flat(with_buf.debug_data)} >= {torch.float32, torch.bool, torch.int64, torch.float64}


def test_a_debug_buffer_without_torch_gives_numpy_arrays_of_the_values():
    import subprocess
    import sys

    g = _golden("debugbuf_tensorlist.frame.json")
    code = (
        "import sys, json; sys.modules['torch'] = None\n"
        "import cpuprof\n"
        "df = cpuprof.load(sys.argv[1], warmup=0, debug_buffer=sys.argv[2]).to_dataframe()\n"
        "cell = lambda v: [cell(x) for x in v] if isinstance(v, list) else [type(v).__name__, list(v.shape), str(v.dtype), v.tolist()]\n"
        "print(json.dumps([[cell(v) for v in c] for c in df.debug_data]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, os.path.join(PY, g["etdump"]),
                          os.path.join(PY, g["debug_buffer"])],
                         check=True, capture_output=True, text=True).stdout
    tensor = lambda t: ["ndarray", t["tensor"], t["dtype"].replace("torch.", ""), t["values"]]
    want = [[[tensor(t) for t in v] if isinstance(v, list) else tensor(v) for v in r["debug_data"]["value"]]
            for r in g["rows"]]
    assert json.loads(out) == want


def test_a_debug_buffer_too_short_is_an_error(tmp_path):
    g = _golden("debugbuf_tensorlist.frame.json")
    short = tmp_path / "short.bin"
    with open(os.path.join(PY, g["debug_buffer"]), "rb") as f:
        short.write_bytes(f.read()[:100])
    p = cpuprof.load(os.path.join(PY, g["etdump"]), warmup=0, debug_buffer=short)
    with pytest.raises(cpuprof.Error) as e:
        p.to_dataframe()
    msg = str(e.value)
    assert msg.startswith("debug buffer: ") and "past its end (100 bytes)" in msg and "\n" not in msg


def test_events_without_samples_have_none_figures_and_their_instructions_nodes():
    # Events with only debug events (no profile event): the Inspector's figures are None
    # there, so its figure columns are of dtype object (the other rows' floats kept), and
    # their op_types are their instruction's nodes (debug_handle_map) in the ETRecord.
    pytest.importorskip("torch")
    g = _golden("debug_partly_profiled.frame.json")
    dump, etrecord, buf = (os.path.join(PY, g[k]) for k in ("etdump", "etrecord", "debug_buffer"))
    df = cpuprof.load(dump, warmup=0, etrecord=etrecord, debug_buffer=buf).to_dataframe()
    bare = [i for i, r in enumerate(g["rows"]) if r["raw"]["value"] is None]
    assert len(bare) == 2
    for c in ("p10 (ms)", "p50 (ms)", "p90 (ms)", "avg (ms)", "min (ms)", "max (ms)"):
        assert str(df[c].dtype) == g["dtypes"][c] == "object"
        assert [df[c].iloc[i] for i in bare] == [None, None]
        assert all(type(v) is float for i, v in enumerate(df[c]) if i not in bare)
    nodes = _etrecord_json("debug_partly_profiled.etrecord", "edge_dialect_exported_program/forward")
    handles = _etrecord_json("debug_partly_profiled.etrecord", "debug_handle_map")["forward"]
    ops = {}
    for n in nodes["graph_module"]["graph"]["nodes"]:
        h = n.get("metadata", {}).get("debug_handle")
        if h is not None and n["target"] != "_operator.getitem":
            ops.setdefault(int(h), []).append(n["target"].replace("executorch.exir.dialects.edge.ops.", ""))
    for i in bare:
        hs = handles[str(df.instruction_id.iloc[i])]
        want = [op for h in (hs if isinstance(hs, list) else [hs]) for op in ops.get(h, [])]
        assert want and df.op_types.iloc[i] == want == g["rows"][i]["op_types"]["value"]
