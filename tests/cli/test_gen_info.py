"""kryl gen and kryl info: every generator kind writes a readable matrix;
info's statistics agree with a count made here from the file itself."""

import math
import os

from clitest import Checks, arguments, matrix_path, read_mtx, temp_dir

INFO_KEYS = ["n", "nrows", "ncols", "nnz", "symmetric", "symmetric_pattern", "row_min",
             "row_mean", "row_max", "row_stddev", "empty_rows", "zero_diagonals",
             "positive_diagonal", "dominant_rows", "strictly_dominant_rows", "bandwidth",
             "envelope", "frobenius_norm", "max_abs", "spmv_bytes_double", "spmv_bytes_single"]


def expected_stats(path):
    """The statistics kryl info reports, counted from the file in Python."""
    nrows, ncols, entries = read_mtx(path)
    lengths = [0] * nrows
    first = [None] * nrows
    diag = [0.0] * nrows
    off = [0.0] * nrows
    for (i, j), v in entries.items():
        lengths[i] += 1
        first[i] = j if first[i] is None else min(first[i], j)
        if i == j:
            diag[i] = v
        else:
            off[i] += abs(v)
    nnz = len(entries)
    mean = nnz / nrows
    square = nrows == ncols
    return {
        "nrows": nrows, "ncols": ncols, "nnz": nnz,
        "row_min": min(lengths), "row_max": max(lengths), "row_mean": mean,
        "row_stddev": math.sqrt(sum((n - mean) ** 2 for n in lengths) / nrows),
        "empty_rows": lengths.count(0),
        "bandwidth": max(abs(i - j) for (i, j) in entries),
        "envelope": sum(i - f for i, f in enumerate(first) if f is not None and f < i),
        "symmetric": square and all(entries.get((j, i), 0.0) == v
                                    for (i, j), v in entries.items()),
        "symmetric_pattern": square and all((j, i) in entries for (i, j) in entries),
        "zero_diagonals": sum(1 for d in diag if d == 0.0),
        "positive_diagonal": all(d > 0.0 for d in diag),
        "dominant_rows": sum(1 for d, o in zip(diag, off) if abs(d) >= o),
        "strictly_dominant_rows": sum(1 for d, o in zip(diag, off) if abs(d) > o),
        "frobenius_norm": math.sqrt(sum(v * v for v in entries.values())),
        "max_abs": max(abs(v) for v in entries.values()),
        "spmv_bytes_double": 12 * nnz + 4 * (nrows + 1) + 8 * (nrows + ncols),
        "spmv_bytes_single": 8 * nnz + 4 * (nrows + 1) + 4 * (nrows + ncols),
    }


def check_info(t, kryl, path, what):
    """kryl info --json on path against the Python count; returns the JSON."""
    rc, obj, err = kryl.json("info", path)
    if not t.check(rc == 0 and obj is not None, "%s: info exits 0 with JSON" % what, err):
        return None
    missing = [k for k in INFO_KEYS if k not in obj]
    t.check(not missing, "%s: info keys" % what, "missing %s" % missing)
    for key, value in expected_stats(path).items():
        got = obj.get(key)
        if isinstance(value, float):
            ok = got is not None and abs(got - value) <= 1e-12 * max(1.0, abs(value))
        else:
            ok = got == value
        t.check(ok, "%s: %s = %s, expected %s" % (what, key, got, value))
    return obj


def generator_kinds(kryl):
    """The kinds `kryl help gen` lists after "KIND is one of:"."""
    _, out, _ = kryl.run("help", "gen")
    return out.split("KIND is one of:")[-1].split()


def test_round_trip(t, kryl, tmp):
    """gen poisson3d --n 5, then info: 125 rows, 725 entries, symmetric."""
    a = os.path.join(tmp, "p5.mtx")
    rc, out, err = kryl.run("gen", "poisson3d", "--n", 5, "-o", a)
    t.check(rc == 0 and "wrote %s: 125 rows, 725 entries" % a in err, "gen poisson3d --n 5",
            err)
    obj = check_info(t, kryl, a, "poisson3d n=5")
    if obj:
        t.check(obj["n"] == 125 and obj["nnz"] == 725 and obj["symmetric"] is True,
                "poisson3d n=5: n=125, nnz=725, symmetric", str(obj))
        t.check(obj["bandwidth"] == 25 and obj["strictly_dominant_rows"] == 98,
                "poisson3d n=5: bandwidth 25, 98 strictly dominant rows")
    rc, out, err = kryl.run("info", a)
    for word in ["125 x 125", "725 nonzeros", "symmetric", "bandwidth", "Frobenius",
                 "spmv bytes", "dominant"]:
        t.check(word in out, "info summary mentions '%s'" % word, out)
    # explicit grid sizes override --n
    b = os.path.join(tmp, "p234.mtx")
    rc, _, err = kryl.run("gen", "poisson3d", "--nx", 2, "--ny", 3, "--nz", 4, "-o", b)
    rc, obj, err = kryl.json("info", b)
    t.check(rc == 0 and obj and obj["n"] == 24, "gen --nx 2 --ny 3 --nz 4 gives 24 rows", err)


