#!/usr/bin/env python3
"""Runs one command of the benchmark and reports what it cost, as KEY=VALUE words on one line
(appended to bench/work/runs.txt by run.sh):

  rc               the command's exit status
  process_wall_s   wall time of the whole process (start-up, reading the bed, both runs)
  cpu_s            user + system CPU time of the command and every process under it (mpirun's
                   ranks included: RUSAGE_CHILDREN accumulates the waited-for descendants)
  maxrss_kb        the largest resident set of any one of those processes (one rank), kB
  foreign_cores    CPU used by OTHER processes during the run, in cores: (busy time of the
                   whole machine from /proc/stat - cpu_s) / wall; as foreign_cores of the
                   peers' run_bench.sh (0 = a quiet machine, 1 = another job held one core)

usage: measure.py [--stdout FILE] -- COMMAND ARGS...   (stdout and stderr of the command go to
FILE, default /dev/null); exits with the command's status."""
import os
import resource
import subprocess
import sys
import time


def busy_seconds():
    with open("/proc/stat") as f:
        for ln in f:
            if ln.startswith("cpu "):
                v = [int(x) for x in ln.split()[1:]]
                # user nice system (idle iowait) irq softirq steal
                return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")
    return 0.0


def main():
    args = sys.argv[1:]
    out = os.devnull
    if args[:1] == ["--stdout"]:
        out, args = args[1], args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    b0, t0 = busy_seconds(), time.monotonic()
    with open(out, "w") as f:
        rc = subprocess.call(args, stdout=f, stderr=subprocess.STDOUT)
    t1, b1 = time.monotonic(), busy_seconds()
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = t1 - t0
    cpu = ru.ru_utime + ru.ru_stime
    foreign = max((b1 - b0) - cpu, 0.0) / wall if wall > 0 else 0.0
    print("rc=%d process_wall_s=%.3f cpu_s=%.3f maxrss_kb=%d foreign_cores=%.3f"
          % (rc, wall, cpu, ru.ru_maxrss, foreign))
    sys.exit(rc)


main()
