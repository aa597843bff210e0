"""Every kind of advice kryl solve prints after a solve that did not converge
("next        rerun with OPTIONS: why"), triggered on a generated or real
matrix: the options it names are accepted, the solve with them gets further
(a smaller true residual, or converged), and following the advice again
never comes back to a command already run.  The refusals that name what to
use instead name options that this matrix accepts."""

import os
import re

from clitest import Checks, arguments, matrix_path, temp_dir

NEXT = re.compile(r"^next +rerun with (.*?): (.*)$", re.M)


def with_options(args, advice):
    """args with each "--name value" of advice replacing the same option (or
    added), and each flag "--name" (no value follows) added."""
    words = advice.split()
    out = list(args)
    k = 0
    while k < len(words):
        name = words[k]
        flag = k + 1 == len(words) or words[k + 1].startswith("--")
        if flag:
            if name not in out:
                out.append(name)
        elif name in out:
            out[out.index(name) + 1] = words[k + 1]
        else:
            out += [name, words[k + 1]]
        k += 1 if flag else 2
    return out


def solve(kryl, args):
    """(exit status, JSON, advice from the summary or None, stderr)."""
    rc, obj, err = kryl.json("solve", *args)
    _, out, _ = kryl.run("solve", *args)
    found = NEXT.search(out)
    return rc, obj, (found.group(1) if found else None), err + out


def check_case(t, kryl, what, args, expect):
    """The advice of `args` starts with `expect`; each step is accepted, the
    first gets further, and no command repeats."""
    rc, obj, advice, log = solve(kryl, args)
    if not t.check(rc == 2 and obj is not None and not obj["converged"],
                   "%s: the solve does not converge" % what, log):
        return
    t.check(advice is not None and advice.startswith(expect),
            "%s: advice '%s' (expected '%s')" % (what, advice, expect), log)
    t.check(obj.get("advice") == advice, "%s: the JSON has the same advice" % what, str(obj))
    seen = [tuple(args)]
    relres = obj["relres"]
    steps = 0
    while advice is not None and steps < 4:
        args = with_options(args, advice)
        t.check(tuple(args) not in seen, "%s: the advice loops back to %s" % (what, args))
        seen.append(tuple(args))
        rc, obj, advice, log = solve(kryl, args)
        if not t.check(rc in (0, 2) and obj is not None,
                       "%s: %s is accepted" % (what, " ".join(args)), log):
            return
        if steps == 0:
            t.check(obj["converged"] or obj["relres"] < relres,
                    "%s: the advice gets further (relres %.3g -> %.3g)" %
                    (what, relres, obj["relres"]), log)
        relres = obj["relres"]
        steps += 1
        if obj["converged"]:
            t.check(advice is None, "%s: no advice after convergence" % what, log)
            break


# (matrix, options refused, what the refusal names, the options it suggests)
REFUSALS = [
    ("lund_a.mtx", ["--method", "pcg", "--precond", "ilut"], "--precond mic0",
     "--precond mic0"),
    ("lund_a.mtx", ["--method", "pcg", "--precond", "ilut"], "--method gmres", "--method gmres"),
    ("bcsstk15.mtx", ["--method", "pcg", "--precond", "ilu0"], "--precond mic0",
     "--precond mic0"),
    ("bcsstk15.mtx", ["--method", "pcg", "--precond", "ic0"], "use mic0", "--precond mic0"),
    ("fidap_ex6.mtx", ["--method", "gmres", "--precond", "mcssor"], "--precond ilu0 --match",
     "--precond ilu0 --match"),
    ("fidap_ex6.mtx", ["--method", "gmres", "--precond", "ilut", "--match"], "use --precond ilu0",
     "--precond ilu0"),
    ("west0067.mtx", ["--method", "gmres", "--precond", "ilu0"], "use ilutp", "--precond ilutp"),
]


