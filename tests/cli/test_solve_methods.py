"""kryl solve --method and --precision on every usable backend: the CG
family on SPD matrices, GMRES and BiCGSTAB on nonsymmetric ones (generated
convection-diffusion and real matrices), each reaching the true residual
recomputed here from the written x; mixed precision (both schemes)
reaching 1e-12 where single precision cannot.  A backend that lacks an
operation a method needs is skipped (ref must have them all)."""

import os
import random

from clitest import (Checks, arguments, backends, check_solution, problem_paths, read_vector,
                     solved, temp_dir, unsupported, write_vector)

SPD_METHODS = ["cg", "pcg", "pipecg"]
NONSYMMETRIC_METHODS = ["gmres", "bicgstab"]
REAL_SPD = ["bcsstk06.mtx", "nos4.mtx"]
# nonsymmetric matrices these methods converge on without preconditioning
REAL_NONSYMMETRIC = ["sherman1.mtx", "pores_1.mtx", "sherman4.mtx"]


def solve(t, kryl, what, backend, path, args, rtol, tmp, rhs=None):
    """Solve, check convergence and the residual of the written x; returns
    the JSON, or None (failed or skipped)."""
    x_path = os.path.join(tmp, "x.mtx")
    extra = ["--rhs", rhs] if rhs else []
    rc, obj, err = kryl.json("solve", path, "--backend", backend, "--rtol", rtol, "--out",
                             x_path, *(list(args) + extra))
    if not solved(t, backend, what, rc, obj, err):
        return None
    check_solution(t, what, path, x_path, rtol, read_vector(rhs) if rhs else None)
    t.check(obj["relres"] <= rtol, "%s: reported relres %.3g" % (what, obj["relres"]))
    return obj


def test_spd(t, kryl, tmp, matrices, usable):
    paths = problem_paths(t, kryl, tmp, matrices, "poisson2d", 16, REAL_SPD)
    gen = paths[0][1]
    for name, path in paths:
        for backend in usable:
            for method in SPD_METHODS + NONSYMMETRIC_METHODS:
                what = "%s %s on %s" % (name, method, backend)
                # the real SPD matrices are ill-conditioned: GMRES(40) needs Jacobi
                args = ["--method", method] + (["--precond", "jacobi"]
                                               if method in NONSYMMETRIC_METHODS else [])
                obj = solve(t, kryl, what, backend, path, args, 1e-8, tmp)
                if obj:
                    t.check(obj["method"] == method and obj["mixed"] == "none" and
                            obj["precision"] == "double", "%s: reported" % what, str(obj))
    # pipecg takes a preconditioner too
    for backend in usable:
        obj = solve(t, kryl, "pipecg+jacobi on %s" % backend, backend, gen,
                    ["--method", "pipecg", "--precond", "jacobi"], 1e-8, tmp)
        if obj:
            t.check(obj["precond"] == "jacobi", "pipecg+jacobi reported")


def test_nonsymmetric(t, kryl, tmp, matrices, usable):
    paths = problem_paths(t, kryl, tmp, matrices, "convdiff2d", 16, REAL_NONSYMMETRIC)
    gen = paths[0][1]
    for name, path in paths:
        for backend in usable:
            for method in NONSYMMETRIC_METHODS:
                what = "%s %s on %s" % (name, method, backend)
                obj = solve(t, kryl, what, backend, path, ["--method", method, "--maxit", 5000],
                            1e-8, tmp)
                if obj:
                    t.check(obj["method"] == method, "%s: reported" % what)
                    t.check(obj["restart"] == 40, "%s: restart 40 by default" % what)
    for backend in usable:
        what = "convdiff2d gmres --restart 12 on %s" % backend
        obj = solve(t, kryl, what, backend, gen, ["--method", "gmres", "--restart", 12], 1e-8,
                    tmp)
        if obj:
            t.check(obj["restart"] == 12, "%s: reported" % what)
        rc, out, err = kryl.run("solve", gen, "--backend", backend, "--method", "gmres",
                                "--restart", 12)
        if rc == 0:
            t.check("gmres(12)" in out, "summary shows gmres(12)", out)


