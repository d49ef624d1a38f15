"""cpu_by_command.py - where a long run's CPU goes, by command: every
process's user and system time (/proc/PID/stat), sampled every
INTERVAL_S until SIGTERM or SIGINT, then summed by kind and written as
JSON ({kind: [cpu_s, processes]}) and printed, largest first.

Kinds: "compile:NAME" for the compilers and linkers, "py:worker" for
replay/worker.py and every process forked from it (fork servers, job
children, judges, candidate processes), "py:SCRIPT.py" for other Python
scripts, else the command's name.  A process is read for the last time
at the sample before it ends, so each one's last INTERVAL_S and
processes shorter than that are missed.  A benchmark, not a test.

    python3 tests/bench/cpu_by_command.py OUT.json & pid=$!
    make check ...; kill $pid; wait $pid"""
import json
import os
import signal
import sys
import time

INTERVAL_S = 0.5
COMPILERS = {"cc1plus", "cc1", "as", "ld", "collect2", "nvcc", "cicc", "ptxas", "g++", "gcc",
             "c++", "ninja", "cudafe++", "fatbinary", "nvlink"}
TICK = os.sysconf("SC_CLK_TCK")


def kind(pid, comm):
    if comm in COMPILERS or comm.startswith("x86_64-linux-gnu-"):
        return "compile:" + comm
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            argv = [a.decode(errors="replace") for a in f.read().split(b"\0")[:4]]
    except OSError:
        argv = []
    if any(a.endswith("worker.py") for a in argv):
        return "py:worker"
    if "python" in comm or any("python" in a for a in argv[:1]):
        for a in argv[1:]:
            if a.endswith(".py"):
                return "py:" + os.path.basename(a)
        return "py:other"
    return comm


def sample(seen):
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                raw = f.read()
        except OSError:
            continue
        comm = raw[raw.index("(") + 1:raw.rindex(")")]
        fields = raw[raw.rindex(")") + 2:].split()
        key = (pid, fields[19])             # pid and start time: a process
        cpu = (int(fields[11]) + int(fields[12])) / TICK
        if key in seen:
            seen[key][1] = cpu
        else:
            seen[key] = [kind(pid, comm), cpu]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: cpu_by_command.py OUT.json")
    stop = []
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, lambda *_: stop.append(1))
    seen = {}
    while not stop:
        sample(seen)
        time.sleep(INTERVAL_S)
    agg = {}
    for k, cpu in seen.values():
        a = agg.setdefault(k, [0.0, 0])
        a[0] += cpu
        a[1] += 1
    with open(sys.argv[1], "w") as f:
        json.dump(agg, f, indent=0)
    total = sum(v[0] for v in agg.values())
    print("%.0f CPU-s in all" % total)
    for k, (cpu, n) in sorted(agg.items(), key=lambda kv: -kv[1][0])[:25]:
        print("%9.1f s %6d  %s" % (cpu, n, k))


if __name__ == "__main__":
    main()
