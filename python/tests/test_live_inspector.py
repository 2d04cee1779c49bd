"""cpuprof's DataFrame against the live ExecuTorch Inspector's ``to_dataframe()`` on every
dump of fixtures/ (with its ETRecord where there is one): the same columns under the same
names and dtypes, the same rows in the same order, the same values. Skipped (with the
reason) where executorch is not installed: ``pip install executorch``.

The Inspector's frame has two columns ours lacks (``debug_data``: intermediate outputs of a
debug buffer; ``start_time``: raw timestamps); those are left out of the comparison and only
those. Row order: the Inspector lists a block's events in the order the dump first holds
them; ours is instruction order (a delegate's events, then its call), which is the same
except inside a CpuBackend delegate that runs ExecuTorch kernels (``ET/registry:`` steps):
there the dump holds the delegate's call before the later steps. For those dumps the rows
are compared as sets per block (each row found by its block, name and occurrence)."""

import glob
import math
import os

import pytest

import cpuprof

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "fixtures")

NOT_OURS_COLUMNS = {"debug_data", "start_time"}



def _etrecord(dump):
    stem = dump[: -len(".etdp")]
    for ext in (".etrecord", ".etrecord.bin"):
        if os.path.exists(stem + ext):
            return stem + ext
    return None


def _dumps():
    out = []
    for folder in ("real", "cpu", "etrecord", "wild", "compare"):
        for dump in sorted(glob.glob(os.path.join(FIX, folder, "*.etdp"))):
            if os.path.basename(dump).startswith("bad_"):
                continue
            out.append(os.path.relpath(dump, FIX))
    return out


def _inspector_frame(dump, etrecord):
    devtools = pytest.importorskip("executorch.devtools", reason="executorch not installed (pip install executorch)")
    try:
        return devtools.Inspector(etdump_path=dump, etrecord=etrecord).to_dataframe()
    except Exception as e:  # the Inspector cannot read it: nothing to compare with
        pytest.skip("the Inspector fails on {}: {}".format(os.path.basename(dump), str(e).splitlines()[0][:120]))


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) or abs(a - b) <= 1e-8


FIGURES = ["p10 (ms)", "p50 (ms)", "p90 (ms)", "avg (ms)", "min (ms)", "max (ms)"]


def _keys(df):
    """(block number, event name, occurrence of the name in the block) per row: a block
    ends with its Method::execute (Default: before the first Execute row)."""
    out, seen, block = [], {}, 0
    for b, name in zip(df.event_block_name, df.event_name):
        key = (block if b == "Execute" else -1, name)
        k = seen.get(key, 0)
        seen[key] = k + 1
        out.append(key + (k,))
        if name == "Method::execute":
            block += 1
    return out


def _registry_steps(df):
    return df.event_name.str.startswith("ET/registry:").any()


# What the Inspector knows only from an ETRecord.
ETRECORD_COLUMNS = {"op_types", "stack_traces", "module_hierarchy", "delegate_backend_name"}


def assert_frames_match(ours, theirs, what, skip=()):
    shared = [c for c in theirs.columns if c not in NOT_OURS_COLUMNS]
    # Their columns, in their order, at the head of ours.
    assert list(ours.columns[: len(shared)]) == shared, (what, list(ours.columns))
    for c in shared:
        assert ours[c].dtype == theirs[c].dtype, (what, c, ours[c].dtype, theirs[c].dtype)
    rows = lambda df: list(zip(df.event_block_name, df.event_name))
    if _registry_steps(theirs):
        ok, tk = _keys(ours), _keys(theirs)
        assert sorted(ok) == sorted(tk), (what, sorted(set(ok) ^ set(tk)))
        at = {k: i for i, k in enumerate(ok)}
        pairs = [(at[k], j) for j, k in enumerate(tk)]
    else:
        assert rows(ours) == rows(theirs), (what, rows(ours), rows(theirs))
        pairs = [(i, i) for i in range(len(theirs))]
    for i, j in pairs:
        o, t = ours.iloc[i], theirs.iloc[j]
        where = (what, i, t.event_name)
        assert len(o.raw) == len(t.raw), where
        assert all(close(a, b) for a, b in zip(o.raw, t.raw)), where
        for c in FIGURES:
            assert close(o[c], t[c]), where + (c, o[c], t[c])
        assert type(o.raw) is type(t.raw) and type(o.op_types) is type(t.op_types), where
        if "op_types" not in skip:
            assert o.op_types == t.op_types, where
        d, e = o.delegate_debug_identifier, t.delegate_debug_identifier
        assert d == e and type(d) is type(e), where + (d, e)
        if "stack_traces" not in skip:
            assert o.stack_traces == t.stack_traces and o.module_hierarchy == t.module_hierarchy, where
        assert type(o.stack_traces) is dict and type(o.module_hierarchy) is dict, where
        assert o.is_delegated_op == t.is_delegated_op, where
        if "delegate_backend_name" not in skip:
            assert o.delegate_backend_name == t.delegate_backend_name, where + (o.delegate_backend_name,)
        # Ours repeat the figures under the short names.
        assert o["p50"] == o["p50 (ms)"] and o["avg"] == o["avg (ms)"], where


