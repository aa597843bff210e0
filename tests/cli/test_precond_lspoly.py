"""kryl solve --precond lspoly --degree K on every usable backend: CG, PCG
and pipelined CG reach the true residual recomputed here from the written
x, in fewer iterations than CG alone for K >= 3 (generated and real SPD
matrices), in csr and sell storage; the JSON and the summary report the
degree; a nonsymmetric matrix and bad degrees are refused with a message."""

import os

from clitest import Checks, arguments, backends, problem_paths, solve_checked, temp_dir

REAL_SPD = ["bcsstk06.mtx", "nos4.mtx", "494_bus.mtx"]
RTOL = 1e-8


def solve(t, kryl, what, backend, path, args, tmp):
    """kryl solve to RTOL, its written x checked here; the JSON or None."""
    return solve_checked(t, kryl, what, backend, path, args, tmp, RTOL)


def test_fewer_iterations(t, kryl, tmp, matrices, usable):
    paths = problem_paths(t, kryl, tmp, matrices, "poisson2d", 30, REAL_SPD)
    for name, path in paths:
        for backend in usable:
            cg = solve(t, kryl, "%s cg on %s" % (name, backend), backend, path,
                       ["--method", "cg"], tmp)
            if cg is None:
                continue
            counts = []
            for degree in [3, 6, 10]:
                what = "%s cg + lspoly(%d) on %s" % (name, degree, backend)
                obj = solve(t, kryl, what, backend, path,
                            ["--method", "cg", "--precond", "lspoly", "--degree", degree], tmp)
                if obj is None:
                    continue
                t.check(obj["precond"] == "lspoly" and obj["degree"] == degree,
                        "%s: reported" % what, str(obj))
                t.check(obj["iterations"] < cg["iterations"], "%s: %d iterations, cg %d" %
                        (what, obj["iterations"], cg["iterations"]))
                counts.append("%d:%d" % (degree, obj["iterations"]))
            print("%s on %s: cg %d, lspoly %s" % (name, backend, cg["iterations"],
                                                  " ".join(counts)))


def test_methods_formats(t, kryl, tmp, usable):
    gen = os.path.join(tmp, "poisson3d.mtx")
    kryl.run("gen", "poisson3d", "--n", 10, "-o", gen)
    for backend in usable:
        for args in [["--method", "pcg"], ["--method", "pipecg"], ["--format", "sell"],
                     ["--format", "jds"]]:
            what = "poisson3d %s --precond lspoly on %s" % (" ".join(args), backend)
            obj = solve(t, kryl, what, backend, gen, args + ["--precond", "lspoly"], tmp)
            if obj:
                t.check(obj["precond"] == "lspoly" and obj["degree"] == 8,
                        "%s: default degree 8 reported" % what, str(obj))
    rc, out, err = kryl.run("solve", gen, "--backend", "ref", "--precond", "lspoly", "--degree",
                            5)
    t.check(rc == 0 and "lspoly(degree 5)" in out, "summary shows the degree", out + err)
    rc, out, _ = kryl.run("solve", "--help")
    t.check("lspoly" in out and "--degree" in out, "help describes lspoly and --degree", out)


def test_refusals(t, kryl, tmp):
    conv = os.path.join(tmp, "convdiff2d.mtx")
    kryl.run("gen", "convdiff2d", "--n", 10, "-o", conv)
    rc, _, err = kryl.run("solve", conv, "--backend", "ref", "--method", "gmres", "--precond",
                          "lspoly")
    t.check(rc == 1 and "least-squares polynomial preconditioner needs a symmetric positive "
            "definite matrix" in err and "gmres" in err, "nonsymmetric matrix refused",
            "exit %d\n%s" % (rc, err))
    spd = os.path.join(tmp, "small.mtx")
    kryl.run("gen", "poisson2d", "--n", 6, "-o", spd)
    for degree in ["0", "-2", "1000", "x"]:
        rc, _, err = kryl.run("solve", spd, "--precond", "lspoly", "--degree", degree)
        t.check(rc == 1 and "degree" in err.lower(), "--degree %s refused" % degree,
                "exit %d\n%s" % (rc, err))


def main():
    kryl, matrices = arguments("test_precond_lspoly")
    t = Checks("test_precond_lspoly")
    usable = backends(kryl)
    t.check("ref" in usable, "kryl --version lists ref", str(usable))
    with temp_dir() as tmp:
        test_fewer_iterations(t, kryl, tmp, matrices, usable)
        test_methods_formats(t, kryl, tmp, usable)
        test_refusals(t, kryl, tmp)
    t.finish()


if __name__ == "__main__":
    main()
