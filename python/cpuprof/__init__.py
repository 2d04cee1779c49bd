"""cpuprof: ExecuTorch ETDump CPU profiles and PyTorch operator traces, read by the
cpuprof-tui library (the same loaders and numbers as the ``cpuprof-tui`` command).

    import cpuprof
    p = cpuprof.load("model.etdp")          # or a trace: cpuprof.load("trace.json")
    df = p.to_dataframe()                   # the Inspector's columns, plus ours
    cpuprof.compare("a.etdp", "b.etdp")     # compare --format csv, as a DataFrame
"""

import io
import json as _json
import os

from . import _cpuprof

Error = _cpuprof.Error

__all__ = ["Error", "Profile", "load", "compare", "fleet"]

_FIGURES = ("p10 (ms)", "p50 (ms)", "p90 (ms)", "avg (ms)", "min (ms)", "max (ms)")


class Profile:
    """A loaded ETDump profile or trace. ``kind`` is "etdump" or "trace"."""

    def __init__(self, loaded):
        self._loaded = loaded

    @property
    def kind(self):
        return self._loaded.kind

    @property
    def warnings(self):
        return self._loaded.warnings()

    def json(self):
        """The text of ``cpuprof-tui report FILE --format json``."""
        return self._loaded.json()

    def to_dict(self):
        """``json()`` parsed."""
        return _json.loads(self.json())

    def to_dataframe(self):
        """One row per event, as the ExecuTorch Inspector's ``to_dataframe()``: its columns
        under its names and types (event_block_name, event_name, raw, "p10 (ms)", "p50 (ms)",
        "p90 (ms)", "avg (ms)", "min (ms)", "max (ms)", op_types, delegate_debug_identifier,
        stack_traces, module_hierarchy, is_delegated_op, delegate_backend_name) in its row
        order, then ours: p10, p50, p90, avg, min, max (the same figures), instruction_id,
        delegate, step, shapes, flops, bytes, module, source_line, method. Times in ms."""
        import pandas as pd

        cols = self._loaded.columns()
        # The Inspector concatenates one frame per event: a text column holding a None is
        # of dtype object there (None kept), as here.
        for c in ("delegate_debug_identifier", "delegate_backend_name"):
            if any(v is None for v in cols[c]):
                cols[c] = pd.Series(cols[c], dtype=object)
        for c in ("instruction_id", "flops", "bytes"):
            cols[c] = pd.array(cols[c], dtype="Int64")
        # An event with no profile event (only debug events) has no samples: its figures
        # are None, and the Inspector's figure columns then of dtype object (its floats
        # kept), as its concatenation of one frame per event makes them.
        raw = cols["raw"]
        if any(r is None for r in raw):
            for c in _FIGURES:
                cols[c] = pd.Series([None if r is None else v for r, v in zip(raw, cols[c])],
                                    dtype=object)
        return pd.DataFrame(cols)

    def to_arrow(self):
        """The columns of ``to_dataframe()`` as a pyarrow Table, built in Rust and handed
        over through the Arrow C stream interface (no copy on the way). Any reader of the
        Arrow PyCapsule interface takes ``arrow_stream()`` as well (polars, DuckDB)."""
        import pyarrow as pa

        return pa.table(self._loaded.arrow())

    def arrow_stream(self):
        """An object with ``__arrow_c_stream__`` (the Arrow PyCapsule interface) holding
        the columns of ``to_dataframe()``."""
        return self._loaded.arrow()

    def __repr__(self):
        return "<cpuprof.Profile {}>".format(self.kind)


