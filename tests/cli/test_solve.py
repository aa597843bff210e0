"""kryl solve and kryl demo: convergence on generated and real SPD matrices
on every usable backend, the JSON report, the solution and history files
(the residual recomputed here from the written x), and non-convergence."""

import csv
import os

from clitest import (Checks, arguments, matrix_path, read_mtx, read_vector, relres, spmv,
                     temp_dir, write_vector)

KEYS = ["n", "nnz", "method", "precond", "backend", "device", "precision", "iterations",
        "relres", "relres_recursive", "reason", "converged", "time_s", "setup_s", "solve_s",
        "read_s", "rtol", "atol", "maxit"]
SPD = ["bcsstk06.mtx", "nos4.mtx", "494_bus.mtx", "lund_a.mtx", "1138_bus.mtx"]


def check_converged(t, what, rc, obj, err, rtol):
    """The exit status and JSON of a solve that must converge."""
    if not t.check(rc == 0 and obj is not None, "%s: exit 0 with JSON" % what,
                   "exit %d\n%s" % (rc, err)):
        return False
    missing = [k for k in KEYS if k not in obj]
    t.check(not missing, "%s: keys present" % what, "missing %s" % missing)
    t.check(obj.get("converged") is True, "%s: converged" % what, str(obj))
    t.check(obj.get("relres") is not None and obj["relres"] <= rtol,
            "%s: true relres %s <= rtol %g" % (what, obj.get("relres"), rtol))
    t.check(str(obj.get("reason", "")).startswith("converged"), "%s: reason %s" %
            (what, obj.get("reason")))
    t.check(isinstance(obj.get("iterations"), int) and obj["iterations"] > 0,
            "%s: iterations %s > 0" % (what, obj.get("iterations")))
    t.check(obj.get("time_s", -1) >= obj.get("solve_s", 0) >= 0, "%s: times" % what)
    return True


def test_wait_policy(t, kryl, a):
    """Without a wait policy in the environment the command starts itself
    again with passive waits after a short spin and lets the library suit
    its team to the free cores; a policy the user set is kept, and the
    thread count asked for with it, as are threads bound to places."""
    bare = {k: v for k, v in os.environ.items()
            if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KRYL_OMP_ADAPT",
                         "OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY")}
    adapts = "OpenMP, 2 threads (the team follows the cores other programs leave free)"
    for what, env, device in [("no policy set", bare, adapts),
                              ("active set", dict(bare, OMP_WAIT_POLICY="active"),
                               "OpenMP, 2 threads"),
                              ("threads bound", dict(bare, OMP_PROC_BIND="close"),
                               "OpenMP, 2 threads"),
                              ("binding off", dict(bare, OMP_PROC_BIND="false"), adapts)]:
        rc, obj, err = kryl.json("solve", a, "--backend", "omp", "--threads", 2, env=env)
        if check_converged(t, "omp, %s" % what, rc, obj, err, 1e-8):
            t.check(obj["device"] == device, "omp, %s: %s" % (what, device), obj["device"])


def usable_backends(t, kryl, matrix):
    """The backends `kryl solve --backend X` accepts; cuda may be unavailable."""
    usable = []
    for backend in ["ref", "omp", "cuda", "auto"]:
        rc, obj, err = kryl.json("solve", matrix, "--backend", backend)
        if rc == 1 and "unavailable" in err:
            t.skip("backend %s unavailable here" % backend)
            continue
        if check_converged(t, "backend %s" % backend, rc, obj, err, 1e-8):
            if backend != "auto":
                t.check(obj["backend"] == backend, "backend %s reported as %s" %
                        (backend, obj["backend"]))
            usable.append(backend)
    return usable


