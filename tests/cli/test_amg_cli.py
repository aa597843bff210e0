"""kryl solve --precond amg on every usable backend: PCG, pipelined CG and
GMRES reach the true residual recomputed here from the written x, in fewer
iterations than Jacobi; the JSON and the summary show the hierarchy (levels,
rows and nonzeros per level, complexities, setup phases); the options,
--nullspace and --coordinates (the elasticity cantilever's rigid-body
modes) are taken and bad values refused with a message; a coarsening that
stalls above a direct solve's size is warned of; a zero pivot of the ILU(0)
smoother is refused naming the level."""

import os

from clitest import Checks, arguments, backends, solve_checked, temp_dir, write_vector

RTOL = 1e-8


def solve(t, kryl, what, backend, path, args, tmp):
    """kryl solve to RTOL, its written x checked here; the JSON or None."""
    return solve_checked(t, kryl, what, backend, path, args, tmp, RTOL)


def test_hierarchy(t, kryl, tmp, usable):
    gen = os.path.join(tmp, "poisson2d.mtx")
    kryl.run("gen", "poisson2d", "--n", 40, "-o", gen)
    for backend in usable:
        jac = solve(t, kryl, "jacobi-pcg on %s" % backend, backend, gen, ["--method", "pcg"], tmp)
        for args in [[], ["--method", "pipecg"], ["--method", "gmres"],
                     ["--amg-smoother", "mcgs", "--amg-cycle", "w"],
                     ["--amg-smoother", "jacobi", "--amg-sweeps", "2", "--format", "sell"],
                     ["--amg-aggregation", "plain", "--amg-coarsening", "mis2"],
                     ["--precision", "single"]]:
            what = "amg %s on %s" % (" ".join(args), backend)
            obj = solve(t, kryl, what, backend, gen,
                        ["--precond", "amg", "--amg-coarse-size", 50] + args, tmp)
            if obj is None or jac is None:
                continue
            amg = obj.get("amg", {})
            levels = amg.get("levels", 0)
            t.check(obj["precond"] == "amg" and levels >= 2 and
                    amg["level"]["0"]["rows"] == 1600 and
                    amg["level"][str(levels - 1)]["rows"] <= 50 and
                    1.0 < amg["operator_complexity"] < 2.0 and "galerkin_s" in amg["setup"],
                    "%s: hierarchy reported" % what, str(obj))
            t.check(obj["iterations"] < jac["iterations"] / 3, "%s: %d iterations, jacobi %d" %
                    (what, obj["iterations"], jac["iterations"]))
    rc, out, err = kryl.run("solve", gen, "--backend", "ref", "--precond", "amg")
    t.check(rc == 0 and "operator complexity" in out and "(coarsest)" in out and
            "P'AP" in out, "summary shows the hierarchy", out + err)
    rc, out, _ = kryl.run("solve", "--help")
    t.check("--amg-smoother" in out and "--coordinates" in out, "help describes amg", out)
    rc, out, err = kryl.run("info", gen, "--amg")
    t.check(rc == 0 and "operator complexity" in out and "(coarsest)" in out,
            "kryl info --amg shows the hierarchy", out + err)
    rc, obj, err = kryl.json("info", gen, "--amg")
    t.check(rc == 0 and obj and obj["amg"]["level"]["0"]["rows"] == 1600,
            "kryl info --amg --json", str(obj) + err)
    rc, out, err = kryl.run("solve", gen, "--backend", "ref", "--precond", "amg", "--view")
    t.check(rc == 0 and "coarsening auto" in out and "smoother auto" in out,
            "--view shows the amg options", out + err)
    # a threshold no coupling meets: one level of 6400 rows, smoothed, and a warning
    rc, out, err = kryl.run("solve", "--gen", "convdiff2d", "--n", 80, "--method", "gmres",
                            "--backend", "ref", "--precond", "amg", "--amg-theta", 0.5)
    t.check(rc == 0 and "coarsening stalled at level 0 (6400 rows" in err,
            "a stalled coarsening is warned of", out + err)
    # a zero pivot in the ILU(0) smoother's factorization: refused, the level named
    breaks = os.path.join(tmp, "zero_pivot.mtx")
    n = 60
    entries = [(1, 1, 1.0), (1, 2, 1.0), (2, 1, 1.0), (2, 2, 1.0)]
    for i in range(3, n + 1):
        entries.append((i, i, 4.0))
        if i > 3:
            entries.append((i, i - 1, -1.0))
        if i < n:
            entries.append((i, i + 1, -2.0))
    with open(breaks, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n" %
                (n, n, len(entries)))
        f.writelines("%d %d %g\n" % e for e in entries)
    rc, out, err = kryl.run("solve", breaks, "--method", "gmres", "--backend", "ref",
                            "--precond", "amg", "--amg-smoother", "ilu0",
                            "--amg-coarse-size", 2)
    t.check(rc != 0 and "the ILU(0) smoother of a level of 60 rows" in err and
            "is 0" in err, "a zero pivot of the ILU(0) smoother is refused", out + err)


