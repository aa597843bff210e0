"""kryl gen for the finite-element kinds: the matrix is symmetric up to
rounding, --coordinates writes one row of coordinates per node of the
unknowns, and asking a kind without a mesh for coordinates is refused
without writing the file."""

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


def main():
    kryl, _ = arguments("test_gen_fem")
    t = Checks("test_gen_fem")
    with temp_dir() as tmp:
        test_kind(t, kryl, tmp, "fem-p1-2d", 10, 81, 2, 1)
        test_kind(t, kryl, tmp, "fem-p2-2d", 5, 81, 2, 1)
        test_kind(t, kryl, tmp, "fem-p1-3d", 5, 64, 3, 1)
        test_kind(t, kryl, tmp, "elasticity3d", 2, 216, 3, 3)
        path, xyz = os.path.join(tmp, "p.mtx"), os.path.join(tmp, "p_xyz.mtx")
        rc, _, err = kryl.run("gen", "poisson2d", "--n", 5, "-o", path, "--coordinates", xyz)
        t.check(rc == 1 and "no mesh" in err and not os.path.exists(xyz),
                "gen poisson2d --coordinates is refused", err)
    t.finish()


if __name__ == "__main__":
    main()
