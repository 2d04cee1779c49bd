"""cpuprof against the ExecuTorch Inspector's goldens (fixtures/*/ *.inspector.json, written by
the Inspector from the same dumps) and against the cpuprof-tui command itself."""

import json
import math
import os
import shutil
import subprocess
import sys

import pytest

import cpuprof

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "fixtures")

# The Inspector's samples are differences of large timestamps converted to ms in floating
# point: within 1e-9 relative, or 1e-8 ms absolute (as tests/it/profile_inspector.rs).
def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) or abs(a - b) <= 1e-8


def golden(rel):
    with open(os.path.join(FIX, rel)) as f:
        return json.load(f)


def execute_rows(df):
    return {(r.instruction_id, r.event_name): r for r in df.itertuples() if r.event_block_name == "Execute"}


@pytest.mark.parametrize(
    "stem", ["mlp_xnnpack", "multi_delegate", "multi_delegate8", "cnn_portable", "mlp_portable_debugbuf"]
)
def test_dataframe_equals_inspector_on_real_dumps(stem):
    g = golden("real/{}.inspector.json".format(stem))
    # The Inspector keeps every run: no warm-up dropped.
    df = cpuprof.load(os.path.join(FIX, "real", stem + ".etdp"), warmup=0).to_dataframe()
    ours = execute_rows(df)
    checked = 0
    for block in g["etdump_only"]["event_blocks"]:
        if block["name"] != "Execute":
            continue
        for ev in block["events"]:
            name = ev["event_name"]
            key = (None if name == "Method::execute" else ev["instruction_id"], name)
            if name == "Method::execute":
                row = next(r for r in df.itertuples() if r.event_name == name)
            else:
                assert key in ours, "{}: no row for {}".format(stem, key)
                row = ours[key]
            assert len(row.raw) == len(ev["raw_ms"]), (stem, name)
            for a, b in zip(row.raw, ev["raw_ms"]):
                assert close(a, b), (stem, name, a, b)
            for col, k in [("p10", "p10_ms"), ("p50", "median_ms"), ("p90", "p90_ms"),
                           ("avg", "avg_ms"), ("min", "min_ms"), ("max", "max_ms")]:
                assert close(getattr(row, col), ev[k]), (stem, name, col)
            assert bool(row.is_delegated_op) == ev["is_delegated_op"], (stem, name)
            if ev["is_delegated_op"]:
                assert row.delegate_debug_identifier == ev["delegate_debug_identifier"]
            if "delegate_backend_name" in ev:
                assert row.delegate_backend_name == ev["delegate_backend_name"], (stem, name)
            checked += 1
    assert checked >= 5
    # The load-time events of the Default block, one sample each.
    default = {r.event_name: r for r in df.itertuples() if r.event_block_name == "Default"}
    for block in g["etdump_only"]["event_blocks"]:
        for ev in block["events"] if block["name"] == "Default" else []:
            row = default[ev["event_name"]]
            assert list(row.raw) == pytest.approx(ev["raw_ms"], rel=1e-9), (stem, ev["event_name"])


@pytest.mark.parametrize("stem", ["modules_portable", "modules_xnnpack"])
def test_dataframe_op_types_equal_inspector_with_etrecord(stem):
    g = golden("etrecord/{}.inspector.json".format(stem))
    etrecord = os.path.join(FIX, "etrecord", g["etrecord"])
    df = cpuprof.load(os.path.join(FIX, "etrecord", g["etdump"]), warmup=0, etrecord=etrecord).to_dataframe()
    ours = execute_rows(df)
    block = next(b for b in g["event_blocks"] if b["name"] == "Execute")
    checked = 0
    for ev in block["events"]:
        # Repeated XNNPACK names are told apart by their order only: the calls are checked.
        if ev["is_delegated_op"] or ev["name"] == "Method::execute":
            continue
        row = ours[(ev["instruction_id"], ev["name"])]
        assert list(row.op_types) == ev["op_types"], (stem, ev["name"])
        assert len(row.raw) == ev["num_samples"]
        assert close(row.p50, ev["median_ms"]) and close(row.avg, ev["avg_ms"]), (stem, ev["name"])
        checked += 1
    assert checked >= 4


