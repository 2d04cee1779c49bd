#!/usr/bin/env python3
"""Run fixtures/gen_cpu_fixtures.py where executorch is installed without torch.

The generator writes ETDumps with executorch's ETDump dataclasses, JSON encoder and
bundled flatc only; the package `__init__`s of `executorch.devtools` and
`executorch.exir` import torch (the Inspector, export). Their modules are registered
here without running those `__init__`s, then the generator runs unchanged:

    python scripts/gen_without_torch.py fixtures/gen_cpu_fixtures.py ARGS...

Checked: `--model mlp --warmup 3 --timed 20 --seed 11 --name mlp_basic` gives
fixtures/cpu/mlp_basic.etdp and .log byte for byte.
"""
import importlib.util
import os
import runpy
import sys

base = list(importlib.util.find_spec("executorch").submodule_search_locations)[0]
for name in ("executorch.devtools", "executorch.exir", "executorch.exir._serialize"):
    path = os.path.join(base, *name.split(".")[1:])
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(path, "__init__.py"), submodule_search_locations=[path])
    sys.modules[name] = importlib.util.module_from_spec(spec)
gen = sys.argv[1]
sys.argv = [gen] + sys.argv[2:]
runpy.run_path(gen, run_name="__main__")