def test_nullspace(t, kryl, tmp):
    beam = os.path.join(tmp, "beam.mtx")
    xyz = os.path.join(tmp, "beam_xyz.mtx")
    rc, out, err = kryl.run("gen", "elasticity3d", "--n", 4, "-o", beam, "--coordinates", xyz)
    t.check(rc == 0, "kryl gen elasticity3d --coordinates", out + err)
    plain = solve(t, kryl, "elasticity amg", "ref", beam, ["--precond", "amg"], tmp)
    modes = solve(t, kryl, "elasticity amg with rigid-body modes", "ref", beam,
                  ["--precond", "amg", "--coordinates", xyz], tmp)
    if plain and modes:
        t.check(modes["amg_nullspace_vectors"] == 6 and
                modes["iterations"] < plain["iterations"],
                "rigid-body modes: %d iterations, constant %d" %
                (modes["iterations"], plain["iterations"]), str(modes))
    # the constant as a file is the default
    small = os.path.join(tmp, "small.mtx")
    kryl.run("gen", "poisson2d", "--n", 20, "-o", small)
    ones = os.path.join(tmp, "ones.mtx")
    write_vector(ones, [1.0] * 400)
    default = solve(t, kryl, "amg", "ref", small, ["--precond", "amg"], tmp)
    given = solve(t, kryl, "amg --nullspace ones", "ref", small,
                  ["--precond", "amg", "--nullspace", ones], tmp)
    if default and given:
        t.check(default["iterations"] == given["iterations"], "--nullspace of ones: %d, %d" %
                (given["iterations"], default["iterations"]))
    for args, word in [(["--nullspace", beam], "array"), (["--coordinates", ones], "3 columns"),
                       (["--amg-theta", "2"], "theta"), (["--amg-smoother", "sor"], "smoother"),
                       (["--amg-coarse-size", "0"], "coarse-size"),
                       (["--amg-coarse-theta", "1.5"], "coarse-theta"),
                       (["--amg-cycle", "f"], "cycle"),
                       (["--nullspace", ones, "--coordinates", ones], "not both")]:
        rc, _, err = kryl.run("solve", small, "--backend", "ref", "--precond", "amg", *args)
        t.check(rc == 1 and word in err, "%s refused" % " ".join(args),
                "exit %d\n%s" % (rc, err))
    rc, _, err = kryl.run("solve", small, "--nullspace", ones)
    t.check(rc == 1 and "--precond amg" in err, "--nullspace without amg refused", err)


def main():
    kryl, _ = arguments("test_amg_cli")
    t = Checks("test_amg_cli")
    usable = backends(kryl)
    with temp_dir() as tmp:
        test_hierarchy(t, kryl, tmp, usable)
        test_nullspace(t, kryl, tmp)
    t.finish()


if __name__ == "__main__":
    main()