def test_generated(t, kryl, tmp, backends):
    """Methods, preconditioners, precisions and options on a generated Laplacian."""
    a = os.path.join(tmp, "poisson2d.mtx")
    rc, _, err = kryl.run("gen", "poisson2d", "--n", 20, "-o", a)
    t.check(rc == 0, "gen poisson2d", err)
    for backend in backends:
        for method, precond in [("cg", "none"), ("cg", "jacobi"), ("pcg", "jacobi")]:
            what = "%s %s+%s" % (backend, method, precond)
            rc, obj, err = kryl.json("solve", a, "--backend", backend, "--method", method,
                                     "--precond", precond)
            if check_converged(t, what, rc, obj, err, 1e-8):
                t.check(obj["method"] == method and obj["precond"] == precond,
                        "%s: reported as %s+%s" % (what, obj["method"], obj["precond"]))
        what = "%s single precision" % backend
        rc, obj, err = kryl.json("solve", a, "--backend", backend, "--precision", "single",
                                 "--rtol", "1e-5")
        if check_converged(t, what, rc, obj, err, 1e-5):
            t.check(obj["precision"] == "single", "%s: reported" % what)
        what = "%s check interval 7, atol" % backend
        rc, obj, err = kryl.json("solve", a, "--backend", backend, "--check-interval", 7,
                                 "--rtol", "1e-10", "--atol", "0")
        check_converged(t, what, rc, obj, err, 1e-10)
    if "omp" in backends:
        rc, obj, err = kryl.json("solve", a, "--backend", "omp", "--threads", 1)
        check_converged(t, "omp --threads 1", rc, obj, err, 1e-8)
        test_wait_policy(t, kryl, a)
    # pcg with no preconditioner is cg: run as cg, with a note (test_option_defaults.py)
    rc, _, err = kryl.run("solve", a, "--backend", "ref", "--method", "pcg", "--precond", "none")
    t.check(rc == 0 and "running --method cg" in err, "pcg+none runs cg, saying so", err)
    # pcg defaults to Jacobi, cg to none
    rc, obj, err = kryl.json("solve", a, "--backend", "ref", "--method", "pcg")
    t.check(obj is not None and obj.get("precond") == "jacobi", "pcg default precond jacobi")
    rc, obj, err = kryl.json("solve", a, "--backend", "ref", "--method", "cg")
    t.check(obj is not None and obj.get("precond") == "none", "cg default precond none")
    # each mixed scheme reaches 1e-12, reliable with its own default refresh drop
    for scheme, inner_rtol in [("ir", 1e-6), ("inner-outer", 1e-6), ("reliable", 1e-2)]:
        what = "--mixed %s" % scheme
        rc, obj, err = kryl.json("solve", a, "--backend", "ref", "--mixed", scheme, "--rtol",
                                 "1e-12")
        if check_converged(t, what, rc, obj, err, 1e-12):
            t.check(obj.get("inner_rtol") == inner_rtol, "%s: inner_rtol %s" %
                    (what, obj.get("inner_rtol")))
    rc, obj, err = kryl.json("solve", a, "--backend", "ref", "--profile")
    t.check(obj is not None and isinstance(obj.get("profile"), dict) and
            "spmv_s" in obj["profile"] and "iteration_s" in obj["profile"],
            "--profile adds the phase breakdown", str(obj))


def test_real(t, kryl, matrices, backends):
    """The real SPD matrices converge with PCG on every backend."""
    for name in SPD:
        path = matrix_path(matrices, name)
        if path is None:
            t.skip("%s absent" % name)
            continue
        for backend in backends:
            rc, obj, err = kryl.json("solve", path, "--backend", backend, "--method", "pcg")
            check_converged(t, "%s on %s" % (name, backend), rc, obj, err, 1e-8)


def test_files(t, kryl, matrices, tmp, backends):
    """--out, --history, --rhs and --x0: files parse, x solves A x = b."""
    path = matrix_path(matrices, "nos4.mtx")
    if path is None:
        path = os.path.join(tmp, "files.mtx")
        kryl.run("gen", "poisson2d", "--n", 10, "-o", path)
    nrows, _, entries = read_mtx(path)
    ones = [1.0] * nrows
    for backend in backends:
        x_path = os.path.join(tmp, "x_%s.mtx" % backend)
        h_path = os.path.join(tmp, "h_%s.csv" % backend)
        rc, obj, err = kryl.json("solve", path, "--backend", backend, "--out", x_path,
                                 "--history", h_path)
        if not check_converged(t, "files on %s" % backend, rc, obj, err, 1e-8):
            continue
        x = read_vector(x_path)
        t.check(len(x) == nrows, "%s: x has %d entries" % (backend, len(x)))
        b = spmv(nrows, entries, ones)
        r = relres(nrows, entries, b, x)
        t.check(r <= 1.05e-8, "%s: ||b - A x||/||b|| = %.3g recomputed from --out" % (backend, r))
        t.check(abs(r - obj["relres"]) <= 1e-3 * obj["relres"] + 1e-15,
                "%s: recomputed relres %.6g matches reported %.6g" % (backend, r, obj["relres"]))
        with open(h_path) as f:
            rows = list(csv.reader(f))
        t.check(rows and rows[0] == ["iteration", "residual_norm", "relative_residual"],
                "%s: history header" % backend, str(rows[:1]))
        t.check(len(rows) - 1 == obj["iterations"] + 1,
                "%s: history has iterations + 1 = %d rows" % (backend, obj["iterations"] + 1),
                "found %d" % (len(rows) - 1))
        if len(rows) > 2:
            last = [float(v) for v in rows[-1]]
            t.check(int(last[0]) == len(rows) - 2 and abs(float(rows[1][2]) - 1.0) < 1e-12,
                    "%s: history numbering and relative_residual[0] = 1" % backend,
                    str(rows[1]) + " " + str(rows[-1]))
            t.check(abs(last[2] - obj["relres_recursive"]) <= 1e-6 * obj["relres_recursive"],
                    "%s: last history entry is the recursive relres" % backend)

    # an explicit right-hand side, and x0 = the exact solution
    b = [float((i % 7) - 3) for i in range(nrows)]
    b_path = os.path.join(tmp, "b.mtx")
    write_vector(b_path, b)
    x_path = os.path.join(tmp, "x_rhs.mtx")
    rc, obj, err = kryl.json("solve", path, "--backend", "ref", "--rhs", b_path, "--out",
                             x_path, "--rtol", "1e-10")
    if check_converged(t, "--rhs", rc, obj, err, 1e-10):
        r = relres(nrows, entries, b, read_vector(x_path))
        t.check(r <= 1.05e-10, "--rhs: recomputed relres %.3g" % r)
    x0_path = os.path.join(tmp, "x0.mtx")
    write_vector(x0_path, ones)
    rc, obj, err = kryl.json("solve", path, "--backend", "ref", "--x0", x0_path)
    t.check(rc == 0 and obj is not None and obj["converged"] and obj["iterations"] <= 1,
            "--x0 = exact solution converges at once", "exit %d %s %s" % (rc, obj, err))