def check_refusals(t, kryl, matrices):
    for name, args, names, change in REFUSALS:
        path = matrix_path(matrices, name)
        if path is None:
            t.skip("%s absent" % name)
            continue
        what = "%s %s" % (name, " ".join(args))
        args = args + ["--backend", "ref"]
        rc, _, err = kryl.run("solve", path, *args)
        if not t.check(rc == 1 and names in err, "%s: refused naming '%s'" % (what, names), err):
            continue
        rc, obj, err = kryl.json("solve", path, *with_options(args, change), "--maxit", "300")
        t.check(rc in (0, 2) and obj is not None and obj["relres"] < 1.0,
                "%s: the suggested %s is accepted and gets further than x0" % (what, change),
                err)


def indefinite(path, n):
    """A symmetric indefinite tridiagonal matrix with a positive diagonal."""
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n")
        f.write("%d %d %d\n" % (n, n, 2 * n - 1))
        for i in range(1, n + 1):
            f.write("%d %d 1\n" % (i, i))
            if i < n:
                f.write("%d %d 2\n" % (i + 1, i))


def main():
    kryl, matrices = arguments("test_advice")
    t = Checks("test_advice")
    poisson = ["--gen", "poisson2d", "--n", "40", "--backend", "ref"]
    convdiff = ["--gen", "convdiff2d", "--n", "40", "--backend", "ref"]
    # CG family: up the ladder ic0 (mic0 where ic0 is refused), amg, then more iterations
    check_case(t, kryl, "cg", poisson + ["--method", "cg", "--maxit", "20"],
               "--method pcg --precond ic0")
    check_case(t, kryl, "pcg ic0", poisson + ["--method", "pcg", "--precond", "ic0",
                                              "--maxit", "8"], "--method pcg --precond amg")
    check_case(t, kryl, "pipecg mic0", poisson + ["--method", "pipecg", "--precond", "mic0",
                                                  "--maxit", "5"],
               "--method pipecg --precond amg")
    check_case(t, kryl, "pcg amg", poisson + ["--method", "pcg", "--precond", "amg", "--maxit",
                                              "2"], "--maxit 4")
    # single precision stuck at its rounding: double
    check_case(t, kryl, "single", poisson + ["--method", "pcg", "--precond", "ic0",
                                             "--precision", "single", "--rtol", "1e-11"],
               "--precision double")
    # GMRES and BiCGSTAB: GMRES with ilu0, ilut, ilutp
    check_case(t, kryl, "gmres jacobi", convdiff + ["--method", "gmres", "--precond", "jacobi",
                                                    "--maxit", "15"],
               "--method gmres --precond ilu0")
    check_case(t, kryl, "bicgstab", convdiff + ["--method", "bicgstab", "--maxit", "10"],
               "--method gmres --precond ilu0")
    # auto has tried its list: more iterations
    check_case(t, kryl, "auto", convdiff + ["--maxit", "6"], "--maxit 12")
    with temp_dir() as tmp:
        # CG on a matrix that is not positive definite: GMRES
        path = os.path.join(tmp, "indefinite.mtx")
        indefinite(path, 60)
        check_case(t, kryl, "cg indefinite", [path, "--backend", "ref", "--method", "cg"],
                   "--method gmres --precond ilu0")
    # a refused rung is passed over: IC(0) of bcsstk15 meets a non-positive pivot
    bcsstk15 = matrix_path(matrices, "bcsstk15.mtx")
    if bcsstk15 is None:
        t.skip("bcsstk15.mtx absent")
    else:
        rc, out, err = kryl.run("solve", bcsstk15, "--method", "pcg", "--precond", "ic0")
        ic0_refused = rc == 1
        check_case(t, kryl, "bcsstk15 jacobi", [bcsstk15, "--backend", "ref", "--method", "pcg",
                                                "--maxit", "50"],
                   "--method pcg --precond " + ("mic0" if ic0_refused else "ic0"))
    check_refusals(t, kryl, matrices)
    t.finish()


if __name__ == "__main__":
    main()
