#!/bin/sh
# Regenerates fixtures/fleet/ (the fleets of tests/it/fleet_cli.rs) with the shared CpuBackend
# generator (fixtures/gen_cpu_fixtures.py, executorch 1.5.1):
#   PYTHON=/work/venv/bin/python scripts/make_fleet_fixtures.sh
# What was injected where is written to fixtures/fleet/truth.json by this script.
set -eu
PY=${PYTHON:-python3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/fixtures/fleet"
GEN="$ROOT/fixtures/gen_cpu_fixtures.py"
# executorch without torch (its package __init__s import it): scripts/gen_without_torch.py.
if "$PY" -c 'import executorch.exir' 2>/dev/null; then RUN="$GEN"; else RUN="$ROOT/scripts/gen_without_torch.py $GEN"; fi
rm -rf "$OUT/devices" "$OUT/commits" "$OUT/null"
gen() { # DIR NAME SEED [--slow ...]
    dir=$1; name=$2; seed=$3; shift 3
    mkdir -p "$dir"
    # shellcheck disable=SC2086
    "$PY" $RUN --model mlp --warmup 3 --timed 20 --seed "$seed" --out "$dir" --name "$name" "$@" >/dev/null
    rm -f "$dir/$name.truth.json"
}
# 1. Twelve devices, one run each; dev07 runs `Fully Connected (NC, F32) GEMM #2` 1.5x slower.
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do
    if [ "$i" = 07 ]; then
        gen "$OUT/devices/dev$i/c1" run-1 "10$i" --slow "0:Fully Connected (NC, F32) GEMM #2:1.5"
    else
        gen "$OUT/devices/dev$i/c1" run-1 "10$i"
    fi
done
printf '{"soc": "tensor-g2", "os": 14}\n' > "$OUT/devices/dev01/c1/run-1.meta.json"
printf '{"soc": "snapdragon-8", "os": 13}\n' > "$OUT/devices/dev07/c1/run-1.meta.json"
# 2. Two devices over ten commits c1..c10; on device `a`, `Fully Connected (NC, F32) GEMM #1`
#    is 1.3x slower from commit c7 on; device `b` never changes.
for c in 1 2 3 4 5 6 7 8 9 10; do
    if [ "$c" -ge 7 ]; then
        gen "$OUT/commits/a/c$c" run-1 "20$c" --slow "0:Fully Connected (NC, F32) GEMM #1:1.3"
    else
        gen "$OUT/commits/a/c$c" run-1 "20$c"
    fi
    gen "$OUT/commits/b/c$c" run-1 "21$c"
done
# 3. A null fleet: forty profiles of one model, nothing injected.
for i in $(seq -w 1 40); do
    gen "$OUT/null" "n$i" "30$i"
done
cat > "$OUT/truth.json" <<'JSON'
{
  "made_by": "scripts/make_fleet_fixtures.sh",
  "generator": "fixtures/gen_cpu_fixtures.py --model mlp --warmup 3 --timed 20",
  "devices": {
    "layout": "{device}/{commit}/run-{n}.etdp",
    "profiles": 12,
    "outlier": {"device": "dev07", "id": "dev07/c1/run-1.etdp", "delegate": 0, "row": "Fully Connected (NC, F32) GEMM #2", "factor": 1.5},
    "sidecars": {"dev01/c1/run-1.etdp": {"soc": "tensor-g2", "os": 14}, "dev07/c1/run-1.etdp": {"soc": "snapdragon-8", "os": 13}}
  },
  "commits": {
    "layout": "{device}/{commit}/run-{n}.etdp",
    "profiles": 20,
    "change": {"device": "a", "from_commit": "c7", "at": "a/c7/run-1.etdp", "delegate": 0, "row": "Fully Connected (NC, F32) GEMM #1", "factor": 1.3},
    "unchanged_device": "b"
  },
  "null": {"profiles": 40, "injected": null}
}
JSON
