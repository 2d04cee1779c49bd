"""Time commands against each other, interleaved: each round runs every command once,
in turn, so that a slow spell of a shared machine falls on all of them alike. Prints,
per command, the min and median wall time and CPU time (user + system of the child)
over the rounds. Output of the commands goes to /dev/null.

    python scripts/ab_time.py [-n ROUNDS] CMD [CMD ...]

Each CMD is one string, split as a shell would (no shell is run), e.g.

    python scripts/ab_time.py -n 25 \\
        "/tmp/old/cpuprof-tui report --format tally /tmp/ctf-1000000" \\
        "target/release/cpuprof-tui report --format tally /tmp/ctf-1000000" \\
        "babeltrace2 /tmp/ctf-1000000"
"""

import argparse
import resource
import shlex
import statistics
import subprocess
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=15, help="rounds [default: 15]")
    ap.add_argument("commands", nargs="+", help="commands, one string each")
    args = ap.parse_args()
    cmds = [shlex.split(c) for c in args.commands]
    walls = [[] for _ in cmds]
    cpus = [[] for _ in cmds]
    for _ in range(args.n):
        for k, cmd in enumerate(cmds):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            walls[k].append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[k].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{args.n} rounds, load average {load}")
    for cmd, w, c in zip(args.commands, walls, cpus):
        print(
            f"  wall min {min(w) * 1e3:9.2f} med {statistics.median(w) * 1e3:9.2f} ms"
            f" | cpu min {min(c) * 1e3:9.2f} med {statistics.median(c) * 1e3:9.2f} ms  {cmd}"
        )


if __name__ == "__main__":
    main()
