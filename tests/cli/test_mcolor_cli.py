"""kryl solve --precond mcssor --sweeps K --omega W and --precond mcilu0 on
every usable backend: CG with mcssor (2 sweeps) and GMRES / BiCGSTAB with
mcilu0 reach the true residual recomputed here from the written x, on
matrices written by `kryl gen`, in fewer iterations than without a
preconditioner; the JSON reports the preconditioner, sweeps and omega; a
zero diagonal and a bad omega are refused with a message."""

import os

from clitest import Checks, arguments, backends, solve_checked, temp_dir

RTOL = 1e-8


def solve(t, kryl, what, backend, path, args, tmp):
    """kryl solve to RTOL, its written x checked here; the JSON or None."""
    return solve_checked(t, kryl, what, backend, path, args, tmp, RTOL)


def test_solves(t, kryl, tmp, usable):
    poisson = os.path.join(tmp, "poisson2d.mtx")
    conv = os.path.join(tmp, "convdiff2d.mtx")
    for gen, path in [("poisson2d", poisson), ("convdiff2d", conv)]:
        rc, _, err = kryl.run("gen", gen, "--n", 30, "-o", path)
        t.check(rc == 0, "kryl gen %s" % gen, err)
    cases = [
        (poisson, "cg", ["--precond", "mcssor", "--sweeps", 2]),
        (poisson, "cg", ["--precond", "mcssor", "--sweeps", 1, "--omega", 1.2]),
        (poisson, "pcg", ["--precond", "mcilu0"]),
        (conv, "gmres", ["--precond", "mcilu0"]),
        (conv, "bicgstab", ["--precond", "mcilu0"]),
        (conv, "gmres", ["--precond", "mcssor", "--sweeps", 2]),
    ]
    for backend in usable:
        plain = {}
        for path, method, args in cases:
            name = os.path.basename(path)
            base = "cg" if method == "pcg" else method
            if (path, base) not in plain:
                obj = solve(t, kryl, "%s %s on %s" % (name, base, backend), backend, path,
                            ["--method", base], tmp)
                plain[(path, base)] = obj["iterations"] if obj else None
            what = "%s %s %s on %s" % (name, method, " ".join(str(a) for a in args), backend)
            obj = solve(t, kryl, what, backend, path, ["--method", method] + args, tmp)
            if obj is None:
                continue
            precond = args[1]
            t.check(obj["precond"] == precond, "%s: precond reported" % what, str(obj))
            if precond == "mcssor":
                sweeps = args[args.index("--sweeps") + 1]
                omega = args[args.index("--omega") + 1] if "--omega" in args else 1.0
                t.check(obj["sweeps"] == sweeps and abs(obj["omega"] - omega) < 1e-12,
                        "%s: sweeps and omega reported" % what, str(obj))
            none = plain[(path, base)]
            if none is not None:
                t.check(obj["iterations"] < none, "%s: %d iterations, none %d" %
                        (what, obj["iterations"], none))
            print("%s: %d iterations (none %s)" % (what, obj["iterations"], none))


def test_refusals(t, kryl, tmp):
    zero = os.path.join(tmp, "zero.mtx")
    with open(zero, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n3 3 5\n"
                "1 1 4\n1 2 -1\n2 1 -1\n3 3 4\n2 3 1\n")
    for precond in ["mcssor", "mcilu0"]:
        rc, _, err = kryl.run("solve", zero, "--backend", "ref", "--method", "gmres",
                              "--precond", precond)
        t.check(rc == 1 and "row 1" in err and "zero" in err,
                "%s: zero diagonal of row 1 refused" % precond, "exit %d\n%s" % (rc, err))
    spd = os.path.join(tmp, "small.mtx")
    kryl.run("gen", "poisson2d", "--n", 6, "-o", spd)
    for omega in ["0", "2", "-1"]:
        rc, _, err = kryl.run("solve", spd, "--precond", "mcssor", "--omega", omega)
        t.check(rc == 1 and "omega" in err, "--omega %s refused" % omega,
                "exit %d\n%s" % (rc, err))


def main():
    kryl, _ = arguments("test_mcolor_cli")
    t = Checks("test_mcolor_cli")
    usable = backends(kryl)
    t.check("ref" in usable, "kryl --version lists ref", str(usable))
    with temp_dir() as tmp:
        test_solves(t, kryl, tmp, usable)
        test_refusals(t, kryl, tmp)
    t.finish()


if __name__ == "__main__":
    main()
