#!/bin/sh
# Byte-for-byte comparison of `report` outputs of two binaries on every ETDump fixture
# (and any extra dumps given), in several formats and settings:
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
for dump in $(find fixtures -name '*.etdp' | sort) "$@"; do
  for args in "--format json" "--format table" "--format csv" "--format json --warmup auto" \
              "--format json --warmup 1 --no-log" "--format json --time-unit us" \
              "--format table --time-unit cycles:2.4GHz"; do
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
echo "$n outputs compared, $bad different"
[ $bad = 0 ]
