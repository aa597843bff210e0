"""The omp backend next to busy programs: CG and GMRES solves on an idle
machine, next to one and next to two busy processes (each a spinning Python
process this script starts and stops), with the OpenMP wait policy left to
kryl and with passive waits; prints the wall time of each run, the
slowdowns and the load average at each run's start.  With --petsc, PETSc's
CG (bench/petsc_cg.c, the same 40^3 problem on 2 MPI ranks) is the anchor
under the same load: its solve time as it reports it.

    python3 bench/busy.py BUILD_DIR [--repeat 3] [--busy 0,1,2] [--petsc PETSC_CG]

BUILD_DIR holds tools/kryl/kryl and bench/bench_cg_cpu; PETSC_CG is
petsc_cg built as bench/cpu-vs-petsc builds it.  Policies:
  default   OMP_WAIT_POLICY and GOMP_SPINCOUNT unset: what users get
            (the command: passive waits after a short spin, and a team
            suited to the free cores; the library: libgomp's spin and the
            team suited to the free cores);
  passive   OMP_WAIT_POLICY=passive: threads sleep at once when they wait;
  spin      GOMP_SPINCOUNT=300000: libgomp's own default spin without
            kryl's adaptation (what kryl did before it adapted).
Targets: default within 10% of spin on the idle machine, default <= 1.5x
passive under the same load, and default next to one busy process <= 2x
default on the idle machine.  Times are the median of --repeat runs of
the whole process, the policies taking turns.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import threading
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
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # a blocking wait: Popen.wait(timeout) polls in sleeps of up to 50 ms,
    # which rounded every time up to the next 50 ms; a timer kills a hung run
    watchdog = threading.Timer(600, proc.kill)
    watchdog.start()
    proc.wait()
    seconds = time.perf_counter() - t0
    watchdog.cancel()
    return seconds, load


def petsc_solve(petsc_cg):
    """Seconds of one KSPSolve of PETSc's CG on 2 ranks, as it reports them."""
    cmd = ["mpirun", "--oversubscribe", "-np", "2", petsc_cg, "-n", "40", "-solves", "1"]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600).stdout
    found = re.search(r"iterations \([A-Z_]+\), ([0-9.]+) s", out)
    return float(found.group(1)) if found else float("nan")


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
    ap.add_argument("--petsc", help="petsc_cg (bench/petsc_cg.c) to run as the anchor")
    args = ap.parse_args()
    busy_counts = [int(b) for b in args.busy.split(",")]
    results = {}  # (case, busy, policy) -> (median seconds, mean load)
    petsc = {}  # busy -> median seconds of PETSc's solve
    for busy in busy_counts:
        procs = spinners(busy)
        try:
            time.sleep(0.5)  # let the spinners settle on the cores
            for name, cmd in cases(args.build):
                # the policies in turn, so that a change of the machine's load
                # falls on all of them alike
                runs = {policy: [] for policy in POLICIES}
                for _ in range(args.repeat):
                    for policy in POLICIES:
                        runs[policy].append(timed(cmd, environment(policy)))
                for policy in POLICIES:
                    results[(name, busy, policy)] = (
                        statistics.median(r[0] for r in runs[policy]),
                        statistics.mean(r[1] for r in runs[policy]))
            if args.petsc:
                petsc[busy] = statistics.median(petsc_solve(args.petsc)
                                                for _ in range(args.repeat))
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
    if petsc:
        print("\n| PETSc CG (petsc_cg -n 40, 2 MPI ranks, KSPSolve s) | busy | s | /idle |")
        print("|---|---|---|---|")
        for busy in busy_counts:
            idle = petsc.get(0)
            print("| | %d | %.3f | %s |" % (busy, petsc[busy],
                                          "%.2f" % (petsc[busy] / idle) if idle else ""))


if __name__ == "__main__":
    main()
