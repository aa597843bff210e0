"""kryl solve --precond bjacobi --blocks 8 --partition auto|contiguous|metis on
generated matrices, on every usable backend: PCG (2-D Poisson) and GMRES
(convection-diffusion) reach the true residual recomputed here from the
written x; the JSON and the summary report the blocks and the partition;
auto is metis in a METIS build; a build without METIS refuses --partition
metis saying so; a bad partition name is refused listing the valid ones;
the help describes the option."""

import os

from clitest import Checks, arguments, backends, check_solution, solved, temp_dir

RTOL = 1e-8


def solve(t, kryl, what, backend, path, args, tmp):
    """Solve with b = A*1, check the residual of the written x; the JSON or None."""
    x_path = os.path.join(tmp, "x.mtx")
    rc, obj, err = kryl.json("solve", path, "--backend", backend, "--rtol", RTOL, "--maxit",
                             5000, "--out", x_path, "--precond", "bjacobi", "--blocks", 8, *args)
    if not solved(t, backend, what, rc, obj, err):
        return None
    check_solution(t, what, path, x_path, RTOL)
    return obj


def have_metis(t, kryl, path):
    """Whether this build partitions with METIS: --partition metis runs, or is
    refused naming METIS (then checked and False)."""
    rc, _, err = kryl.run("solve", path, "--backend", "ref", "--precond", "bjacobi", "--blocks",
                          8, "--partition", "metis", "--quiet")
    if rc == 0:
        return True
    t.check(rc == 1 and "METIS" in err and "contiguous" in err,
            "--partition metis without METIS: refused naming METIS and the contiguous "
            "partition", "exit %d\n%s" % (rc, err))
    return False


def test_solves(t, kryl, tmp, usable):
    poisson = os.path.join(tmp, "poisson2d.mtx")
    conv = os.path.join(tmp, "convdiff2d.mtx")
    kryl.run("gen", "poisson2d", "--n", 48, "-o", poisson)
    kryl.run("gen", "convdiff2d", "--n", 40, "-o", conv)
    metis = have_metis(t, kryl, poisson)
    partitions = ["contiguous", "metis", "auto"] if metis else ["contiguous", "auto"]
    for name, path, method in [("poisson2d", poisson, "pcg"), ("convdiff2d", conv, "gmres")]:
        for backend in usable:
            its = {}
            for partition in partitions:
                what = "%s %s + bjacobi(8, %s) on %s" % (name, method, partition, backend)
                obj = solve(t, kryl, what, backend, path,
                            ["--method", method, "--partition", partition], tmp)
                if obj is None:
                    continue
                t.check(obj["precond"] == "bjacobi" and obj["blocks"] == 8 and
                        obj["partition"] == partition, "%s: reported" % what, str(obj))
                its[partition] = obj["iterations"]
            print("%s %s on %s: %s" % (name, method, backend, its))
            if "metis" in its:
                t.check(its["auto"] == its["metis"], "%s on %s: auto is metis in a METIS build"
                        % (name, backend), str(its))
    rc, out, err = kryl.run("solve", poisson, "--backend", "ref", "--precond", "bjacobi",
                            "--blocks", 8, "--partition", "contiguous")
    t.check(rc == 0 and "bjacobi(blocks 8, partition contiguous)" in out,
            "the summary shows the blocks and the partition", out + err)


def test_refusals(t, kryl, tmp):
    small = os.path.join(tmp, "small.mtx")
    kryl.run("gen", "poisson2d", "--n", 6, "-o", small)
    rc, _, err = kryl.run("solve", small, "--precond", "bjacobi", "--partition", "scotch")
    t.check(rc == 1 and "--partition" in err and "auto|contiguous|metis" in err,
            "--partition scotch refused listing the names", "exit %d\n%s" % (rc, err))
    rc, out, _ = kryl.run("solve", "--help")
    t.check("--partition" in out and "contiguous" in out and "metis" in out,
            "help describes --partition", out)


def main():
    kryl, _ = arguments("test_bjacobi_cli")
    t = Checks("test_bjacobi_cli")
    usable = backends(kryl)
    t.check("ref" in usable, "kryl --version lists ref", str(usable))
    with temp_dir() as tmp:
        test_solves(t, kryl, tmp, usable)
        test_refusals(t, kryl, tmp)
    t.finish()


if __name__ == "__main__":
    main()
