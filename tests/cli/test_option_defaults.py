"""kryl solve's defaults and refusals that used to surprise: pcg and pipecg
both precondition with Jacobi unless told otherwise, pcg with --precond none
runs as cg, a refused bcsr4 suggests bcsr2 only where bcsr2 would be
accepted, and a Matrix Market pattern file is read as all ones with a note
in the log, the summary, --view and the JSON."""

import os

from clitest import Checks, arguments, temp_dir


def test_cg_defaults(t, kryl):
    for method, precond in [("cg", "none"), ("pcg", "jacobi"), ("pipecg", "jacobi"),
                            ("gmres", "none")]:
        rc, obj, err = kryl.json("solve", "--gen", "poisson2d", "--n", "20", "--method", method)
        t.check(rc == 0 and obj and obj["method"] == method and obj["precond"] == precond,
                "--method %s alone: precond %s" % (method, precond), str(obj) + err)
    rc, obj, err = kryl.json("solve", "--gen", "poisson2d", "--n", "20", "--method", "pipecg",
                             "--precond", "none")
    t.check(rc == 0 and obj and obj["precond"] == "none", "pipecg --precond none: unpreconditioned",
            str(obj) + err)
    rc, obj, err = kryl.json("solve", "--gen", "poisson2d", "--n", "20", "--method", "pcg",
                             "--precond", "none")
    t.check(rc == 0 and obj and obj["method"] == "cg" and obj["precond"] == "none" and
            obj["converged"], "pcg --precond none: accepted, runs cg", str(obj) + err)
    t.check("pcg with --precond none is CG" in err, "pcg --precond none: the note says so", err)
    rc, out, err = kryl.run("solve", "--gen", "poisson2d", "--n", "20", "--method", "pcg",
                            "--precond", "none", "-q")
    t.check(rc == 0 and err == "", "pcg --precond none -q: no note", err)


def write_block_tridiagonal(path, nblocks):
    """Dense 2x2 blocks on the block tridiagonal: bcsr2 stores them exactly,
    bcsr4 twice over."""
    entries = []
    n = 2 * nblocks
    for i in range(n):
        block = i // 2
        for j in range(2 * max(block - 1, 0), 2 * min(block + 2, nblocks)):
            entries.append((i, j, 4.0 if i == j else -0.25))
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        f.write("%d %d %d\n" % (n, n, len(entries)))
        for i, j, v in entries:
            f.write("%d %d %g\n" % (i + 1, j + 1, v))


def test_bcsr_suggestion(t, kryl, tmp):
    blocks = os.path.join(tmp, "blocks.mtx")
    write_block_tridiagonal(blocks, 300)
    rc, out, err = kryl.run("solve", blocks, "--method", "gmres", "--format", "bcsr4")
    t.check(rc == 1 and "bcsr4" in err and "use bcsr2 or csr" in err,
            "bcsr4 refused where bcsr2 fits: bcsr2 suggested", err)
    rc, out, err = kryl.run("solve", blocks, "--method", "gmres", "--format", "bcsr2", "-q")
    t.check(rc == 0, "the suggested bcsr2 is accepted", err)
    rc, out, err = kryl.run("solve", "--gen", "poisson2d", "--n", "40", "--format", "bcsr4")
    t.check(rc == 1 and "use csr or sell" in err and "bcsr2" not in err,
            "bcsr4 refused where bcsr2 is refused too: bcsr2 not suggested", err)


def test_pattern_file(t, kryl, tmp):
    pattern = os.path.join(tmp, "pattern.mtx")
    with open(pattern, "w") as f:
        f.write("%%MatrixMarket matrix coordinate pattern general\n3 3 5\n"
                "1 1\n2 2\n3 3\n1 2\n3 1\n")
    rc, out, err = kryl.run("solve", pattern, "--method", "gmres", "--view")
    t.check(rc == 0 and "pattern.mtx is a Matrix Market pattern file" in err and
            "read as 1" in err, "pattern file: a warning on stderr", err)
    t.check("a pattern file: every value 1" in out, "pattern file: the summary says so", out)
    t.check("values pattern file: all 1" in out, "pattern file: --view says so", out)
    rc, obj, err = kryl.json("solve", pattern, "--method", "gmres", "--view")
    t.check(rc == 0 and obj and obj["pattern"] is True and
            obj["view"]["matrix"]["values"] == "pattern file: all 1",
            "pattern file: the JSON says so", str(obj) + err)
    real = os.path.join(tmp, "real.mtx")
    kryl.run("gen", "poisson2d", "--n", "5", "-o", real)
    rc, obj, err = kryl.json("solve", real)
    t.check(rc == 0 and obj and obj["pattern"] is False and "pattern" not in err,
            "a real file: no note", err)


def main():
    kryl, _ = arguments("test_option_defaults")
    t = Checks("test_option_defaults")
    with temp_dir() as tmp:
        test_cg_defaults(t, kryl)
        test_bcsr_suggestion(t, kryl, tmp)
        test_pattern_file(t, kryl, tmp)
    t.finish()


if __name__ == "__main__":
    main()
