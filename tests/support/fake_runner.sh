#!/bin/sh
# A fake CpuBackend-style runner for the tests of `cpuprof-tui run` (POSIX sh).
#
# Like the real runner it writes its ET_LOG lines to standard error and its ETDump to
# $ET_CPU_ETDUMP (or to the path after --etdump_path, for runners told by argument).
# The dump and the log are copies of a fixture (default fixtures/cpu/mlp_basic.*, run
# from the crate's folder); the log's `Running W warm-up and T timed iteration(s).` line
# says $ET_CPU_WARMUP_RUNS / $ET_CPU_TIMED_RUNS when they are set.
#
# Options (any other argument is ignored, and listed in the log):
#   --etdump_path PATH   write the dump there instead of $ET_CPU_ETDUMP
#   --fixture STEM       fixtures/STEM.etdp and fixtures/STEM.log
#   --mode MODE          ok (default): log, dump, exit 0
#                        fail:N      log, an error line, no dump, exit N
#                        dumpfail:N  log, dump, exit N
#                        nodump      log, exit 0 without a dump
#                        partial     log, the first half of the dump, then die (SIGKILL)
#                        wait        log `waiting for a signal`, then wait; the signal
#                                    received is written to the --record file, then exit
#                                    128 + signal (after writing the dump)
#                        stubborn    as wait, but SIGINT is only recorded (appended to the
#                                    --record file); SIGTERM ends it (exit 143, no dump)
#                        stdout      ok, and a line on standard output
#   --record FILE        (wait) where the received signal's name goes
set -u
dump=${ET_CPU_ETDUMP:-}
fixture=cpu/mlp_basic
mode=ok
record=
others=
while [ $# -gt 0 ]; do
    case $1 in
    --etdump_path) dump=$2; shift 2 ;;
    --etdump_path=*) dump=${1#*=}; shift ;;
    --fixture) fixture=$2; shift 2 ;;
    --mode) mode=$2; shift 2 ;;
    --record) record=$2; shift 2 ;;
    *) others="$others [$1]"; shift ;;
    esac
done
here=$(dirname "$0")
fixtures=$here/../../fixtures
log=$fixtures/$fixture.log
src=$fixtures/$fixture.etdp

emit_log() {
    echo "I 00:00:00.000001 executorch:fake_runner.sh:1] args:$others" >&2
    if [ -n "${ET_CPU_WARMUP_RUNS:-}" ] || [ -n "${ET_CPU_TIMED_RUNS:-}" ]; then
        w=${ET_CPU_WARMUP_RUNS:-0}
        t=${ET_CPU_TIMED_RUNS:-1}
        sed "s/Running [0-9]* warm-up and [0-9]* timed/Running $w warm-up and $t timed/" "$log" >&2
    else
        cat "$log" >&2
    fi
}

write_dump() {
    if [ -z "$dump" ]; then
        echo "E 00:00:00.000002 executorch:fake_runner.sh:2] no ETDump path (ET_CPU_ETDUMP)" >&2
        exit 3
    fi
    cp "$src" "$dump"
}

case $mode in
ok)
    emit_log
    write_dump
    ;;
stdout)
    emit_log
    echo "fake runner: output on stdout"
    write_dump
    ;;
fail:*)
    emit_log
    echo "E 00:00:00.000003 executorch:fake_runner.sh:3] the model failed to load" >&2
    exit "${mode#fail:}"
    ;;
dumpfail:*)
    emit_log
    write_dump
    exit "${mode#dumpfail:}"
    ;;
nodump)
    emit_log
    ;;
partial)
    emit_log
    size=$(wc -c <"$src")
    head -c $((size / 2)) "$src" >"$dump"
    echo "E 00:00:00.000004 executorch:fake_runner.sh:4] dying half-way" >&2
    kill -KILL $$
    ;;
wait)
    emit_log
    got=
    trap 'got=INT' INT
    trap 'got=TERM' TERM
    trap 'got=HUP' HUP
    echo "I 00:00:00.000005 executorch:fake_runner.sh:5] waiting for a signal" >&2
    while [ -z "$got" ]; do
        sleep 0.05
    done
    [ -n "$record" ] && echo "$got" >"$record"
    write_dump
    case $got in
    INT) exit 130 ;;
    TERM) exit 143 ;;
    HUP) exit 129 ;;
    esac
    ;;
stubborn)
    emit_log
    trap 'echo INT >>"$record"' INT
    trap 'echo TERM >>"$record"; exit 143' TERM
    echo "I 00:00:00.000005 executorch:fake_runner.sh:5] waiting for a signal" >&2
    while :; do
        sleep 0.05
    done
    ;;
*)
    echo "fake_runner.sh: unknown mode $mode" >&2
    exit 64
    ;;
esac
exit 0
