"""kryl gen for the finite-element kinds: the matrix is symmetric up to
rounding, --coordinates writes one row of coordinates per node of the
unknowns, and asking a kind without a mesh for coordinates is refused
without writing the file; kryl solve takes such a matrix as symmetric
(--symmetry-tol, default 1e-12) and reports the measured asymmetry."""

import os

from clitest import Checks, arguments, read_mtx, temp_dir


def read_array(path):
    """A Matrix Market array file as (rows, cols, column-major values)."""
    with open(path) as f:
        lines = [line for line in f if not line.startswith("%")]
    rows, cols = (int(v) for v in lines[0].split())
    return rows, cols, [float(v) for v in lines[1:]]


def test_kind(t, kryl, tmp, kind, n, rows, dim, dofs):
    path, xyz = os.path.join(tmp, kind + ".mtx"), os.path.join(tmp, kind + "_xyz.mtx")
    rc, _, err = kryl.run("gen", kind, "--n", n, "-o", path, "--coordinates", xyz)
    if not t.check(rc == 0 and os.path.exists(path) and os.path.exists(xyz),
                   "gen %s --n %d --coordinates" % (kind, n), err):
        return
    nrows, ncols, entries = read_mtx(path)
    t.check(nrows == rows and ncols == rows, "%s: %d x %d" % (kind, rows, rows),
            "%d x %d" % (nrows, ncols))
    largest = max(abs(v) for v in entries.values())
    asym = max(abs(v - entries.get((j, i), 0.0)) for (i, j), v in entries.items())
    t.check(0.0 < asym <= 1e-14 * largest, "%s: symmetric up to rounding" % kind,
            "max |a_ij - a_ji| = %g, max |a_ij| = %g" % (asym, largest))
    nodes, cols, values = read_array(xyz)
    t.check(nodes * dofs == rows and cols == dim and len(values) == nodes * dim,
            "%s: %d coordinates per node of the unknowns" % (kind, dim),
            "%d x %d, %d values" % (nodes, cols, len(values)))


def test_symmetry_tol(t, kryl, tmp):
    path = os.path.join(tmp, "elasticity3d.mtx")
    what = "solve elasticity3d --method pcg --precond ic0"
    rc, obj, err = kryl.json("solve", path, "--method", "pcg", "--precond", "ic0", "--backend",
                             "ref")
    if t.check(rc == 0 and obj is not None, what + ": exit 0 with JSON", err):
        t.check(obj.get("converged") is True and 0.0 < obj.get("asymmetry", 0.0) <= 1e-14
                and obj.get("symmetry_tol") == 1e-12,
                what + ": converged, asymmetry reported", str(obj))
    rc, _, err = kryl.run("solve", path, "--method", "pcg", "--precond", "ic0", "--backend",
                          "ref", "--symmetry-tol", 0)
    t.check(rc == 1 and "not symmetric" in err and "max |a_ij - a_ji|" in err,
            what + " --symmetry-tol 0: refused, naming the asymmetry", err)
    rc, out, err = kryl.run("info", path)
    t.check(rc == 0 and "symmetric up to rounding" in out, "info: symmetric up to rounding",
            out + err)


def main():
    kryl, _ = arguments("test_gen_fem")
    t = Checks("test_gen_fem")
    with temp_dir() as tmp:
        test_kind(t, kryl, tmp, "fem-p1-2d", 10, 81, 2, 1)
        test_kind(t, kryl, tmp, "fem-p2-2d", 5, 81, 2, 1)
        test_kind(t, kryl, tmp, "fem-p1-3d", 5, 64, 3, 1)
        test_kind(t, kryl, tmp, "elasticity3d", 2, 216, 3, 3)
        test_symmetry_tol(t, kryl, tmp)
        path, xyz = os.path.join(tmp, "p.mtx"), os.path.join(tmp, "p_xyz.mtx")
        rc, _, err = kryl.run("gen", "poisson2d", "--n", 5, "-o", path, "--coordinates", xyz)
        t.check(rc == 1 and "no mesh" in err and not os.path.exists(xyz),
                "gen poisson2d --coordinates is refused", err)
    t.finish()


if __name__ == "__main__":
    main()
