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
import tempfile

from . import _cpuprof

Error = _cpuprof.Error

__all__ = ["Error", "Profile", "load", "compare", "fleet"]


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
        """One row per event (the Inspector's ``to_dataframe()`` columns: event_block_name,
        event_name, raw, p10, p50, p90, avg, min, max, op_types, delegate_debug_identifier,
        stack_traces, module_hierarchy, is_delegated_op, delegate_backend_name), then ours:
        instruction_id, delegate, step, shapes, flops, bytes, module, source_line. Times in ms."""
        import pandas as pd

        df = pd.DataFrame(self._loaded.columns())
        df["instruction_id"] = df["instruction_id"].astype("Int64")
        return df

    def to_arrow(self):
        """``to_dataframe()`` as a pyarrow Table."""
        import pyarrow as pa

        return pa.Table.from_pandas(self.to_dataframe(), preserve_index=False)

    def __repr__(self):
        return "<cpuprof.Profile {}>".format(self.kind)


def load(path, log=None, warmup="log", etrecord=None, program=None):
    """Load an ETDump (runner log beside it unless ``log`` names one; ``warmup`` as
    ``--warmup``: a count, "auto" or "log"; model files as ``--etrecord``/``--program``)
    or a PyTorch trace. Raises ``cpuprof.Error`` with the command's one-line message."""
    p = os.fspath
    return Profile(
        _cpuprof.load(
            p(path),
            None if log is None else p(log),
            str(warmup),
            None if etrecord is None else p(etrecord),
            None if program is None else p(program),
        )
    )


def compare(a, b, *args):
    """``cpuprof-tui compare A B --format csv`` as a DataFrame (``args``: more options)."""
    import pandas as pd

    text = _cpuprof.compare_csv(os.fspath(a), os.fspath(b), [str(x) for x in args])
    return pd.read_csv(io.StringIO(text))


def fleet(paths, *args):
    """``cpuprof-tui fleet PATHS... --format csv`` as a DataFrame."""
    import pandas as pd

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "fleet.csv")
        _cpuprof.fleet_csv([os.fspath(x) for x in paths], out, [str(x) for x in args])
        return pd.read_csv(out)
