"""kryl's errors: bad files, matrices a method cannot take, formats a
matrix would cost too much in, bad options and values.  Each must exit 1
with a message that says what was wrong, and never crash."""

import os

from clitest import (Checks, arguments, backends, matrix_path, temp_dir, unsupported,
                     write_vector)


def expect_error(t, kryl, what, args, words, stream="err"):
    """`kryl ARGS` exits 1 and its stderr holds every word (case-insensitive)."""
    rc, out, err = kryl.run(*args)
    text = (err if stream == "err" else out).lower()
    t.check(rc == 1, "%s: exit 1" % what, "exit %d\nstdout: %s\nstderr: %s" % (rc, out, err))
    for word in words:
        t.check(word.lower() in text, "%s: message mentions '%s'" % (what, word), err)
    return err


def test_files(t, kryl, tmp):
    """Missing, malformed and unusable files."""
    missing = os.path.join(tmp, "no_such_matrix.mtx")
    err = expect_error(t, kryl, "missing file", ["solve", missing], ["no_such_matrix.mtx"])
    t.check(err.startswith("kryl: error: "), "errors start with 'kryl: error: '", err)
    expect_error(t, kryl, "info on a missing file", ["info", missing], ["no_such_matrix.mtx"])

    malformed = {
        "short.mtx": "%%MatrixMarket matrix coordinate real general\n3 3 4\n1 1 1.0\n2 2 1.0\n",
        "token.mtx": "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n2 x 1.0\n",
        "banner.mtx": "%%MatrixMarket matrix spaghetti real general\n2 2 1\n1 1 1.0\n",
        "range.mtx": "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n3 1 1.0\n",
        "empty.mtx": "",
        "nan.mtx": "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 nan\n2 2 1.0\n",
    }
    for name, text in malformed.items():
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        expect_error(t, kryl, "malformed %s" % name, ["solve", path], [name])

    out_dir = os.path.join(tmp, "no", "such", "dir")
    a = os.path.join(tmp, "a.mtx")
    kryl.run("gen", "poisson2d", "--n", 4, "-o", a)
    expect_error(t, kryl, "--out into a missing directory",
                 ["solve", a, "--out", os.path.join(out_dir, "x.mtx")], ["x.mtx"])
    expect_error(t, kryl, "gen into a missing directory",
                 ["gen", "poisson2d", "--n", 4, "-o", os.path.join(out_dir, "A.mtx")], ["A.mtx"])


def test_matrices(t, kryl, matrices, tmp):
    """Matrices CG cannot take: nonsymmetric, not square."""
    conv = os.path.join(tmp, "convdiff2d.mtx")
    kryl.run("gen", "convdiff2d", "--n", 10, "-o", conv)
    expect_error(t, kryl, "convdiff2d with cg", ["solve", conv, "--method", "cg"], ["symmetric"])
    west = matrix_path(matrices, "west0067.mtx")
    if west is None:
        t.skip("west0067.mtx absent")
    else:
        expect_error(t, kryl, "west0067 with cg", ["solve", west, "--method", "cg"],
                     ["symmetric"])
    ship = matrix_path(matrices, "lp_ship04l.mtx")
    if ship is None:
        t.skip("lp_ship04l.mtx absent")
    else:
        expect_error(t, kryl, "non-square lp_ship04l", ["solve", ship], ["square"])


def test_formats(t, kryl, tmp):
    """A format that would store too much padding for the matrix is refused:
    exit 1 with the library's reason (what it would store, the limit, what
    to use instead), on every backend; --spectrum needs a symmetric matrix."""
    spd = os.path.join(tmp, "random-spd.mtx")
    kryl.run("gen", "random-spd", "--n", 2000, "-o", spd)
    power = os.path.join(tmp, "powerlaw.mtx")
    kryl.run("gen", "powerlaw", "--n", 2000, "-o", power)
    for backend in backends(kryl):
        for what, args in [("dia on random-spd", [spd, "--format", "dia"]),
                           ("dia on powerlaw", [power, "--format", "dia", "--method", "gmres"]),
                           ("ell on powerlaw", [power, "--format", "ell", "--method", "gmres"])]:
            what = "%s (%s)" % (what, backend)
            rc, out, err = kryl.run("solve", *(args + ["--backend", backend]))
            if unsupported(t, backend, what, rc, err):
                continue
            fmt = args[2]
            t.check(rc == 1 and out == "", "%s: exit 1, nothing on stdout" % what,
                    "exit %d\n%s%s" % (rc, out, err))
            t.check(err.startswith("kryl: error: %s: " % fmt), "%s: the reason names %s" %
                    (what, fmt), err)
            for word in ["would store", "slots", "nonzeros", "limit", "use "]:
                t.check(word in err, "%s: the reason mentions '%s'" % (what, word), err)
    conv = os.path.join(tmp, "convdiff.mtx")
    kryl.run("gen", "convdiff2d", "--n", 6, "-o", conv)
    expect_error(t, kryl, "--spectrum on a nonsymmetric matrix",
                 ["info", conv, "--spectrum", "--backend", "ref"], ["--spectrum", "symmetric"])