def random_rhs(tmp, n, name):
    random.seed(n)
    path = os.path.join(tmp, name)
    write_vector(path, [random.uniform(-1.0, 1.0) for _ in range(n)])
    return path


def test_mixed(t, kryl, tmp, usable):
    """rtol 1e-12 with a random b: single precision stalls near 1e-7
    (exit 2); both mixed schemes converge, in a few outer iterations."""
    spd = os.path.join(tmp, "mixed_spd.mtx")
    kryl.run("gen", "poisson2d", "--n", 20, "-o", spd)
    conv = os.path.join(tmp, "mixed_conv.mtx")
    kryl.run("gen", "convdiff2d", "--n", 20, "-o", conv)
    rhs = random_rhs(tmp, 400, "b400.mtx")
    for name, path, method in [("poisson2d", spd, "pcg"), ("convdiff2d", conv, "gmres")]:
        for backend in usable:
            what = "%s %s single on %s" % (name, method, backend)
            rc, obj, err = kryl.json("solve", path, "--backend", backend, "--method", method,
                                     "--precision", "single", "--rtol", "1e-12", "--maxit", 400,
                                     "--rhs", rhs)
            if not unsupported(t, backend, what, rc, err):
                t.check(rc == 2 and obj is not None and not obj["converged"] and
                        obj["relres"] > 1e-10, "%s: cannot reach 1e-12" % what,
                        "exit %d %s %s" % (rc, obj, err))
            for args, scheme in [(["--precision", "mixed"], "inner-outer"),
                                 (["--mixed", "ir"], "ir"),
                                 (["--mixed", "inner-outer", "--inner-its", 20], "inner-outer"),
                                 (["--precision", "mixed", "--mixed", "ir", "--inner-rtol",
                                   "1e-3"], "ir")]:
                what = "%s %s %s on %s" % (name, method, " ".join(str(a) for a in args), backend)
                obj = solve(t, kryl, what, backend, path, ["--method", method] + args, 1e-12,
                            tmp, rhs)
                if obj is None:
                    continue
                t.check(obj["precision"] == "mixed" and obj["mixed"] == scheme,
                        "%s: reported as %s %s" % (what, obj["precision"], obj["mixed"]))
                t.check(obj["iterations"] <= 20, "%s: %d outer iterations" %
                        (what, obj["iterations"]))
                t.check(obj["inner_iterations"] >= obj["iterations"] - 1,
                        "%s: %d inner iterations for %d outer" %
                        (what, obj["inner_iterations"], obj["iterations"]))
                if "--inner-its" in args:
                    t.check(obj["inner_its"] == 20, "%s: inner its reported" % what)
                    t.check(obj["inner_iterations"] <= 20 * obj["iterations"],
                            "%s: %d inner iterations, at most 20 per outer" %
                            (what, obj["inner_iterations"]))
                if "--inner-rtol" in args:
                    t.check(obj["inner_rtol"] == 1e-3, "%s: inner rtol reported" % what)
    rc, out, err = kryl.run("solve", spd, "--backend", "ref", "--mixed", "ir")
    t.check(rc == 0 and "mixed precision" in out and "iterative refinement" in out,
            "summary describes the mixed scheme", out + err)


def main():
    kryl, matrices = arguments("test_solve_methods")
    t = Checks("test_solve_methods")
    usable = backends(kryl)
    t.check("ref" in usable, "kryl --version lists ref", str(usable))
    with temp_dir() as tmp:
        test_spd(t, kryl, tmp, matrices, usable)
        test_nonsymmetric(t, kryl, tmp, matrices, usable)
        test_mixed(t, kryl, tmp, usable)
    t.finish()


if __name__ == "__main__":
    main()
