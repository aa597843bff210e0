"""kryl solve under mpirun (2 ranks): a generated problem and a matrix file
read on rank 0, solved with each overlap mode, give the serial iteration
count and residual; the JSON reports every rank's rows and halo; the
solution file written by rank 0 matches the serial one; nodes emulated by
KRYL_NODE_SIZE give the same solve, and a malformed value is refused by name;
AMG-PCG over the ranks reports the global hierarchy and takes one rank's
iterations within 20%, and a malformed KRYL_AMG_AGGLOMERATE is refused by name;
under `mpirun -np 1` the run is a plain one (the same hierarchy and iterations);
a rank that the launcher bound to one core runs on its share of the host's cores."""

import json
import os
import re
import shutil
import subprocess
import sys

from clitest import Checks, Kryl, matrix_path, read_vector, temp_dir

RANKS = 2


def mpirun_command():
    """mpirun with the flags an oversubscribed (and possibly root) CI host needs."""
    exe = shutil.which("mpirun") or shutil.which("mpiexec")
    if exe is None:
        return None
    cmd = [exe]
    version = subprocess.run([exe, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             universal_newlines=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        cmd.append("--oversubscribe")
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
    return cmd + ["-np", str(RANKS)]


def run_mpi(mpirun, kryl, args, extra_env=None):
    """(exit status, JSON or None, output) of `mpirun -np 2 kryl ARGS --json`."""
    # MPI keeps allocations past MPI_Finalize: no leak report in sanitized builds
    asan = os.environ.get("ASAN_OPTIONS", "")
    env = dict(os.environ, OMP_WAIT_POLICY="passive", OMP_NUM_THREADS="1",
               ASAN_OPTIONS=(asan + ":" if asan else "") + "detect_leaks=0", **(extra_env or {}))
    p = subprocess.run(mpirun + [kryl.path] + [str(a) for a in args] + ["--json"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=600, env=env)
    try:
        obj = json.loads(p.stdout)
    except ValueError:
        obj = None
    return p.returncode, obj, p.stdout + p.stderr


def main():
    t = Checks("cli_test_dist_solve")
    kryl = Kryl(sys.argv[1])
    mpirun = mpirun_command()
    if mpirun is None:
        print("no mpirun, skipped")
        sys.exit(77)
    problem = ["--gen", "poisson2d", "--n", "40", "--method", "pcg", "--backend", "ref",
               "--rtol", "1e-10"]
    rc, serial, err = kryl.json("solve", *problem)
    t.check(rc == 0 and serial is not None, "serial generated solve", err)
    rc, obj, out = run_mpi(mpirun, kryl, ["solve"] + problem)
    if obj is not None and "ranks_count" not in obj:
        print("kryl built without MPI, skipped")
        sys.exit(77)
    for mode in ["vector", "naive", "task"]:
        rc, obj, out = run_mpi(mpirun, kryl, ["solve"] + problem + ["--overlap", mode])
        what = "mpirun -np %d kryl solve --gen poisson2d --overlap %s" % (RANKS, mode)
        if not t.check(rc == 0 and obj is not None, what + ": exit 0 with one JSON object", out):
            continue
        t.check(obj.get("converged") is True and obj.get("relres", 1) <= 1e-10,
                what + ": converged", str(obj))
        t.check(serial is not None and obj.get("iterations") == serial.get("iterations"),
                what + ": the serial iteration count %s" % (serial or {}).get("iterations"),
                str(obj.get("iterations")))
        ranks = obj.get("ranks", {})
        t.check(obj.get("ranks_count") == RANKS and len(ranks) == RANKS, what + ": ranks",
                str(ranks))
        rows = sum(r.get("rows", 0) for r in ranks.values())
        t.check(rows == obj.get("n"), what + ": the ranks' rows add up", "%d" % rows)
        t.check(all(r.get("ghosts", 0) > 0 for r in ranks.values()), what + ": halos", str(ranks))
        share = max(1, len(os.sched_getaffinity(0)) // RANKS)
        t.check(obj.get("cpus", 0) >= share, what + ": rank 0 runs on its share of the CPUs, %d"
                % share, str(obj.get("cpus")))
    for nodes in ["1", "2"]:
        rc, obj, out = run_mpi(mpirun, kryl, ["solve"] + problem, {"KRYL_NODE_SIZE": nodes})
        what = "KRYL_NODE_SIZE=%s mpirun -np %d kryl solve --gen poisson2d" % (nodes, RANKS)
        t.check(rc == 0 and obj is not None and obj.get("converged") is True and
                serial is not None and obj.get("iterations") == serial.get("iterations"),
                what + ": the serial iteration count", out)
    # the memory check of a generated problem asks each rank for its share only: a
    # limit of 3/4 of what the whole solve needs (from its refusal) lets 2 ranks solve
    big = ["solve", "--gen", "poisson3d", "--n", "60", "--backend", "ref", "--method", "cg",
           "--precond", "none"]
    rc, _, err = kryl.json(*big, env=dict(os.environ, KRYL_MAX_MEMORY="1M"))
    need = re.search(r"host memory \((\d+) bytes\)", err)
    if t.check(rc != 0 and need is not None, "a 1M limit refuses the serial solve, naming its need",
               err):
        whole = int(need.group(1))
        limit = {"KRYL_MAX_MEMORY": str(whole * 3 // 4)}
        rc, _, err = kryl.json(*big, env=dict(os.environ, **limit))
        t.check(rc != 0, "3/4 of the whole need refuses the serial solve", err)
        rc, obj, out = run_mpi(mpirun, kryl, big, limit)
        t.check(rc == 0 and obj is not None and obj.get("converged") is True,
                "mpirun -np 2 under 3/4 of the whole need: each rank's share fits", out)
    for bad in ["two", "0", "-1", "2x"]:
        rc, obj, out = run_mpi(mpirun, kryl, ["solve"] + problem, {"KRYL_NODE_SIZE": bad})
        t.check(rc != 0 and "KRYL_NODE_SIZE='%s'" % bad in out,
                "KRYL_NODE_SIZE=%s refused by name" % bad, out)
    # AMG over the ranks: the hierarchy's global rows, one rank's iterations within 20%
    amg = problem + ["--precond", "amg"]
    rc, one, err = kryl.json("solve", *amg)
    t.check(rc == 0 and one is not None, "serial AMG-PCG", err)
    rc, obj, out = run_mpi(mpirun, kryl, ["solve"] + amg)
    if t.check(rc == 0 and obj is not None and obj.get("converged") is True and one is not None,
               "mpirun -np 2 kryl solve --precond amg converges", out):
        t.check(obj["amg"]["level"]["0"]["rows"] == 1600 and obj["amg"]["levels"] >= 2,
                "AMG over 2 ranks reports the global levels", str(obj["amg"]))
        t.check(obj["iterations"] <= 1.2 * one["iterations"] + 1,
                "AMG over 2 ranks: %d iterations against %d on one" % (obj["iterations"],
                                                                        one["iterations"]))
    # one rank is one process: the plain run's hierarchy and iterations, no ranks reported
    rc, obj, out = run_mpi(mpirun[:-1] + ["1"], kryl, ["solve"] + amg)
    if t.check(rc == 0 and obj is not None and one is not None, "mpirun -np 1 kryl solve", out):
        t.check(obj["amg"] == dict(one["amg"], setup=obj["amg"]["setup"]) and
                obj["iterations"] == one["iterations"] and "ranks" not in obj,
                "mpirun -np 1: the plain run's hierarchy and iterations", out)
        # Open MPI binds one rank to one core: kryl takes the host's cores for its threads
        cpus = len(os.sched_getaffinity(0))
        t.check(obj.get("cpus") == cpus,
                "mpirun -np 1: the rank runs on all %d CPUs" % cpus, str(obj.get("cpus")))
    rc, obj, out = run_mpi(mpirun, kryl, ["solve"] + amg, {"KRYL_AMG_AGGLOMERATE": "x"})
    t.check(rc != 0 and "KRYL_AMG_AGGLOMERATE='x'" in out, "KRYL_AMG_AGGLOMERATE=x refused by name",
            out)
    path = matrix_path(sys.argv[2], "nos4.mtx")
    if path is None:
        t.skip("nos4.mtx absent")
    else:
        with temp_dir() as tmp:
            xs, xd = os.path.join(tmp, "xs.mtx"), os.path.join(tmp, "xd.mtx")
            rc, serial, err = kryl.json("solve", path, "--backend", "ref", "--rtol", "1e-12",
                                        "-o", xs)
            t.check(rc == 0, "serial nos4", err)
            for part in ["contiguous", "metis"]:
                rc, obj, out = run_mpi(mpirun, kryl, ["solve", path, "--backend", "ref",
                                                      "--rtol", "1e-12", "--partition", part,
                                                      "-o", xd])
                what = "mpirun kryl solve nos4.mtx --partition %s" % part
                if rc != 0 and "no METIS" in out:
                    t.skip(what + ": no METIS")
                    continue
                if not t.check(rc == 0 and obj is not None, what, out):
                    continue
                t.check(obj.get("converged") is True, what + ": converged", str(obj))
                a, b = read_vector(xs), read_vector(xd)
                diff = max(abs(p - q) for p, q in zip(a, b)) / max(1.0, max(abs(q) for q in a))
                t.check(len(a) == len(b) and diff < 1e-6,
                        what + ": the solution file matches the serial one", "diff %g" % diff)
    t.finish()


main()