def test_vectors(t, kryl, tmp):
    """--rhs and --x0 of the wrong length."""
    a = os.path.join(tmp, "v.mtx")
    kryl.run("gen", "poisson2d", "--n", 5, "-o", a)
    short = os.path.join(tmp, "short.vec.mtx")
    write_vector(short, [1.0] * 24)
    expect_error(t, kryl, "--rhs of the wrong length", ["solve", a, "--rhs", short],
                 ["dimension mismatch", "24", "25"])
    expect_error(t, kryl, "--x0 of the wrong length", ["solve", a, "--x0", short],
                 ["dimension mismatch", "--x0"])
    expect_error(t, kryl, "--rhs missing", ["solve", a, "--rhs", os.path.join(tmp, "nob.mtx")],
                 ["nob.mtx"])


def test_usage(t, kryl, tmp):
    """Bad command lines name the bad option and show the usage."""
    a = os.path.join(tmp, "u.mtx")
    kryl.run("gen", "poisson2d", "--n", 4, "-o", a)
    expect_error(t, kryl, "unknown option", ["solve", a, "--frobnicate"],
                 ["--frobnicate", "usage"])
    expect_error(t, kryl, "rtol with trailing junk", ["solve", a, "--rtol", "1e-8x"],
                 ["--rtol", "1e-8x"])
    expect_error(t, kryl, "rtol negative", ["solve", a, "--rtol", "-1"], ["--rtol"])
    expect_error(t, kryl, "rtol nan", ["solve", a, "--rtol", "nan"], ["--rtol"])
    expect_error(t, kryl, "maxit negative", ["solve", a, "--maxit", "-5"], ["--maxit"])
    expect_error(t, kryl, "maxit not an integer", ["solve", a, "--maxit", "1.5"], ["--maxit"])
    expect_error(t, kryl, "maxit without value", ["solve", a, "--maxit"], ["--maxit"])
    # the CLI rejects the name itself, listing the valid ones, before any solve
    err = expect_error(t, kryl, "unknown method", ["solve", a, "--method", "bogus"],
                       ["--method", "unknown method 'bogus'", "cg", "pcg", "pipecg", "gmres",
                        "bicgstab", "usage"])
    t.check(not err.startswith("kryl: error:"), "unknown method: a usage error, not a solve",
            err)
    expect_error(t, kryl, "unknown format", ["solve", a, "--format", "coo"],
                 ["--format", "coo", "csr", "sell", "dia", "auto"])
    expect_error(t, kryl, "--tune with another format", ["solve", a, "--tune", "--format", "csr"],
                 ["--tune", "auto", "csr"])
    expect_error(t, kryl, "unknown mixed scheme", ["solve", a, "--mixed", "half"],
                 ["--mixed", "half", "ir", "inner-outer", "reliable"])
    expect_error(t, kryl, "--mixed with --precision single",
                 ["solve", a, "--mixed", "ir", "--precision", "single"],
                 ["--mixed", "--precision mixed"])
    expect_error(t, kryl, "--precision mixed --mixed none",
                 ["solve", a, "--precision", "mixed", "--mixed", "none"], ["ir", "inner-outer"])
    expect_error(t, kryl, "--inner-rtol 0", ["solve", a, "--inner-rtol", "0"], ["--inner-rtol"])
    expect_error(t, kryl, "--inner-rtol 1.5", ["solve", a, "--inner-rtol", "1.5"],
                 ["--inner-rtol", "(0, 1)"])
    expect_error(t, kryl, "--restart 0", ["solve", a, "--restart", "0"], ["--restart"])
    expect_error(t, kryl, "--inner-its 0", ["solve", a, "--inner-its", "0"], ["--inner-its"])
    expect_error(t, kryl, "--restart too large", ["solve", a, "--restart", "9999999999"],
                 ["--restart"])
    expect_error(t, kryl, "info: unknown backend", ["info", a, "--backend", "tpu"],
                 ["--backend", "tpu"])
    expect_error(t, kryl, "info: unknown precond", ["info", a, "--spectrum", "--precond", "ilu"],
                 ["--precond", "ilu", "jacobi"])
    expect_error(t, kryl, "info: --steps without --spectrum", ["info", a, "--steps", "5"],
                 ["--steps", "--spectrum"])
    expect_error(t, kryl, "info: --steps 0", ["info", a, "--spectrum", "--steps", "0"],
                 ["--steps"])
    expect_error(t, kryl, "unknown precond", ["solve", a, "--precond", "ilu"], ["ilu", "jacobi"])
    expect_error(t, kryl, "unknown backend", ["solve", a, "--backend", "tpu"], ["tpu", "omp"])
    expect_error(t, kryl, "unknown precision", ["solve", a, "--precision", "half"],
                 ["half", "single"])
    expect_error(t, kryl, "flag with a value", ["solve", a, "--json=yes"], ["--json"])
    expect_error(t, kryl, "two matrices", ["solve", a, a], ["unexpected"])
    expect_error(t, kryl, "no matrix", ["solve"], ["missing", "usage"])
    expect_error(t, kryl, "unknown command", ["frobnicate"], ["frobnicate"])
    expect_error(t, kryl, "no command", [], ["usage"])
    expect_error(t, kryl, "help of an unknown command", ["help", "nope"], ["nope"])
    expect_error(t, kryl, "info without a matrix", ["info"], ["missing"])
    expect_error(t, kryl, "demo with a bad size", ["demo", "--n", "0"], ["--n"])
    expect_error(t, kryl, "gen unknown kind", ["gen", "mandelbrot", "--n", 4, "-o", a],
                 ["mandelbrot", "poisson3d"])
    expect_error(t, kryl, "gen without -o", ["gen", "poisson3d", "--n", 4], ["-o"])
    expect_error(t, kryl, "gen without --n", ["gen", "poisson3d", "-o", a], ["--n"])
    expect_error(t, kryl, "gen with --n abc", ["gen", "poisson3d", "--n", "abc", "-o", a],
                 ["--n", "abc"])

    rc, out, err = kryl.run("--help")
    t.check(rc == 0 and "solve" in out and "demo" in out, "--help", out + err)
    rc, out, err = kryl.run("help", "solve")
    t.check(rc == 0 and "--rtol" in out and "--backend" in out, "help solve", out + err)
    rc, out, err = kryl.run("help", "solve")
    for word in ["--format", "auto", "--tune", "--mixed", "inner-outer", "--inner-its",
                 "--inner-rtol", "--restart", "pipecg", "gmres", "bicgstab", "mixed"]:
        t.check(word in out, "help solve mentions '%s'" % word, out)
    rc, out, err = kryl.run("help", "info")
    for word in ["--spectrum", "--steps", "--precond", "--backend", "alpha", "GB/s", "auto"]:
        t.check(rc == 0 and word in out, "help info mentions '%s'" % word, out + err)
    rc, out, err = kryl.run("solve", "--help")
    t.check(rc == 0 and "--rtol" in out, "solve --help", out + err)
    rc, out, err = kryl.run("help", "gen")
    t.check(rc == 0 and "poisson3d" in out and "convdiff2d" in out, "help gen lists kinds",
            out + err)
    rc, out, err = kryl.run("--version")
    t.check(rc == 0 and out.startswith("kryl 0.") and "ref" in out, "--version", out + err)


def main():
    kryl, matrices = arguments("test_errors")
    t = Checks("test_errors")
    with temp_dir() as tmp:
        test_files(t, kryl, tmp)
        test_matrices(t, kryl, matrices, tmp)
        test_vectors(t, kryl, tmp)
        test_formats(t, kryl, tmp)
        test_usage(t, kryl, tmp)
    t.finish()


if __name__ == "__main__":
    main()