def test_kinds(t, kryl, tmp):
    """Every generator kind: written, read back, statistics right; the
    options reach the generator."""
    kinds = generator_kinds(kryl)
    t.check(len(kinds) >= 10, "help gen lists the kinds", str(kinds))
    for kind in kinds:
        path = os.path.join(tmp, kind + ".mtx")
        n = 40 if kind in ("random-spd", "powerlaw") else 4
        rc, _, err = kryl.run("gen", kind, "--n", n, "-o", path)
        if not t.check(rc == 0 and os.path.exists(path), "gen %s" % kind, err):
            continue
        obj = check_info(t, kryl, path, kind)
        if obj and kind.startswith(("poisson", "aniso", "random")):
            t.check(obj["symmetric"], "%s is symmetric" % kind)
        if obj and kind.startswith("convdiff"):
            t.check(not obj["symmetric"], "%s is nonsymmetric" % kind)
    s1, s2 = os.path.join(tmp, "s1.mtx"), os.path.join(tmp, "s2.mtx")
    kryl.run("gen", "random-spd", "--n", 50, "--seed", 1, "--row-length", 6, "-o", s1)
    kryl.run("gen", "random-spd", "--n", 50, "--seed", 2, "--row-length", 6, "-o", s2)
    t.check(read_mtx(s1)[2] != read_mtx(s2)[2], "--seed changes a random matrix")
    e1, e2 = os.path.join(tmp, "e1.mtx"), os.path.join(tmp, "e2.mtx")
    kryl.run("gen", "aniso2d", "--n", 4, "--epsilon", 0.5, "-o", e1)
    kryl.run("gen", "aniso2d", "--n", 4, "--epsilon", 0.001, "-o", e2)
    t.check(read_mtx(e1)[2] != read_mtx(e2)[2], "--epsilon changes aniso2d")
    p1, p2 = os.path.join(tmp, "c1.mtx"), os.path.join(tmp, "c2.mtx")
    kryl.run("gen", "convdiff2d", "--n", 4, "--peclet", 1, "-o", p1)
    kryl.run("gen", "convdiff2d", "--n", 4, "--peclet", 50, "-o", p2)
    t.check(read_mtx(p1)[2] != read_mtx(p2)[2], "--peclet changes convdiff2d")


def test_real(t, kryl, matrices):
    """info on real matrices: symmetric, nonsymmetric, rectangular, pattern."""
    for name in ["nos4.mtx", "bcsstk06.mtx", "west0067.mtx", "lp_ship04l.mtx",
                 "ca-GrQc.mtx", "cage4.mtx"]:
        path = matrix_path(matrices, name)
        if path is None:
            t.skip("%s absent" % name)
            continue
        obj = check_info(t, kryl, path, name)
        if obj and name == "nos4.mtx":
            t.check(obj["n"] == 100 and obj["nnz"] == 594 and obj["symmetric"] and
                    obj["row_max"] == 7, "nos4: 100 rows, 594 entries, symmetric, max row 7")
        if obj and name == "lp_ship04l.mtx":
            t.check(obj["nrows"] == 402 and obj["ncols"] == 2166 and obj["square"] is False,
                    "lp_ship04l: 402 x 2166, not square")
    gz = matrix_path(matrices, "bcsstk33.mtx.gz")
    if gz is not None:
        rc, obj, err = kryl.json("info", gz)
        t.check(rc == 0 and obj and obj["n"] == 8738 and obj["nnz"] == 591904,
                "info on a .mtx.gz", err)


def main():
    kryl, matrices = arguments("test_gen_info")
    t = Checks("test_gen_info")
    with temp_dir() as tmp:
        test_round_trip(t, kryl, tmp)
        test_kinds(t, kryl, tmp)
        test_real(t, kryl, matrices)
    t.finish()


if __name__ == "__main__":
    main()
