"""The rest of the module's surface: errors are the command's one-line messages (the
command's own stderr is the truth, run as `python -m cpuprof`), fleet() and compare()
keywords are the command's options (its `--format csv` output is the truth), and
to_arrow() holds to_dataframe()'s columns and the Inspector's samples."""

import io
import json
import math
import os
import subprocess
import sys

import pytest

import cpuprof

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "fixtures")
DUMP = os.path.join(FIX, "real", "mlp_xnnpack.etdp")
DEVICES = os.path.join(FIX, "fleet", "devices")


def cli(*args):
    """The command (this package's, as `cpuprof-tui`): exit status, stdout, stderr."""
    out = subprocess.run([sys.executable, "-m", "cpuprof", *args], capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr


def assert_cli_line(err, *args):
    """The exception's text is the one line the command prints for the same input."""
    code, _, stderr = cli(*args)
    assert code == 2, (args, code, stderr)
    msg = str(err.value)
    assert isinstance(err.value, cpuprof.Error) and isinstance(err.value, ValueError)
    assert "\n" not in msg and msg
    assert stderr.strip() == "cpuprof-tui: " + msg, (stderr, msg)


@pytest.mark.parametrize(
    "case",
    ["missing", "truncated", "empty", "wrong_identifier", "warmup_word", "warmup_negative", "log_missing"],
)
def test_load_errors_are_the_command_line(case):
    bad = os.path.join(FIX, "real", "bad_{}.etdp".format(case))
    kw, args = {}, None
    if case == "missing":
        path = os.path.join(FIX, "real", "no_such.etdp")
    elif case.startswith("warmup"):
        path, value = DUMP, {"warmup_word": "soon", "warmup_negative": "-1"}[case]
        kw, args = {"warmup": value}, ["report", DUMP, "--warmup", value]
    elif case == "log_missing":
        path, log = DUMP, os.path.join(FIX, "real", "no_such.log")
        kw, args = {"log": log}, ["report", DUMP, "--log", log]
    else:
        path = bad
    with pytest.raises(cpuprof.Error) as e:
        cpuprof.load(path, **kw)
    assert_cli_line(e, *(args or ["report", path]))


@pytest.mark.parametrize("value", ["auto", "LOG", " 2 ", "0", "3"])
def test_warmup_values_taken_are_the_commands(value):
    # A warmup= the command takes drops the runs `report --warmup VALUE` drops: the same
    # JSON, byte for byte.
    code, stdout, stderr = cli("report", DUMP, "--warmup", value, "--format", "json")
    assert code == 0, stderr
    assert cpuprof.load(DUMP, warmup=value).json() == stdout


@pytest.mark.parametrize("case", ["random_bytes", "truncated_half", "directory", "empty_file"])
def test_bad_dumps_made_here_are_errors_with_the_command_line(case, tmp_path):
    # Inputs no fixture holds: random bytes, a dump cut in half, a directory that is no
    # CTF trace, an empty file: each a cpuprof.Error whose text is the command's line.
    import random

    path = tmp_path / "x.etdp"
    if case == "random_bytes":
        path.write_bytes(bytes(random.Random(49).randrange(256) for _ in range(4096)))
    elif case == "truncated_half":
        with open(DUMP, "rb") as f:
            data = f.read()
        path.write_bytes(data[: len(data) // 2])
    elif case == "directory":
        path.mkdir()
        (path / "notes.txt").write_text("not a trace")
    else:
        path.write_bytes(b"")
    with pytest.raises(cpuprof.Error) as e:
        cpuprof.load(path)
    assert_cli_line(e, "report", str(path))


@pytest.mark.parametrize("case", ["random_bytes", "a_dump", "missing", "directory"])
def test_an_etrecord_given_that_is_not_one_is_an_error(case, tmp_path):
    # etrecord= asks for the Inspector's columns of model files (the Inspector raises
    # for such a file): an error, whose text is the command's warning for the same file
    # (the command loads without sources: `cpuprof-tui: warning: etrecord_unreadable: ...`).
    bad = tmp_path / "bad.etrecord"
    if case == "random_bytes":
        bad.write_bytes(os.urandom(300))
    elif case == "a_dump":
        bad = DUMP
    elif case == "directory":
        bad.mkdir()
    with pytest.raises(cpuprof.Error) as e:
        cpuprof.load(DUMP, etrecord=bad)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(str(bad) + ": ")
    code, _, stderr = cli("report", DUMP, "--etrecord", str(bad), "--format", "json")
    assert code == 0
    assert "cpuprof-tui: warning: etrecord_unreadable: {}; loaded without sources".format(msg) in stderr.splitlines()


def test_a_debug_buffer_that_cannot_be_read_is_an_error(tmp_path):
    # No command option reads a debug buffer: the message is the command's for a file
    # it cannot read (its --log's, the same reader).
    for path in (tmp_path / "missing.bin", tmp_path):
        with pytest.raises(cpuprof.Error) as e:
            cpuprof.load(DUMP, debug_buffer=path)
        code, _, stderr = cli("report", DUMP, "--log", str(path))
        assert code == 2 and stderr.strip() == "cpuprof-tui: " + str(e.value), (stderr, str(e.value))


def test_the_load_releases_the_gil(tmp_path):
    # A load from a FIFO waits for its writer: the writer, another thread of the same
    # process, can only open and write it if the load waits without the GIL. Run in a
    # child process so that a load that holds the GIL fails by timeout, not by hanging.
    code = (
        "import os, sys, threading, cpuprof\n"
        "fifo, dump = sys.argv[1], sys.argv[2]\n"
        "os.mkfifo(fifo)\n"
        "out = {}\n"
        "t = threading.Thread(target=lambda: out.update(df=cpuprof.load(fifo, warmup=0).to_dataframe()))\n"
        "t.start()\n"
        "with open(fifo, 'wb') as f, open(dump, 'rb') as d:\n"
        "    f.write(d.read())\n"
        "t.join()\n"
        "print(len(out['df']))\n"
    )
    want = len(cpuprof.load(DUMP, warmup=0).to_dataframe())
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "dump.fifo"), DUMP],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == want


def test_fleet_and_compare_errors_are_the_command_line(tmp_path):
    with pytest.raises(cpuprof.Error) as e:
        cpuprof.fleet([DEVICES], alpha=2)
    assert_cli_line(e, "fleet", DEVICES, "--alpha", "2", "--format", "csv")
    with pytest.raises(cpuprof.Error) as e:
        cpuprof.fleet([DEVICES], key="{device")
    assert_cli_line(e, "fleet", DEVICES, "--key", "{device", "--format", "csv")
    empty = str(tmp_path)
    with pytest.raises(cpuprof.Error) as e:
        cpuprof.fleet(empty)
    assert_cli_line(e, "fleet", empty, "--format", "csv")
    with pytest.raises(cpuprof.Error) as e:
        cpuprof.fleet([DEVICES], "--no-such-option")
    assert_cli_line(e, "fleet", DEVICES, "--no-such-option", "--format", "csv")
    missing = os.path.join(FIX, "real", "no_such.etdp")
    with pytest.raises(cpuprof.Error) as e:
        cpuprof.compare(DUMP, missing)
    assert_cli_line(e, "compare", DUMP, missing, "--format", "csv")
    with pytest.raises(cpuprof.Error) as e:
        cpuprof.compare(DUMP, DUMP, min_change=-3)
    assert_cli_line(e, "compare", DUMP, DUMP, "--min-change", "-3", "--format", "csv")
    # Options that write files are the command's, not the function's.
    with pytest.raises(cpuprof.Error):
        cpuprof.fleet([DEVICES], "-o", os.devnull)
    with pytest.raises(cpuprof.Error):
        cpuprof.fleet([DEVICES], format="parquet")


def _csv(*args):
    import pandas as pd

    code, out, err = cli(*args)
    assert code == 0, err
    return out, pd.read_csv(io.StringIO(out))


def test_fleet_keywords_are_the_command_options():
    import pandas.testing as pdt

    key = "{device}/{commit}/run-{n}.etdp"
    text, want = _csv("fleet", DEVICES, "--key", key, "--by", "device", "--order", "commit",
                      "--min-change", "3", "--alpha", "0.1", "--warmup", "0", "--format", "csv")
    got = cpuprof.fleet([DEVICES], key=key, by="device", order="commit", min_change=3, alpha=0.1, warmup=0)
    assert "device" in got.columns and got["device"].nunique() >= 2
    pdt.assert_frame_equal(got, want)
    assert cpuprof.fleet(DEVICES, key=key, by="device", order="commit", min_change=3, alpha=0.1,
                         warmup=0, format="csv") == text
    # The typed Arrow table (built in Rust) holds the same columns and values.
    pytest.importorskip("pyarrow")
    t = cpuprof.fleet([DEVICES], key=key, by="device", order="commit", min_change=3, alpha=0.1, warmup=0,
                      format="arrow")
    assert t.column_names == list(want.columns)
    assert t.num_rows == len(want)
    for c in want.columns:
        a, b = t.column(c).to_pylist(), want[c].tolist()
        for x, y in zip(a, b):
            if isinstance(y, float) and math.isnan(y):
                assert x is None or (isinstance(x, float) and math.isnan(x)), (c, x, y)
            elif isinstance(y, float):
                # Metadata values are text in the typed table (pandas reads '14' as 14.0).
                x = float(x) if isinstance(x, str) else x
                assert x == pytest.approx(y, rel=1e-6, abs=1e-9), (c, x, y)
            else:
                assert str(x) == str(y), (c, x, y)


def test_compare_keywords_are_the_command_options():
    import pandas.testing as pdt

    a = os.path.join(FIX, "compare", "cnn2_a.etdp")
    b = os.path.join(FIX, "compare", "cnn2_slow_b.etdp")
    text, want = _csv("compare", a, b, "--warmup", "2", "--alpha", "0.01", "--min-change", "2", "--format", "csv")
    got = cpuprof.compare(a, b, warmup=2, alpha=0.01, min_change=2)
    pdt.assert_frame_equal(got, want)
    assert cpuprof.compare(a, b, warmup=2, alpha=0.01, min_change=2, format="csv") == text
    assert (got["verdict"] == "slower").any() if "verdict" in got.columns else True
    pytest.importorskip("pyarrow")
    t = cpuprof.compare(a, b, warmup=2, alpha=0.01, min_change=2, format="arrow")
    assert t.column_names == list(want.columns) and t.num_rows == len(want)


def _plain(v):
    """A cell as plain Python: tuples as lists, NA as None, numpy scalars as Python's."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    import pandas as pd

    if v is pd.NA:
        return None
    return v.item() if hasattr(v, "item") else v


def _frame_debug(outputs):
    """A frame's debug_data cell as the Arrow struct's (kind, shape, dtype): its tensors'."""
    return [["tensor", list(v.shape), str(v.dtype).replace("torch.", "")] for v in outputs]


def _arrow_cell(column, v):
    """A cell of the Arrow table as the frame holds it: maps as dicts (pyarrow lists their
    entries as pairs); op_types as the Inspector shows five or more (its text)."""
    if column == "stack_traces":
        return dict(v)
    if column == "module_hierarchy":
        return {n: dict(frames) for n, frames in v}
    if column == "debug_data":
        return [[o["kind"], o["shape"], o["dtype"]] for o in v]
    if column == "op_types" and len(v) >= 5:
        return "['{}', '{}' ... '{}'] ({} total)".format(v[0], v[1], v[-1], len(v))
    return v


@pytest.mark.parametrize(
    "rel,etrecord",
    [("real/mlp_xnnpack.etdp", None), ("cpu/cnn2_basic.etdp", None),
     ("wild/cond_branches.etdp", "wild/cond_branches.etrecord"),
     ("etrecord/attention_mask.etdp", "etrecord/attention_mask.etrecord"), ("torch/recursive_steps.json", None),
     ("py/debugbuf_portable.etdp", "py/debugbuf_portable.etrecord")],
)
def test_arrow_table_equals_the_dataframe(rel, etrecord):
    pa = pytest.importorskip("pyarrow")
    p = cpuprof.load(os.path.join(FIX, rel), warmup=0, etrecord=etrecord and os.path.join(FIX, etrecord))
    t, df = p.to_arrow(), p.to_dataframe()
    assert isinstance(t, pa.Table)
    assert t.column_names == list(df.columns) and t.num_rows == len(df)
    assert t.schema.field("raw").type == pa.list_(pa.float64()) or str(t.schema.field("raw").type).startswith("list<")
    assert t.schema.field("raw").type.value_type == pa.float64()
    assert t.schema.field("is_delegated_op").type == pa.bool_()
    for c in df.columns:
        arrow = [_plain(_arrow_cell(c, v)) for v in t.column(c).to_pylist()]
        frame = [_frame_debug(v) if c == "debug_data" else _plain(v) for v in df[c]]
        assert arrow == frame, (rel, c)
    # Any reader of the Arrow PyCapsule interface takes the stream.
    reader = pa.RecordBatchReader.from_stream(p.arrow_stream())
    assert reader.read_all().equals(t)


def test_arrow_raw_is_the_inspectors_samples():
    pytest.importorskip("pyarrow")
    with open(os.path.join(FIX, "real", "mlp_xnnpack.inspector.json")) as f:
        g = json.load(f)
    t = cpuprof.load(DUMP, warmup=0).to_arrow()
    names = t.column("event_name").to_pylist()
    raw = t.column("raw").to_pylist()
    checked = 0
    for block in g["etdump_only"]["event_blocks"]:
        for ev in block["events"]:
            i = names.index(ev["event_name"])
            assert raw[i] == pytest.approx(ev["raw_ms"], rel=1e-9, abs=1e-8), ev["event_name"]
            checked += 1
    assert checked >= 5