def load(path, log=None, warmup=None, etrecord=None, program=None, debug_buffer=None):
    """Load an ETDump (runner log beside it unless ``log`` names one; model files as
    ``--etrecord``/``--program``) or a PyTorch trace. Raises ``cpuprof.Error`` with the
    command's one-line message.

    ``warmup`` as ``--warmup`` (a count, "auto" or "log"): the warm-up runs dropped from
    the profile (``json()``, our figures) and from ``to_dataframe()``/``to_arrow()``. Not
    given (None): the profile drops what the command drops by default ("log": the runner
    log's warm-ups, else the cold runs ``auto`` finds), and the frame keeps every run, as
    the Inspector's does.

    ``etrecord``: as the Inspector's ``etrecord=``, it fills the frame's ``op_types``,
    ``stack_traces``, ``module_hierarchy`` and ``delegate_backend_name``; an ETRecord
    beside the dump (which the command reads) feeds only our ``module`` and
    ``source_line``.

    ``debug_buffer``: as the Inspector's ``debug_buffer_path=``, the file the runtime
    wrote the logged tensors to: ``debug_data``'s tensors hold its values (without it,
    zeros of their shapes and dtypes, as the Inspector's)."""
    p = os.fspath
    return Profile(
        _cpuprof.load(
            p(path),
            None if log is None else p(log),
            None if warmup is None else str(warmup),
            None if etrecord is None else p(etrecord),
            None if program is None else p(program),
            None if debug_buffer is None else p(debug_buffer),
        )
    )


def _options(args, options):
    """The CLI's arguments: ``args`` as given, then each keyword option that is set
    (``min_change=3`` is ``--min-change 3``; True is the bare flag)."""
    out = [os.fspath(x) if isinstance(x, os.PathLike) else str(x) for x in args]
    for name, value in options:
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            out.append(flag)
        else:
            out += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return out


_FORMATS = ("pandas", "arrow", "csv")


def _check_format(format):
    if format not in _FORMATS:
        raise Error("format: {!r} is not one of {}".format(format, ", ".join(_FORMATS)))


def compare(a, b, *args, log_a=None, log_b=None, no_log=False, warmup=None, warmup_a=None,
            warmup_b=None, alpha=None, min_change=None, by_module=False, etrecord=None,
            program=None, format="pandas"):
    """``cpuprof-tui compare A B --format csv``: a DataFrame (``format="arrow"``: a pyarrow
    Table; ``"csv"``: the text). The keywords are the command's options (``warmup`` as
    ``--warmup``, ``min_change`` as ``--min-change``, ...; None leaves its default);
    ``args`` are more, as on the command line."""
    _check_format(format)
    argv = _options(args, [
        ("log_a", log_a), ("log_b", log_b), ("no_log", no_log), ("warmup", warmup),
        ("warmup_a", warmup_a), ("warmup_b", warmup_b), ("alpha", alpha),
        ("min_change", min_change), ("by_module", by_module), ("etrecord", etrecord),
        ("program", program),
    ])
    text = _cpuprof.compare_csv(os.fspath(a), os.fspath(b), argv)
    if format == "csv":
        return text
    if format == "arrow":
        import pyarrow.csv as pacsv

        return pacsv.read_csv(io.BytesIO(text.encode()))
    import pandas as pd

    return pd.read_csv(io.StringIO(text))


def fleet(paths, *args, key=None, by=None, order=None, min_change=None, alpha=None,
          warmup=None, no_log=False, jobs=None, etrecord=None, program=None, format="pandas"):
    """``cpuprof-tui fleet PATHS... --format csv``'s long table (one line per profile and
    row): a DataFrame (``format="arrow"``: a pyarrow Table built in Rust, typed as the
    Parquet file's; ``"csv"``: the text). ``key`` (``--key``, e.g. "{device}/{commit}/run-{n}.etdp"),
    ``by``, ``order``, ``min_change``, ``alpha``, ``warmup``, ``no_log``, ``jobs``,
    ``etrecord``, ``program`` are the command's options; ``args`` are more, as on the
    command line."""
    _check_format(format)
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    argv = _options(args, [
        ("key", key), ("by", by), ("order", order), ("min_change", min_change),
        ("alpha", alpha), ("warmup", warmup), ("no_log", no_log), ("jobs", jobs),
        ("etrecord", etrecord), ("program", program),
    ])
    paths = [os.fspath(x) for x in paths]
    if format == "arrow":
        import pyarrow as pa

        return pa.table(_cpuprof.fleet_table(paths, argv, True))
    text = _cpuprof.fleet_table(paths, argv, False)
    if format == "csv":
        return text
    import pandas as pd

    return pd.read_csv(io.StringIO(text))
