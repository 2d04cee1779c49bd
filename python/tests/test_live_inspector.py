"""cpuprof's DataFrame against the live ExecuTorch Inspector's ``to_dataframe()`` on every
dump of fixtures/ (with its ETRecord where there is one): the same columns under the same
names and dtypes, the same rows in the same order, every cell equal (``raw``, the figures
and ``start_time`` exactly: they are computed as the Inspector computes them). Skipped (with
the reason) where executorch is not installed: ``pip install executorch``.

``debug_data`` (the intermediate outputs a dump's debug events log) is compared as the
Inspector makes it without the debug buffer: zero tensors of each output's shape and dtype.
fixtures/py holds dumps made for this comparison (scripts/make_py_fixtures.py)."""

import glob
import math
import os

import pytest

import cpuprof

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "fixtures")




def _etrecord(dump):
    stem = dump[: -len(".etdp")]
    for ext in (".etrecord", ".etrecord.bin"):
        if os.path.exists(stem + ext):
            return stem + ext
    return None


def _dumps():
    out = []
    for folder in ("real", "cpu", "etrecord", "wild", "compare", "py"):
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


def _registry_steps(df):
    return df.event_name.str.startswith("ET/registry:").any()


def debug_cell(v):
    """A debug_data value comparable with ==: a tensor as (shape, dtype, values)."""
    if type(v).__name__ == "Tensor":
        return ("tensor", tuple(v.shape), str(v.dtype), v.tolist())
    if isinstance(v, list):
        return [debug_cell(x) for x in v]
    return (type(v).__name__, v)


