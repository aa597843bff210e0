"""The omp backend next to busy programs: CG and GMRES solves on an idle
machine, next to one and next to two busy processes (each a spinning Python
process this script starts and stops), with the OpenMP wait policy left to
kryl and with passive waits; prints the wall time of each run, the
slowdowns and the load average at each run's start.

    python3 bench/busy.py BUILD_DIR [--repeat 3] [--busy 0,1,2]

BUILD_DIR holds tools/kryl/kryl and bench/bench_cg_cpu.  Policies:
  default   OMP_WAIT_POLICY and GOMP_SPINCOUNT unset: what users get
            (the command: short spins; the library: a team no larger than
            the free cores);
  passive   OMP_WAIT_POLICY=passive: threads sleep at once when they wait;
  spin      GOMP_SPINCOUNT=300000: libgomp's own default spin without
            kryl's adaptation (what kryl did before it adapted).
Targets: default <= 1.5x passive under the same load, and default next to
one busy process <= 2x default on the idle machine.  Times are the median
of --repeat runs of the whole process.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

POLICIES = {
    "default": {},
    "passive": {"OMP_WAIT_POLICY": "passive"},
    "spin": {"GOMP_SPINCOUNT": "300000"},
}


def cases(build):
    kryl = os.path.join(build, "tools", "kryl", "kryl")
    cg_lib = os.path.join(build, "bench", "bench_cg_cpu")
    return [
        ("CG (kryl solve, poisson3d 40^3, jacobi)",
         [kryl, "solve", "--gen", "poisson3d", "--n", "40", "--method", "cg", "--precond",
          "jacobi"]),
        ("GMRES(40) (kryl solve, convdiff2d 150^2, jacobi, 300 it.)",
         [kryl, "solve", "--gen", "convdiff2d", "--n", "150", "--method", "gmres", "--precond",
          "jacobi", "--maxit", "300"]),
        ("CG (library: bench_cg_cpu 40 2 1)", [cg_lib, "40", "2", "1"]),
    ]


def environment(policy):
    env = dict(os.environ)
    env.pop("OMP_WAIT_POLICY", None)
    env.pop("GOMP_SPINCOUNT", None)
    env.update(POLICIES[policy])
    return env


def timed(cmd, env):
    """Wall seconds of one run and the 1-minute load average at its start."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=600)
    return time.perf_counter() - t0, load


def spinners(count):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def stop(procs):
    for p in procs:
        p.kill()
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--busy", default="0,1,2", help="busy process counts to run next to")
    args = ap.parse_args()
    busy_counts = [int(b) for b in args.busy.split(",")]
    results = {}  # (case, busy, policy) -> (median seconds, mean load)
    for busy in busy_counts:
        procs = spinners(busy)
        try:
            time.sleep(0.5)  # let the spinners settle on the cores
            for name, cmd in cases(args.build):
                for policy in POLICIES:
                    runs = [timed(cmd, environment(policy)) for _ in range(args.repeat)]
                    results[(name, busy, policy)] = (statistics.median(r[0] for r in runs),
                                                     statistics.mean(r[1] for r in runs))
        finally:
            stop(procs)
    print("| case | busy | load | default s | passive s | spin s | default/passive "
          "| default/idle |")
    print("|---|---|---|---|---|---|---|---|")
    for name, _ in cases(args.build):
        for busy in busy_counts:
            d, load = results[(name, busy, "default")]
            p = results[(name, busy, "passive")][0]
            s = results[(name, busy, "spin")][0]
            idle = results.get((name, 0, "default"), (None, 0))[0]
            ratio_idle = "%.2f" % (d / idle) if idle else ""
            print("| %s | %d | %.1f | %.3f | %.3f | %.3f | %.2f | %s |" %
                  (name, busy, load, d, p, s, d / p, ratio_idle))


if __name__ == "__main__":
    main()
