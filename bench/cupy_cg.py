#!/usr/bin/env python3
"""CG of CuPy (cupyx.scipy.sparse.linalg.cg) on the problems of bench_cg.

The matrices are built with cupyx.scipy.sparse Kronecker products and equal
kryl's generators: the 3-D 7-point Poisson (6 on the diagonal, -1 to each
neighbour) on 160^3, the 27-point (26 on the diagonal, -1 to each of the 26
neighbours) on 100^3 and the 2-D 5-point on 300^2.  b = A*1, x0 = 0,
rtol 1e-8 (relative to ||b||), double.  Prints ms per iteration (solve wall
time over the iterations counted by the callback; median of 3 solves after a
warm-up), iterations and the true relative residual.

usage: cupy_cg.py [--quick]   (--quick: smaller grids, for a smoke test)
"""
import argparse
import inspect
import sys
import time

try:
    import cupy as cp
    import cupyx.scipy.sparse as sp
    from cupyx.scipy.sparse.linalg import cg
except ImportError as err:  # no CuPy: nothing to compare with
    print(f"cupy_cg: CuPy is not available ({err}), skipped")
    sys.exit(77)


def tridiagonal(m, lower, diagonal, upper):
    """The m x m tridiagonal matrix with constant bands."""
    return sp.diags([lower, diagonal, upper], [-1, 0, 1], shape=(m, m), format="csr",
                    dtype=cp.float64)


def kron3(a, b, c):
    return sp.kron(sp.kron(a, b), c)


def poisson3d(m):
    """-u_xx - u_yy - u_zz, 7-point: T(x)I(x)I + I(x)T(x)I + I(x)I(x)T."""
    t, i = tridiagonal(m, -1.0, 2.0, -1.0), sp.identity(m, dtype=cp.float64, format="csr")
    return kron3(t, i, i) + kron3(i, t, i) + kron3(i, i, t)


def poisson3d27(m):
    """27-point box: 27 I - J(x)J(x)J with J the tridiagonal matrix of ones."""
    j = tridiagonal(m, 1.0, 1.0, 1.0)
    return 27.0 * sp.identity(m ** 3, dtype=cp.float64, format="csr") - kron3(j, j, j)


def poisson2d(m):
    """-u_xx - u_yy, 5-point: T(x)I + I(x)T."""
    t, i = tridiagonal(m, -1.0, 2.0, -1.0), sp.identity(m, dtype=cp.float64, format="csr")
    return sp.kron(t, i) + sp.kron(i, t)


def solve(a, b, tol_name):
    """One CG solve from x0 = 0: (seconds, iterations, x)."""
    count = [0]

    def callback(_xk):
        count[0] += 1

    cp.cuda.Device().synchronize()
    start = time.perf_counter()
    x, info = cg(a, b, maxiter=20000, callback=callback, **{tol_name: 1e-8})
    cp.cuda.Device().synchronize()
    seconds = time.perf_counter() - start
    if info != 0:
        print(f"cupy_cg: cg returned info={info}", file=sys.stderr)
    return seconds, count[0], x


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller grids")
    args = parser.parse_args()
    params = inspect.signature(cg).parameters
    tol_name = "rtol" if "rtol" in params else "tol"
    problems = [("poisson3d", poisson3d, 40 if args.quick else 160),
                ("poisson3d27", poisson3d27, 30 if args.quick else 100),
                ("poisson2d", poisson2d, 100 if args.quick else 300)]
    print(f"cupy_cg: CuPy {cp.__version__} on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print(f"{'matrix':16s} {'n':>9s} {'ms/it':>10s} {'its':>6s} {'relres':>9s}")
    for name, build, m in problems:
        a = build(m).tocsr()
        a.sum_duplicates()
        n = a.shape[0]
        b = a @ cp.ones(n, dtype=cp.float64)
        solve(a, b, tol_name)  # warm-up: kernels compiled and cached
        runs = [solve(a, b, tol_name) for _ in range(3)]
        per_iteration = sorted(1e3 * s / max(k, 1) for s, k, _ in runs)
        _, iterations, x = runs[-1]
        relres = float(cp.linalg.norm(b - a @ x) / cp.linalg.norm(b))
        label = f"{name}-{m}"
        print(f"{label:16s} {n:9d} {per_iteration[1]:10.4f} {iterations:6d} {relres:9.2e}")
        print(f"RESULT cupy {label} ms_it={per_iteration[1]:.4f} its={iterations} "
              f"relres={relres:.3e}", flush=True)


if __name__ == "__main__":
    main()
