#!/usr/bin/env python3
"""Makes fixtures/fleet/farm_null/ and fixtures/fleet/farm_regress/ (tests/it/fleet_trend.rs):
four devices dev1..dev4 x ten commits c01..c10, one profile each, with the shared
CpuBackend generator (fixtures/gen_cpu_fixtures.py, executorch 1.5.1), imported once:

    /work/venv/bin/python scripts/make_fleet_farm.py

In both farms dev2 runs `Fully Connected (NC, F32) GEMM #1` 1.6x slower at every commit
(a device effect, no commit effect). In farm_regress, `Fully Connected (NC, F32) GEMM #2`
is 1.3x slower on every device from commit c07 on. What was injected is written to
fixtures/fleet/farm_truth.json.
"""
import importlib.util
import json
import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fixtures", "fleet")
spec = importlib.util.spec_from_file_location("gen", os.path.join(ROOT, "fixtures", "gen_cpu_fixtures.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

DEVICE = "Fully Connected (NC, F32) GEMM #1"
CHANGE = "Fully Connected (NC, F32) GEMM #2"
DEVICES = [f"dev{d}" for d in range(1, 5)]
COMMITS = [f"c{c:02}" for c in range(1, 11)]


def make(farm: str, seed0: int, regress: bool):
    shutil.rmtree(os.path.join(OUT, farm), ignore_errors=True)
    for d, dev in enumerate(DEVICES, 1):
        for c, commit in enumerate(COMMITS, 1):
            out = os.path.join(OUT, farm, dev, commit)
            os.makedirs(out)
            args = ["--model", "mlp", "--warmup", "2", "--timed", "10",
                    "--seed", str(seed0 + 100 * d + c), "--out", out, "--name", "run-1"]
            if dev == "dev2":
                args += ["--slow", f"0:{DEVICE}:1.6"]
            if regress and c >= 7:
                args += ["--slow", f"0:{CHANGE}:1.3"]
            assert gen.main(args) == 0
            os.remove(os.path.join(out, "run-1.truth.json"))


make("farm_null", 40000, False)
make("farm_regress", 50000, True)
truth = {
    "made_by": "scripts/make_fleet_farm.py",
    "generator": "fixtures/gen_cpu_fixtures.py --model mlp --warmup 2 --timed 10",
    "layout": "{device}/{commit}/run-{n}.etdp",
    "devices": DEVICES,
    "commits": COMMITS,
    "device_effect": {"device": "dev2", "delegate": 0, "row": DEVICE, "factor": 1.6},
    "farm_null": {"profiles": 40, "change": None},
    "farm_regress": {"profiles": 40,
                     "change": {"from_commit": "c07", "delegate": 0, "row": CHANGE, "factor": 1.3}},
}
with open(os.path.join(OUT, "farm_truth.json"), "w") as f:
    json.dump(truth, f, indent=2)
    f.write("\n")