def test_json_is_the_report_and_errors_are_its_line():
    dump = os.path.join(FIX, "real", "mlp_xnnpack.etdp")
    p = cpuprof.load(dump)
    doc = p.to_dict()
    assert doc["schema"] == "cpuprof.profile/1"
    assert doc["runs"]["total"] == 13
    with pytest.raises(cpuprof.Error) as e:
        cpuprof.load(os.path.join(FIX, "real", "bad_truncated.etdp"))
    assert isinstance(e.value, ValueError)
    assert "bad_truncated.etdp: incomplete ETDump" in str(e.value)
    assert "\n" not in str(e.value)
    # The console script is the command: the same bytes, the same line, exit 2.
    exe = shutil.which("cpuprof-tui", path=os.path.dirname(sys.executable))
    if exe is None:
        pytest.skip("cpuprof-tui console script not installed beside this python")
    out = subprocess.run([exe, "report", dump, "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == p.json()
    bad = subprocess.run([exe, "report", os.path.join(FIX, "real", "bad_truncated.etdp")], capture_output=True, text=True)
    assert bad.returncode == 2 and str(e.value) in bad.stderr


def test_compare_and_fleet_are_the_csv_tables():
    a = os.path.join(FIX, "real", "mlp_xnnpack.etdp")
    cmp = cpuprof.compare(a, a)
    assert "kind" in cmp.columns and (cmp["kind"] == "method").sum() == 1
    assert (cmp["median_change_pct"] == 0).all()
    fl = cpuprof.fleet([a, os.path.join(FIX, "real", "cnn_portable.etdp")])
    assert len(fl) >= 2


def test_trace_rows_equal_key_averages():
    # recursive_steps: no only-child merge (the README's one difference is in cnn_infer).
    p = cpuprof.load(os.path.join(FIX, "torch", "recursive_steps.json"))
    assert p.kind == "trace"
    df = p.to_dataframe()
    assert len(df) == len(p.to_dict()["ops"])
    rows = {r.event_name: r for r in df.itertuples()}
    checked = 0
    for ka in golden("torch/recursive_steps.key_averages.json"):
        row = rows[ka["name"]]
        assert len(row.raw) == ka["count"], ka["name"]
        # Inclusive time of every call, ms against PyTorch's us (3-decimal rounding).
        assert abs(sum(row.raw) * 1000 - ka["cpu_time_total_us"]) <= 0.05 * ka["count"] + 1e-6, ka["name"]
        checked += 1
    assert checked >= 5


def test_dataframe_lists_every_method_as_the_inspector_does():
    # fixtures/real/two_method: encode and decode run alternately, then decode alone; the
    # Inspector's golden has one Execute block per method, in the order they first ran.
    g = golden("real/two_method.inspector.json")
    df = cpuprof.load(os.path.join(FIX, "real", "two_method.etdp"), warmup=0).to_dataframe()
    ex = df[df.event_block_name == "Execute"]
    methods = list(dict.fromkeys(ex.method))
    blocks = [b for b in g["event_blocks"] if b["name"] == "Execute"]
    assert len(methods) == len(blocks) == 2
    for method, block in zip(methods, blocks):
        rows = ex[ex.method == method]
        ours = {(r.instruction_id, r.event_name): r for r in rows.itertuples()}
        for ev in block["events"]:
            name = ev["event_name"]
            if name == "Method::execute":
                row = next(r for r in rows.itertuples() if r.event_name == name)
            else:
                row = ours[(ev["instruction_id"], name)]
            assert len(row.raw) == ev["num_samples"] == len(ev["raw_ms"]), (method, name)
            for a, b in zip(row.raw, ev["raw_ms"]):
                assert close(a, b), (method, name, a, b)
            assert close(row.p50, ev["median_ms"]), (method, name)
        # No row of ours the Inspector's block lacks (ours add nothing to the Execute block).
        assert len(rows) == len(block["events"]), (method, sorted(ours), [e["event_name"] for e in block["events"]])
    # The run counts of the golden's run order: 12 encode, 16 decode.
    counts = sorted(len(ex[(ex.method == m) & (ex.event_name == "Method::execute")].raw.iloc[0]) for m in methods)
    assert counts == sorted([g["run_order"].count("encode"), g["run_order"].count("decode")])


def test_two_threads_with_different_etrecords_each_get_their_own():
    # The model files go with each load (no process-wide setting): one thread names a
    # broken ETRecord (an error: cpuprof.Error), the other takes the one beside the dump;
    # the load releases the GIL.
    import threading
    dump = os.path.join(FIX, "etrecord", "modules_xnnpack.etdp")
    broken = os.path.join(FIX, "etrecord", "bad_json.etrecord")
    failures = []

    def run(etrecord, want_source):
        for _ in range(10):
            try:
                df = cpuprof.load(dump, warmup=0, etrecord=etrecord).to_dataframe()
            except cpuprof.Error as e:
                if want_source or not str(e).startswith(broken + ": "):
                    failures.append((etrecord, str(e)))
                continue
            if etrecord is not None:
                failures.append((etrecord, "no error"))
            # Our `module` column: from the ETRecord read (the Inspector's columns of
            # model files only from one given).
            has = df.module.notna().any()
            if has != want_source:
                failures.append((etrecord, has))

    threads = [threading.Thread(target=run, args=(broken, False)), threading.Thread(target=run, args=(None, True))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


# Events of the Inspector's Execute blocks that are not rows of ours: the method's own
# (compared elsewhere, no nodes), and the jump and move instructions' (JF_CALL,
# MOVE_CALL of cond_branches: not operators; our rows are delegate and operator calls).
NOT_OUR_ROWS = {"Method::execute", "JF_CALL", "MOVE_CALL"}

HIERARCHY_GOLDENS = [
    ("etrecord", "modules_portable"),
    ("etrecord", "modules_xnnpack"),
    ("etrecord", "attention_mask"),
    ("wild", "attn_dimorder"),
    ("wild", "attn_neginf"),
    ("wild", "cond_branches"),
    ("wild", "const_methods"),
    ("wild", "timm_effnet"),
]


def _with_etrecord(folder, stem, g):
    etrecord = os.path.join(FIX, folder, g["etrecord"])
    dump = os.path.join(FIX, folder, g["etdump"])
    return cpuprof.load(dump, warmup=0, etrecord=etrecord).to_dataframe()


@pytest.mark.parametrize("folder,stem", HIERARCHY_GOLDENS)
def test_module_hierarchy_equals_inspector(folder, stem):
    # The Inspector's module_hierarchy per event: node name -> {nn_module_stack key:
    # [module path, module type]}, {} where it has none (an XNNPACK operator's own).
    g = golden("{}/{}.inspector.json".format(folder, stem))
    if not g.get("etrecord"):
        pytest.skip("{}: the golden was made without an ETRecord".format(stem))
    df = _with_etrecord(folder, stem, g)
    ex = df[df.event_block_name == "Execute"]
    methods = list(dict.fromkeys(ex.method))
    blocks = [b for b in g["event_blocks"] if b["name"] == "Execute"]
    assert len(methods) == len(blocks), (stem, methods)
    checked = filled = 0
    for method, block in zip(methods, blocks):
        rows = ex[ex.method == method]
        ours = {(r.instruction_id, r.event_name): r for r in rows.itertuples()}
        for ev in block["events"]:
            name = ev.get("event_name", ev.get("name"))
            if name in NOT_OUR_ROWS:
                continue
            row = ours[(int(ev["instruction_id"]), name)]
            want = ev["module_hierarchy"] or None
            got = row.module_hierarchy
            if isinstance(got, float):  # pandas' NaN for None
                got = None
            got = {n: {k: list(v) for k, v in s.items()} for n, s in got.items()} if got else None
            assert got == want, (stem, method, name, got, want)
            checked += 1
            filled += want is not None
    assert checked >= 3 and filled >= 1, (stem, checked, filled)


@pytest.mark.parametrize("stem", ["modules_portable", "modules_xnnpack"])
def test_stack_traces_equal_the_live_inspector(stem):
    # No golden holds stack traces: the Inspector of /work/venv's executorch is asked here
    # (skipped where it is not installed).
    inspector = pytest.importorskip("executorch.devtools").Inspector
    g = golden("etrecord/{}.inspector.json".format(stem))
    dump = os.path.join(FIX, "etrecord", g["etdump"])
    etrecord = os.path.join(FIX, "etrecord", g["etrecord"])
    theirs = inspector(etdump_path=dump, etrecord=etrecord).to_dataframe()
    ours = cpuprof.load(dump, warmup=0, etrecord=etrecord).to_dataframe()
    # The Inspector's frame has no instruction id: rows are matched by name and by their
    # place among the rows of that name (both list a method's events in the dump's order).
    def keyed(rows):
        seen = {}
        out = {}
        for r in rows:
            k = seen.get(r.event_name, 0)
            seen[r.event_name] = k + 1
            out[(r.event_name, k)] = r.stack_traces
        return out

    pick = lambda df: [r for r in df.itertuples() if r.event_block_name == "Execute" and r.event_name != "Method::execute"]
    ours = keyed(pick(ours))
    theirs = keyed(pick(theirs))
    assert set(ours) == set(theirs), (stem, sorted(set(ours) ^ set(theirs)))
    checked = 0
    for key, want in theirs.items():
        want = want or None
        got = ours[key]
        if isinstance(got, float):
            got = None
        assert (dict(got) if got else None) == want, (stem, key, got, want)
        checked += want is not None
    assert checked >= 1
