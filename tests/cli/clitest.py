"""Shared pieces of the kryl command-line tests (Python 3 standard library
only): running the binary, counting checks, and a small Matrix Market
reader to recompute residuals and statistics independently."""

import json
import math
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77


class Checks:
    """Counts passed and failed checks and prints the summary line."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def check(self, cond, what, detail=""):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: %s%s" % (what, ("\n      " + detail.strip().replace("\n", "\n      "))
                                  if detail else ""))
        return bool(cond)

    def skip(self, what):
        self.skipped += 1
        print("skip: %s" % what)

    def finish(self):
        """Print "N passed, N failed" and exit: 0, 1 on failures, 77 if nothing ran."""
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed))
        if self.failed:
            sys.exit(1)
        sys.exit(SKIP if self.passed == 0 else 0)


class Kryl:
    """Runs the kryl binary."""

    def __init__(self, path):
        self.path = path

    def run(self, *args, timeout=600, env=None):
        """(exit status, stdout, stderr) of `kryl ARGS` (env: its environment, else ours)."""
        p = subprocess.run([self.path] + [str(a) for a in args], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout,
                           env=env)
        return p.returncode, p.stdout, p.stderr

    def json(self, *args, timeout=600, env=None):
        """(exit status, parsed JSON object or None, stderr) of `kryl ARGS --json`."""
        rc, out, err = self.run(*(list(args) + ["--json"]), timeout=timeout, env=env)
        try:
            obj = json.loads(out)
        except ValueError:
            obj = None
            err = err + "\n[stdout is not one JSON object]\n" + out
        return rc, obj, err


def backends(kryl):
    """The backends `kryl --version` lists as usable here: ref, omp, cuda."""
    _, out, _ = kryl.run("--version")
    usable = out.split("backends:")[-1].split(";")[0].split(")")[0]
    return [b for b in ["ref", "omp", "cuda"] if b in usable.split()]


UNSUPPORTED = re.compile(r"does not implement|has no \S+ SpMV kernel")


def unsupported(t, backend, what, rc, err):
    """True (and a skip) when a backend other than ref answered that it
    lacks an operation or kernel; ref must have them all (a failure)."""
    if rc != 1 or not UNSUPPORTED.search(err):
        return False
    if backend == "ref":
        t.check(False, "%s: the ref backend must support it" % what, err)
    else:
        t.skip("%s: unsupported on %s (%s)" % (what, backend, err.strip()))
    return True


def arguments(name):
    """(Kryl, matrices directory or None) from argv; exits 77 without a binary."""
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        print("%s: usage: %s KRYL_BINARY [MATRICES_DIR]" % (name, sys.argv[0]))
        sys.exit(SKIP)
    # KRYL_MATRICES overrides the build's directory, as for the C tests
    given = os.environ.get("KRYL_MATRICES") or (sys.argv[2] if len(sys.argv) > 2 else "")
    matrices = given if given and os.path.isdir(given) else None
    return Kryl(sys.argv[1]), matrices


def matrix_path(matrices, name):
    """Path of a real matrix, or None when it is not there."""
    if matrices is None:
        return None
    path = os.path.join(matrices, name)
    return path if os.path.exists(path) else None


def temp_dir():
    return tempfile.TemporaryDirectory(prefix="kryl-cli-")


def read_mtx(path):
    """A Matrix Market file as (nrows, ncols, {(i, j): value}) with 0-based
    indices; symmetric and skew-symmetric storage are expanded, pattern
    entries are 1, duplicates are summed, array files give every entry."""
    with open(path) as f:
        banner = f.readline().split()
        if len(banner) < 5 or banner[0] != "%%MatrixMarket":
            raise ValueError("%s: no Matrix Market banner" % path)
        fmt, field, symmetry = banner[2].lower(), banner[3].lower(), banner[4].lower()
        line = f.readline()
        while line.startswith("%") or not line.strip():
            line = f.readline()
        sizes = [int(t) for t in line.split()]
        tokens = f.read().split()
    nrows, ncols = sizes[0], sizes[1]
    entries = {}

    def add(i, j, v):
        entries[(i, j)] = entries.get((i, j), 0.0) + v
        if symmetry != "general" and i != j:
            entries[(j, i)] = entries.get((j, i), 0.0) + (-v if symmetry == "skew-symmetric"
                                                          else v)

    if fmt == "array":
        values = [float(t) for t in tokens]
        k = 0
        for j in range(ncols):
            for i in range(j if symmetry != "general" else 0, nrows):
                add(i, j, values[k])
                k += 1
    else:
        step = 2 if field == "pattern" else 3
        for k in range(sizes[2]):
            i = int(tokens[step * k]) - 1
            j = int(tokens[step * k + 1]) - 1
            add(i, j, 1.0 if field == "pattern" else float(tokens[step * k + 2]))
    return nrows, ncols, entries


def read_vector(path):
    """An n x 1 Matrix Market vector as a list of floats."""
    nrows, ncols, entries = read_mtx(path)
    if ncols != 1:
        raise ValueError("%s: %d columns, expected 1" % (path, ncols))
    x = [0.0] * nrows
    for (i, _), v in entries.items():
        x[i] = v
    return x


def write_vector(path, values):
    """Write a Matrix Market array real general n x 1 file."""
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix array real general\n%d 1\n" % len(values))
        for v in values:
            f.write("%.17g\n" % v)


def spmv(nrows, entries, x):
    """y = A x"""
    y = [0.0] * nrows
    for (i, j), v in entries.items():
        y[i] += v * x[j]
    return y


def norm(x):
    """||x||_2"""
    return math.sqrt(sum(v * v for v in x))


def relres(nrows, entries, b, x):
    """||b - A x|| / ||b||"""
    ax = spmv(nrows, entries, x)
    return norm([bi - ai for bi, ai in zip(b, ax)]) / norm(b)


def problem_paths(t, kryl, tmp, matrices, generator, n, real):
    """[(name, path)]: `kryl gen generator --n n` written in tmp, then each
    real matrix of the list that is present (a skip for each absent one)."""
    gen = os.path.join(tmp, generator + ".mtx")
    kryl.run("gen", generator, "--n", n, "-o", gen)
    paths = [(generator, gen)]
    for name in real:
        path = matrix_path(matrices, name)
        if path is None:
            t.skip("%s absent" % name)
        else:
            paths.append((name, path))
    return paths


def solved(t, backend, what, rc, obj, err):
    """Whether `solve --json` converged: False with a skip where the backend
    lacks an operation (see unsupported), with a failed check otherwise."""
    if unsupported(t, backend, what, rc, err):
        return False
    return t.check(rc == 0 and obj is not None and obj["converged"], "%s: converged" % what,
                   "exit %d\n%s\n%s" % (rc, obj, err))


def check_solution(t, what, path, x_path, rtol, b=None):
    """Check ||b - A x|| / ||b|| <= 1.05 rtol recomputed here for A at path
    and x at x_path (b None: b = A*1)."""
    nrows, _, entries = read_mtx(path)
    if b is None:
        b = spmv(nrows, entries, [1.0] * nrows)
    r = relres(nrows, entries, b, read_vector(x_path))
    t.check(r <= 1.05 * rtol, "%s: recomputed relres %.3g <= %g" % (what, r, rtol))


def solve_checked(t, kryl, what, backend, path, args, tmp, rtol):
    """kryl solve with b = A*1 to rtol on backend, then the residual of the
    written x checked here; the JSON, or None when the solve failed."""
    x_path = os.path.join(tmp, "x.mtx")
    rc, obj, err = kryl.json("solve", path, "--backend", backend, "--rtol", rtol, "--maxit",
                             20000, "--out", x_path, *args)
    if not solved(t, backend, what, rc, obj, err):
        return None
    check_solution(t, what, path, x_path, rtol)
    return obj