@pytest.mark.parametrize("rel", _dumps())
def test_dataframe_matches_the_live_inspector(rel):
    dump = os.path.join(FIX, rel)
    etrecord = _etrecord(dump)
    devtools = pytest.importorskip("executorch.devtools", reason="executorch not installed (pip install executorch)")
    try:
        theirs = devtools.Inspector(etdump_path=dump, etrecord=etrecord).to_dataframe()
    except Exception:
        if etrecord is None:
            raise
        # The Inspector cannot read this ETRecord (three_method, twin_method,
        # const_methods: KeyError 'forward'): what it reads of the dump alone is compared
        # (ours reads the ETRecord beside the dump all the same).
        theirs = _inspector_frame(dump, None)
        etrecord = None
        ours = cpuprof.load(dump, warmup=0).to_dataframe()
        assert_frames_match(ours, theirs, rel, skip=ETRECORD_COLUMNS)
        return
    # The Inspector keeps every run: no warm-up dropped.
    ours = cpuprof.load(dump, warmup=0, etrecord=etrecord).to_dataframe()
    assert_frames_match(ours, theirs, rel)


def test_live_comparison_covers_etrecords_and_delegates():
    # The list above holds dumps with ETRecords and of every delegate kind we read.
    dumps = _dumps()
    assert sum(_etrecord(os.path.join(FIX, d)) is not None for d in dumps) >= 8
    assert any(d.startswith("cpu/") for d in dumps) and "real/multi_delegate.etdp" in dumps


def test_rows_in_the_inspectors_order_where_the_dump_allows():
    # Jumps and moves are rows of their own name, in instruction order (cond_branches);
    # two methods are two Execute blocks, the Default block gathers both loads.
    dump = os.path.join(FIX, "wild", "cond_branches.etdp")
    etrecord = _etrecord(dump)
    theirs = _inspector_frame(dump, etrecord)
    ours = cpuprof.load(dump, warmup=0, etrecord=etrecord).to_dataframe()
    assert not _registry_steps(theirs)
    assert {"JF_CALL", "MOVE_CALL"} <= set(theirs.event_name)
    assert list(ours.event_name) == list(theirs.event_name)


def test_integer_delegate_ids_match_the_live_inspector(tmp_path):
    # No dump here has a delegate event with an integer debug id: one is made from
    # mlp_xnnpack by executorch's own ETDump (de)serializer, each XNNPACK operator's string
    # id replaced by an integer, written size-prefixed by its flatc. The Inspector names
    # such an event by its id's digits, and gives the id as an int.
    import subprocess

    pytest.importorskip("executorch.devtools", reason="executorch not installed (pip install executorch)")
    from executorch.devtools import Inspector
    from executorch.devtools.etdump import serialize as S
    from executorch.exir._serialize._flatbuffer import _get_flatc_path

    with open(os.path.join(FIX, "real", "mlp_xnnpack.etdp"), "rb") as f:
        etdump = S.deserialize_from_etdump_flatcc(f.read())
    ids = {}
    for run in etdump.run_data:
        for ev in run.events or []:
            pe = ev.profile_event
            if pe is not None and pe.delegate_debug_id_str:
                pe.delegate_debug_id_int = ids.setdefault(pe.delegate_debug_id_str, len(ids) + 7)
                pe.delegate_debug_id_str = None
    assert len(ids) == 3
    d = str(tmp_path)
    S._write_schema(d, S.ETDUMP_FLATCC_SCHEMA_NAME)
    S._write_schema(d, S.SCALAR_TYPE_SCHEMA_NAME)
    with open(os.path.join(d, "int_ids.json"), "w") as f:
        f.write(S._serialize_from_etdump_to_json(etdump))
    schema = os.path.join(d, S.ETDUMP_FLATCC_SCHEMA_NAME + ".fbs")
    subprocess.run([_get_flatc_path(), "--binary", "--size-prefixed", "-o", d, schema,
                    os.path.join(d, "int_ids.json")], check=True, capture_output=True)
    dump = os.path.join(d, "int_ids.etdp")
    theirs = Inspector(etdump_path=dump).to_dataframe()
    ours = cpuprof.load(dump, warmup=0).to_dataframe()
    assert sorted(v for v in theirs.delegate_debug_identifier if v is not None) == [7, 8, 9]
    assert_frames_match(ours, theirs, "int_ids")
