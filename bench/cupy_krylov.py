#!/usr/bin/env python3
"""GMRES of CuPy (cupyx.scipy.sparse.linalg.gmres, restart 40) on the problems of
bench_krylov's part (c).

The matrix equals kryl's convdiff2d generator (default Peclet number 10):
-u_xx - u_yy + 10 (u_x + u_y), first-order upwind, unscaled, on m x m
(T (x) I + I (x) T with T = tridiag(-11, 12, -1)), built with cupyx.scipy.sparse
Kronecker products.  b = A*1, x0 = 0, double.  Prints ms per restart cycle
(5 whole cycles timed: an unreachable tolerance and maxiter = 200), the total
time to rtol 1e-8 (relative to ||b||; CuPy tests it at each restart) with the
iterations it ran, and the true relative residual; medians of 3 runs after a
warm-up.

usage: cupy_krylov.py [--quick]   (--quick: smaller grids, for a smoke test)
"""
import argparse
import inspect
import sys
import time

try:
    import cupy as cp
    import cupyx.scipy.sparse as sp
    from cupyx.scipy.sparse.linalg import gmres
except ImportError as err:  # no CuPy: nothing to compare with
    print(f"cupy_krylov: CuPy is not available ({err}), skipped")
    sys.exit(77)

RESTART = 40
CYCLES = 5


def convdiff2d(m, peclet=10.0):
    """-lap u + peclet (u_x + u_y), upwind: T(x)I + I(x)T, T = tridiag(-1-peclet, 2+peclet, -1)."""
    t = sp.diags([-1.0 - peclet, 2.0 + peclet, -1.0], [-1, 0, 1], shape=(m, m), format="csr",
                 dtype=cp.float64)
    i = sp.identity(m, dtype=cp.float64, format="csr")
    return (sp.kron(t, i) + sp.kron(i, t)).tocsr()


def solve(a, b, tol_name, tol, maxiter):
    """One GMRES solve from x0 = 0: (seconds, iterations, x)."""
    cycles = [0]

    def callback(_residual):
        cycles[0] += 1

    cp.cuda.Device().synchronize()
    start = time.perf_counter()
    x, _info = gmres(a, b, restart=RESTART, maxiter=maxiter, callback=callback,
                     callback_type="pr_norm", **{tol_name: tol})
    cp.cuda.Device().synchronize()
    return time.perf_counter() - start, RESTART * cycles[0], x


def median_solve(a, b, tol_name, tol, maxiter):
    solve(a, b, tol_name, tol, maxiter)  # warm-up: kernels compiled and cached
    runs = sorted((solve(a, b, tol_name, tol, maxiter) for _ in range(3)), key=lambda r: r[0])
    return runs[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller grids")
    args = parser.parse_args()
    params = inspect.signature(gmres).parameters
    tol_name = "rtol" if "rtol" in params else "tol"
    print(f"cupy_krylov: CuPy {cp.__version__} on "
          f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    print(f"{'matrix':16s} {'n':>9s} {'ms/cycle':>10s} {'total s':>10s} {'its':>7s} {'relres':>9s}")
    for m in ((300, 100) if args.quick else (1000, 300)):
        a = convdiff2d(m)
        n = a.shape[0]
        b = a @ cp.ones(n, dtype=cp.float64)
        seconds, iterations, _ = median_solve(a, b, tol_name, 1e-30, RESTART * CYCLES)
        cycle_ms = 1e3 * seconds * RESTART / max(iterations, 1)
        total, iterations, x = median_solve(a, b, tol_name, 1e-8, 40000)
        relres = float(cp.linalg.norm(b - a @ x) / cp.linalg.norm(b))
        label = f"convdiff2d-{m}"
        print(f"{label:16s} {n:9d} {cycle_ms:10.4f} {total:10.4f} {iterations:7d} {relres:9.2e}")
        print(f"RESULT cupy-gmres {label} cycle_ms={cycle_ms:.4f} total_s={total:.4f} "
              f"its={iterations} relres={relres:.3e}", flush=True)


if __name__ == "__main__":
    main()