def same(a, b):
    """Equal and of the same type (an int id is not its digits; NaN equals NaN)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def assert_frames_match(ours, theirs, what, skip=()):
    # Their columns, in their order, at the head of ours, of the same dtypes.
    assert list(ours.columns[: len(theirs.columns)]) == list(theirs.columns), (what, list(ours.columns))
    for c in theirs.columns:
        assert ours[c].dtype == theirs[c].dtype, (what, c, ours[c].dtype, theirs[c].dtype)
    # The same rows in the same order.
    rows = lambda df: list(zip(df.event_block_name, df.event_name))
    assert rows(ours) == rows(theirs), (what, rows(ours), rows(theirs))
    for i in range(len(theirs)):
        o, t = ours.iloc[i], theirs.iloc[i]
        where = (what, i, t.event_name)
        for c in theirs.columns:
            if c in skip:
                continue
            a, b = o[c], t[c]
            if c == "debug_data":
                assert debug_cell(a) == debug_cell(b), where
            elif c in ("raw", "start_time") and b is None:
                assert a is None, where + (c, a)  # an event without samples
            elif c in ("raw", "start_time"):
                assert type(a) is type(b) and len(a) == len(b), where + (c,)
                assert all(same(x, y) for x, y in zip(a, b)), where + (c, a, b)
            else:
                assert same(a, b), where + (c, a, b)
        # Ours repeat the figures under the short names (float64: NaN where the
        # Inspector's are None, an event without samples).
        for short, full in (("p50", "p50 (ms)"), ("avg", "avg (ms)")):
            assert o[short] == o[full] or (o[full] is None and math.isnan(o[short])), where


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
        # const_methods, two_methods_xnn: KeyError 'forward'): the dump alone is compared
        # (ours fills the Inspector's columns of model files only from an ETRecord given,
        # as the Inspector; the one beside the dump feeds our own columns).
        theirs = _inspector_frame(dump, None)
        ours = cpuprof.load(dump, warmup=0).to_dataframe()
        assert_frames_match(ours, theirs, rel)
        return
    # The Inspector keeps every run: no warm-up dropped.
    ours = cpuprof.load(dump, warmup=0, etrecord=etrecord).to_dataframe()
    assert_frames_match(ours, theirs, rel)


def test_an_etrecord_beside_the_dump_is_not_the_inspectors():
    # Inspector(etdump_path=dump) reads no ETRecord: nor do the Inspector's columns of
    # cpuprof.load(dump), though one lies beside the dump (it feeds `module`).
    dump = os.path.join(FIX, "py", "mixed_xnn_portable.etdp")
    assert _etrecord(dump) is not None
    theirs = _inspector_frame(dump, None)
    ours = cpuprof.load(dump, warmup=0).to_dataframe()
    assert_frames_match(ours, theirs, "mixed_xnn_portable without etrecord=")
    assert ours.module.notna().any() and not any(ours.op_types.map(len))


def test_live_comparison_covers_etrecords_and_delegates():
    # The list above holds dumps with ETRecords and of every delegate kind we read.
    dumps = _dumps()
    assert sum(_etrecord(os.path.join(FIX, d)) is not None for d in dumps) >= 8
    assert any(d.startswith("cpu/") for d in dumps) and "real/multi_delegate.etdp" in dumps


def test_rows_in_the_inspectors_order_inside_cpubackend_delegates():
    # A CpuBackend delegate that runs ExecuTorch kernels (ET/registry: steps) logs its
    # DELEGATE_CALL before its later steps: the rows keep the dump's order.
    dump = os.path.join(FIX, "cpu", "cnn2_basic.etdp")
    theirs = _inspector_frame(dump, None)
    ours = cpuprof.load(dump, warmup=0).to_dataframe()
    assert _registry_steps(theirs)
    names = list(theirs.event_name)
    assert names.index("DELEGATE_CALL") < max(i for i, n in enumerate(names) if n.startswith("ET/registry:"))
    assert list(ours.event_name) == names


def test_rows_in_the_inspectors_order_with_jumps():
    # Jumps and moves are rows of their own name, in instruction order (cond_branches);
    # two methods are two Execute blocks, the Default block gathers both loads.
    dump = os.path.join(FIX, "wild", "cond_branches.etdp")
    etrecord = _etrecord(dump)
    theirs = _inspector_frame(dump, etrecord)
    ours = cpuprof.load(dump, warmup=0, etrecord=etrecord).to_dataframe()
    assert not _registry_steps(theirs)
    assert {"JF_CALL", "MOVE_CALL"} <= set(theirs.event_name)
    assert list(ours.event_name) == list(theirs.event_name)


def test_integer_delegate_ids_match_the_live_inspector():
    # No dump of ours has a delegate event with an integer debug id: fixtures/py/int_ids is
    # mlp_xnnpack rewritten by executorch's own ETDump (de)serializer, each XNNPACK
    # operator's string id replaced by an integer (scripts/make_py_fixtures.py). The
    # Inspector names such an event by its id's digits, and gives the id as an int.
    dump = os.path.join(FIX, "py", "int_ids.etdp")
    theirs = _inspector_frame(dump, None)
    ours = cpuprof.load(dump, warmup=0).to_dataframe()
    assert sorted(v for v in theirs.delegate_debug_identifier if v is not None) == [7, 8, 9]
    assert_frames_match(ours, theirs, "int_ids")


def test_many_runs_repeats_and_wraps_match_the_live_inspector():
    # fixtures/py/many_runs (scripts/make_py_fixtures.py): mlp_xnnpack's Execute run
    # copied 300 times with jittered times (numpy's pairwise mean past 128 samples, its
    # percentiles), every 7th run with its first kernel event logged twice (the Inspector
    # keeps the run's last), every 11th with an operator's end wrapped past 2^32 ticks,
    # every 13th run named otherwise (blocks of their own).
    dump = os.path.join(FIX, "py", "many_runs.etdp")
    theirs = _inspector_frame(dump, None)
    ours = cpuprof.load(dump, warmup=0).to_dataframe()
    assert max(len(r) for r in theirs.raw) > 200 and "Execute2" in set(theirs.event_block_name)
    assert_frames_match(ours, theirs, "many")


def test_load_with_its_defaults_equals_the_inspector():
    # cpuprof.load(path) with no other argument is Inspector(etdump_path=path): the frame
    # keeps every run (the runner log beside states warm-ups the profile drops), and no
    # ETRecord is read into the Inspector's columns.
    for rel in ("real/mlp_xnnpack.etdp", "py/gen_wide_s41.etdp", "wild/timm_effnet.etdp"):
        dump = os.path.join(FIX, rel)
        theirs = _inspector_frame(dump, None)
        ours = cpuprof.load(dump).to_dataframe()
        assert_frames_match(ours, theirs, rel)


def _with_debug_buffers():
    return sorted(os.path.relpath(b[: -len(".debug.bin")] + ".etdp", FIX)
                  for b in glob.glob(os.path.join(FIX, "py", "*.debug.bin")))


@pytest.mark.parametrize("rel", _with_debug_buffers())
def test_a_debug_buffer_given_matches_the_live_inspector(rel):
    # Inspector(etdump_path, etrecord, debug_buffer_path): the logged tensors hold the
    # buffer's values (debug_cell compares them); with and without the ETRecord.
    dump = os.path.join(FIX, rel)
    buf = dump[: -len(".etdp")] + ".debug.bin"
    devtools = pytest.importorskip("executorch.devtools", reason="executorch not installed (pip install executorch)")
    for etrecord in (None, _etrecord(dump)):
        theirs = devtools.Inspector(etdump_path=dump, etrecord=etrecord, debug_buffer_path=buf).to_dataframe()
        ours = cpuprof.load(dump, warmup=0, etrecord=etrecord, debug_buffer=buf).to_dataframe()
        assert_frames_match(ours, theirs, (rel, etrecord))


def test_the_debug_buffer_list_is_not_empty():
    assert _with_debug_buffers()