def test_not_converged(t, kryl, matrices, tmp):
    """--maxit 2: exit 2, converged false, the report still printed."""
    path = matrix_path(matrices, "bcsstk06.mtx")
    if path is None:
        path = os.path.join(tmp, "nc.mtx")
        kryl.run("gen", "poisson3d", "--n", 10, "-o", path)
    rc, obj, err = kryl.json("solve", path, "--backend", "ref", "--maxit", 2)
    t.check(rc == 2, "--maxit 2 exits 2", "exit %d %s" % (rc, err))
    t.check(obj is not None and obj["converged"] is False and obj["iterations"] == 2 and
            obj["reason"] == "max_iterations", "--maxit 2 reports not converged", str(obj))
    rc, out, err = kryl.run("solve", path, "--backend", "ref", "--maxit", 2)
    t.check(rc == 2 and "NOT converged" in out and "max_iterations" in out,
            "--maxit 2 summary says not converged", out + err)


def test_summary(t, kryl, tmp):
    """The human summary, --profile and --quiet."""
    a = os.path.join(tmp, "summary.mtx")
    kryl.run("gen", "poisson3d", "--n", 6, "-o", a)
    rc, out, err = kryl.run("solve", a, "--profile")
    for word in ["matrix", "216 x 216", "iterations", "relres", "converged", "backend",
                 "precision", "setup", "solve", "per iteration", "spmv", "reduction"]:
        t.check(word in out, "summary mentions '%s'" % word, out)
    t.check(rc == 0 and err == "", "summary: exit 0, nothing on stderr", err)
    rc, out, err = kryl.run("solve", a, "--quiet")
    t.check(rc == 0 and out == "" and err == "", "--quiet prints nothing", out + err)


def test_demo(t, kryl):
    """kryl demo: small and default sizes converge with a clear summary."""
    rc, out, err = kryl.run("demo", "--n", 12)
    t.check(rc == 0 and "converged   yes" in out and "1728 rows" in out, "demo --n 12",
            out + err)
    rc, out, err = kryl.run("demo", "--backend", "ref", "--n", 8)
    t.check(rc == 0 and "ref" in out, "demo --backend ref", out + err)
    rc, out, err = kryl.run("demo", timeout=300)
    t.check(rc == 0 and "262144 rows" in out and "converged   yes" in out, "demo (default)",
            out + err)


def main():
    kryl, matrices = arguments("test_solve")
    t = Checks("test_solve")
    with temp_dir() as tmp:
        a = os.path.join(tmp, "poisson3d.mtx")
        rc, _, err = kryl.run("gen", "poisson3d", "--n", 8, "-o", a)
        if not t.check(rc == 0, "gen poisson3d --n 8", err):
            t.finish()
        backends = usable_backends(t, kryl, a)
        backends = [b for b in backends if b != "auto"]
        test_generated(t, kryl, tmp, backends)
        test_real(t, kryl, matrices, backends)
        test_files(t, kryl, matrices, tmp, backends)
        test_not_converged(t, kryl, matrices, tmp)
        test_summary(t, kryl, tmp)
        test_demo(t, kryl)
    t.finish()


if __name__ == "__main__":
    main()
