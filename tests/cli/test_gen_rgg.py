"""kryl solve --gen rgg / rgg-spatial: CG and PCG converge on the random
geometric graph in both numberings, in about as many iterations; kryl gen
writes it symmetric and strictly diagonally dominant, the two numberings
hold the same values; a size past the generator's limit is refused."""

import os

from clitest import Checks, arguments, read_mtx, temp_dir

N = 20000


def test_solve(t, kryl):
    """cg and pcg (jacobi) on rgg and rgg-spatial converge; same size, close counts."""
    counts = {}
    for kind in ["rgg", "rgg-spatial"]:
        for method, extra in [("cg", []), ("pcg", ["--precond", "jacobi"])]:
            what = "solve --gen %s --n %d --method %s" % (kind, N, method)
            rc, obj, err = kryl.json("solve", "--gen", kind, "--n", N, "--method", method,
                                     "--backend", "ref", *extra)
            if not t.check(rc == 0 and obj is not None, what + ": exit 0 with JSON", err):
                continue
            t.check(obj.get("converged") is True and obj.get("relres", 1.0) <= 1e-8,
                    what + ": converged", str(obj))
            t.check(obj.get("n") == N and abs(obj.get("nnz", 0) - 8 * N) <= 0.03 * 8 * N,
                    what + ": %d rows of about 8 entries" % N, str(obj))
            counts[(kind, method)] = (obj.get("iterations"), obj.get("nnz"))
    for method in ["cg", "pcg"]:
        a, b = counts.get(("rgg", method)), counts.get(("rgg-spatial", method))
        if a and b:
            t.check(a[1] == b[1] and abs(a[0] - b[0]) <= 2,
                    "%s: rgg and rgg-spatial: one graph, about one iteration count" % method,
                    "rgg %s, rgg-spatial %s (iterations, nnz)" % (a, b))


def test_gen(t, kryl, tmp):
    """gen writes a symmetric, strictly dominant matrix; the numberings share values."""
    values = {}
    for kind in ["rgg", "rgg-spatial"]:
        path = os.path.join(tmp, kind + ".mtx")
        rc, _, err = kryl.run("gen", kind, "--n", 300, "--row-length", 6, "--seed", 3, "-o",
                              path)
        if not t.check(rc == 0 and os.path.exists(path), "gen %s --n 300" % kind, err):
            continue
        nrows, ncols, entries = read_mtx(path)
        t.check(nrows == 300 and ncols == 300, "%s: 300 x 300" % kind)
        t.check(all(entries.get((j, i)) == v for (i, j), v in entries.items()),
                "%s: symmetric" % kind)
        diag, off = [0.0] * nrows, [0.0] * nrows
        for (i, j), v in entries.items():
            if i == j:
                diag[i] = v
            else:
                off[i] += abs(v)
        t.check(all(d > o > 0.0 or (o == 0.0 and d > 0.0) for d, o in zip(diag, off)),
                "%s: positive diagonal, strictly dominant rows" % kind)
        values[kind] = sorted(entries.values())
    if len(values) == 2:
        t.check(values["rgg"] == values["rgg-spatial"],
                "rgg and rgg-spatial hold the same entries (renumbered)")
    path = os.path.join(tmp, "big.mtx")
    rc, _, err = kryl.run("gen", "rgg", "--n", 3000000000, "-o", path)
    t.check(rc == 1 and "2^31" in err and not os.path.exists(path),
            "gen rgg --n 3e9 is refused, naming the limit", err)


def main():
    kryl, _ = arguments("test_gen_rgg")
    t = Checks("test_gen_rgg")
    test_solve(t, kryl)
    with temp_dir() as tmp:
        test_gen(t, kryl, tmp)
    t.finish()


if __name__ == "__main__":
    main()
