#!/bin/sh
# Byte-for-byte comparison of `report` outputs of two binaries on every ETDump fixture
# (and any extra dumps given), in several formats and settings (`--by-module` too); then on every PyTorch
# trace fixture (Chrome JSON, THAPI text, CTF directories) in each format, with
# `--self-time`, `--python-frames` and `--per host|process|thread`, and on traces read
# together (`report A B C --per ...`):
#   scripts/compare-report-outputs.sh OLD_BINARY NEW_BINARY [EXTRA.etdp ...]
# Prints one line per difference and the number of outputs compared; exits 1 on a
# difference.
set -u
old=$1 new=$2
shift 2
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
# One output of both binaries: `same ARGS...`.
same() {
  "$old" report "$@" >"$tmp/old" 2>"$tmp/old.err"; o=$?
  "$new" report "$@" >"$tmp/new" 2>"$tmp/new.err"; s=$?
  n=$((n + 1))
  if [ $o != $s ] || ! cmp -s "$tmp/old" "$tmp/new" || ! cmp -s "$tmp/old.err" "$tmp/new.err"; then
    echo "DIFFERENT: $* (exit $o vs $s)"
    bad=$((bad + 1))
  fi
}
for dump in $(find fixtures -name '*.etdp' | sort) "$@"; do
  for args in "--format json" "--format table" "--format csv" "--format json --warmup auto" \
              "--format json --warmup 1 --no-log" "--format json --time-unit us" \
              "--format table --time-unit cycles:2.4GHz" "--format table --by-module" \
              "--format csv --by-module"; do
    # shellcheck disable=SC2086
    "$old" report $args "$dump" >"$tmp/old" 2>"$tmp/old.err"; o=$?
    # shellcheck disable=SC2086
    "$new" report $args "$dump" >"$tmp/new" 2>"$tmp/new.err"; s=$?
    n=$((n + 1))
    if [ $o != $s ] || ! cmp -s "$tmp/old" "$tmp/new" || ! cmp -s "$tmp/old.err" "$tmp/new.err"; then
      echo "DIFFERENT: $dump $args (exit $o vs $s)"
      bad=$((bad + 1))
    fi
  done
done
# Traces: every trace fixture the old binary reads, and the CTF directories.
traces=$(find fixtures -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.txt' \) \
  ! -name '*key_averages*' ! -name '*truth*' ! -name '*summary*' | sort |
  while read -r f; do "$old" report --format csv "$f" >/dev/null 2>&1 && echo "$f"; done)
for trace in $traces fixtures/thapi/ctf fixtures/thapi/ctf-rich/trace; do
  for args in "--format json" "--format table" "--format tally" "--format csv" \
              "--format tally --self-time" "--format json --python-frames" \
              "--format table --python-frames" \
              "--format json --per host" "--format tally --per process" \
              "--format json --per thread" "--format table --per thread --self-time"; do
    # shellcheck disable=SC2086
    same $args "$trace"
  done
done
# Several traces read as one (one per rank), cut per host, process and thread.
for set in "fixtures/compare/trace3_a.json fixtures/compare/trace3_b.json fixtures/compare/trace_a.json" \
           "fixtures/torch/hta/ns_resolution_40ms.json.gz fixtures/torch/hta/rank_non_gpu.json.gz" \
           "fixtures/torch/wild/tb/worker0.cycle1.pt.trace.json.gz fixtures/torch/wild/tb/worker0.cycle2.pt.trace.json.gz fixtures/torch/wild/threads.json"; do
  for args in "--format json" "--format tally" "--format csv" "--format json --per host" \
              "--format tally --per host" "--format json --per process" \
              "--format tally --per thread --self-time" "--format json --per thread" \
              "--format table --per thread"; do
    # shellcheck disable=SC2086
    same $args $set
  done
done
echo "$n outputs compared, $bad different"
[ $bad = 0 ]
