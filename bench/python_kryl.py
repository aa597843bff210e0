#!/usr/bin/env python3
"""kryl from Python against scipy.sparse.linalg (CPU) and CuPy (GPU).

CPU part: the 7-point Poisson matrix on n^3 points (kryl's poisson3d, the same
matrix handed to both) and a real SPD matrix, b = A*1, x0 = 0, rtol 1e-8:
  - kryl.solve (omp backend) against scipy.sparse.linalg.cg, unpreconditioned
    and with Jacobi (SciPy's M = diag(A)^-1), and kryl's AMG-preconditioned CG
    against pyamg's smoothed aggregation with CG where pyamg is installed: wall
    seconds of the whole Python call (setup included) and the iterations, and
    the Python overhead of each kryl call: (wall - library) / library, where
    library is libkryl's own time (creating the matrix from SciPy's arrays,
    setup_s and solve_s);
  - the Python overhead of kryl.Solver.solve on a set-up solver: its wall time
    minus the library's solve_s (wrapping b and x, the SolveInfo), against
    solve_s;
  - seconds per iteration from Python against `kryl solve --json` on the same
    problem (the CLI given by --cli, default build/tools/kryl/kryl).
GPU part (--gpu): kryl (cuda backend) CG and GMRES(40) against
cupyx.scipy.sparse.linalg.cg and gmres on the 7-point n^3 (--gpu-n, default
160): kryl.Solver.solve with NumPy and with CuPy right-hand sides (overhead
against solve_s), the whole kryl.solve call from a cupyx CSR matrix (created
on the device: overhead against libkryl's time, and whether a host copy was
made, and the setup's checks phase), and seconds per iteration against
`kryl solve --backend cuda`.

Medians of --repeat runs after a warm-up.  Prints one table per part.

usage: python3 bench/python_kryl.py [--n 100] [--matrix PATH] [--cli PATH] [--threads T]
                                    [--repeat 3] [--gpu [--gpu-n 160]] [--quick]
"""

import argparse
import inspect
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

# the CPUs this process may use, before OpenMP binds its first thread (with
# OMP_PROC_BIND) and narrows the mask the CLI would inherit
ALL_CPUS = os.sched_getaffinity(0)

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402
import scipy.sparse.linalg as spla  # noqa: E402

import kryl  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[1]
RTOL = 1e-8


def tol_keyword(function):
    """SciPy >= 1.12 (and CuPy >= 13) name the tolerance rtol, older ones tol."""
    return "rtol" if "rtol" in inspect.signature(function).parameters else "tol"


def median_time(run, repeat):
    """(median seconds, the last result) of run() after one warm-up call."""
    result = run()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def scipy_cg(A, b, M=None):
    """SciPy CG to RTOL: (x, iterations)."""
    count = [0]

    def callback(_xk):
        count[0] += 1

    x, flag = spla.cg(A, b, M=M, maxiter=100000, callback=callback, **{tol_keyword(spla.cg): RTOL})
    return x, count[0] if flag == 0 else -count[0]


def relres(A, x, b):
    return float(np.linalg.norm(b - A @ x) / np.linalg.norm(b))


def row(name, seconds, iterations, res):
    print(f"  {name:<38} {seconds:9.4f} s  {iterations:7d} its  relres {res:.2e}")


def kryl_solve(A, b, **options):
    """kryl.solve(A, b, **options), with the seconds libkryl itself took:
    (x, info, library seconds)."""
    with kryl.Solver(A, rtol=RTOL, history=False, **options) as s:
        x, info = s.solve(b)
        return x, info, s.matrix.library_s + info.setup_s + info.solve_s


def median_overhead(run, repeat):
    """run() -> (x, info, library seconds), timed after one warm-up call:
    (median wall seconds, median overhead seconds, median (wall - library) /
    library, the last (x, info, library))."""
    result = run()
    walls, overheads, fractions = [], [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = run()
        wall = time.perf_counter() - t0
        walls.append(wall)
        overheads.append(wall - result[2])
        fractions.append((wall - result[2]) / result[2])
    return (statistics.median(walls), statistics.median(overheads), statistics.median(fractions),
            result)


def overhead_row(info, library, overhead, fraction):
    print(f"  {'':<38} of which setup {info.setup_s:.4f} s, solve {info.solve_s:.4f} s, "
          f"library {library:.4f} s: Python overhead {1e3 * overhead:.2f} ms = "
          f"{100 * fraction:.2f}%")


def cpu_comparison(label, A, b, repeat, threads):
    """kryl against SciPy's CG (and pyamg) on one SPD matrix."""
    print(f"\n{label}: {A.shape[0]} rows, {A.nnz} nonzeros, rtol {RTOL:g}, "
          f"{os.cpu_count()} cores")
    for precond in ("none", "jacobi"):
        method = "cg" if precond == "none" else "pcg"
        t, overhead, fraction, (x, info, library) = median_overhead(
            lambda: kryl_solve(A, b, method=method, precond=precond, backend="omp",
                               threads=threads), repeat)
        row(f"kryl.solve {method} ({info.device})", t, info.iterations, relres(A, x, b))
        overhead_row(info, library, overhead, fraction)
        M = None if precond == "none" else sp.diags(1.0 / A.diagonal()).tocsr()
        t, (x, its) = median_time(lambda: scipy_cg(A, b, M), repeat)
        row(f"scipy cg{' + jacobi' if M is not None else ''}", t, its, relres(A, x, b))
    t, overhead, fraction, (x, info, library) = median_overhead(
        lambda: kryl_solve(A, b, method="pcg", precond="amg", backend="omp", threads=threads),
        repeat)
    row(f"kryl.solve amg ({info.device})", t, info.iterations, relres(A, x, b))
    overhead_row(info, library, overhead, fraction)
    try:
        import pyamg
    except ImportError:
        print("  pyamg: not installed, skipped")
        return
    def amg():
        ml = pyamg.smoothed_aggregation_solver(A)
        residuals = []
        x = ml.solve(b, tol=RTOL, accel="cg", maxiter=1000, residuals=residuals)
        return x, len(residuals) - 1
    t, (x, its) = median_time(amg, repeat)
    row("pyamg smoothed aggregation + cg", t, its, relres(A, x, b))


def overhead_and_cli(n, repeat, cli, threads, backend="omp"):
    """Python overhead per solve and seconds per iteration against the CLI."""
    M = kryl.Matrix.generate("poisson3d", n, backend=backend, threads=threads)
    b = M.to_scipy() @ np.ones(M.shape[0])
    print(f"\nkryl.Solver on poisson3d n={n} ({M.shape[0]} rows), cg, {backend} "
          f"({M.context.device_name}):")
    with kryl.Solver(M, method="cg", rtol=RTOL, history=False) as s:
        def solve():
            x, info = s.solve(b)
            return x, info, info.solve_s

        wall, overhead, fraction, (x, info, _) = median_overhead(solve, repeat)
    print(f"  wall {wall:.4f} s, library solve_s {info.solve_s:.4f} s: Python overhead "
          f"{1e3 * overhead:.2f} ms = {100 * fraction:.2f}% of the solve")
    if M.shape[0] >= 1_000_000:
        print(f"  target: overhead < 1% of the solve for >= 1M rows: "
              f"{'met' if fraction < 0.01 else 'missed'}")
    per_it = info.time_per_iteration_s
    print(f"  per iteration from Python  {1e3 * per_it:.3f} ms ({info.iterations} its)")
    if not cli or not os.path.exists(cli):
        print(f"  the CLI ({cli}) not found: give --cli build/tools/kryl/kryl")
        return
    cli_its = []
    for _ in range(repeat):
        out = subprocess.run([cli, "solve", "--gen", "poisson3d", "--n", str(n), "--method", "cg",
                              "--backend", backend, "--threads", str(threads), "--rtol", str(RTOL),
                              "--json", "--quiet"],
                             capture_output=True, text=True, check=False,
                             preexec_fn=lambda: os.sched_setaffinity(0, ALL_CPUS))
        report = json.loads(out.stdout)
        cli_its.append(report["time_per_iteration_s"])
    cli_per_it = statistics.median(cli_its)
    print(f"  per iteration from the CLI {1e3 * cli_per_it:.3f} ms ({report['iterations']} its): "
          f"Python / CLI = {per_it / cli_per_it:.3f}")
    print(f"  setup: Python's Solver {info.setup_s:.4f} s (checks "
          f"{info.setup_phases['checks']:.4f} s), the CLI's {report['setup_s']:.4f} s")


def gpu_comparison(n, repeat):
    try:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        import cupyx.scipy.sparse.linalg as cla
    except ImportError as err:
        print(f"\nGPU part: CuPy is not available ({err}), skipped")
        return
    if not kryl.backend_available("cuda"):
        print("\nGPU part: this libkryl has no usable cuda backend, skipped")
        return
    M = kryl.Matrix.generate("poisson3d", n, backend="cuda")
    A = M.to_scipy()
    b = A @ np.ones(A.shape[0])
    Ad, bd = csp.csr_matrix(A), cp.asarray(b)
    print(f"\nGPU: poisson3d n={n} ({A.shape[0]} rows), rtol {RTOL:g}")

    def synced(f):
        def run():
            out = f()
            cp.cuda.Device().synchronize()
            return out
        return run

    for method in ("cg", "gmres"):
        with kryl.Solver(M, method=method, rtol=RTOL, history=False) as s:
            for kind, rhs in (("numpy b", b), ("cupy b", bd)):
                def solve():
                    x, info = s.solve(rhs)
                    cp.cuda.Device().synchronize()
                    return x, info, info.solve_s

                t, overhead, fraction, (x, info, _) = median_overhead(solve, repeat)
                xh = x.get() if hasattr(x, "get") else x
                row(f"kryl.Solver {method} ({kind})", t, info.iterations, relres(A, xh, b))
                print(f"  {'':<38} library solve_s {info.solve_s:.4f} s, overhead "
                      f"{1e3 * overhead:.2f} ms ({100 * fraction:.2f}%), "
                      f"{1e3 * info.time_per_iteration_s:.3f} ms/it")
        # the whole call from a cupyx matrix: checked and copied on the device
        t, overhead, fraction, (x, info, library) = median_overhead(
            synced(lambda: kryl_solve(Ad, bd, method=method, backend="cuda")), repeat)
        row(f"kryl.solve {method} (cupyx A, cupy b)", t, info.iterations, relres(A, x.get(), b))
        overhead_row(info, library, overhead, fraction)
        print(f"  {'':<38} host copy of A: {info.host_copy}; setup checks "
              f"{1e3 * info.setup_phases['checks']:.2f} ms of {1e3 * info.setup_s:.2f} ms")
        solver = cla.cg if method == "cg" else cla.gmres
        extra = {} if method == "cg" else {"restart": 40}
        count = [0]

        def cupy_run():
            count[0] = 0

            def callback(_):
                count[0] += 1

            return solver(Ad, bd, maxiter=100000 if method == "cg" else 2500, callback=callback,
                          **extra, **{tol_keyword(solver): RTOL})[0]

        t, x = median_time(synced(cupy_run), repeat)
        its = count[0] * (40 if method == "gmres" else 1)
        row(f"cupyx {method}", t, its, relres(A, x.get(), b))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=100, help="7-point Poisson grid n (CPU)")
    p.add_argument("--matrix", default=str(REPO.parent / "shared" / "matrices" / "bcsstk15.mtx"),
                   help="a real SPD Matrix Market file")
    p.add_argument("--cli", default=str(REPO / "build" / "tools" / "kryl" / "kryl"))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--threads", type=int, default=0, help="omp threads (default: OpenMP's)")
    p.add_argument("--gpu", action="store_true", help="the GPU part only")
    p.add_argument("--gpu-n", type=int, default=160)
    p.add_argument("--quick", action="store_true", help="small sizes, one run: a smoke test")
    a = p.parse_args()
    if a.quick:
        a.n, a.gpu_n, a.repeat = 20, 40, 1
    print(f"kryl {kryl.__version__} ({kryl.LIBRARY_PATH}), NumPy {np.__version__}, "
          f"SciPy {__import__('scipy').__version__}, Python {sys.version.split()[0]}")
    if a.gpu:
        gpu_comparison(a.gpu_n, a.repeat)
        if kryl.backend_available("cuda"):
            overhead_and_cli(a.gpu_n, a.repeat, a.cli, 0, backend="cuda")
        return
    A = kryl.Matrix.generate("poisson3d", a.n, backend="omp").to_scipy().tocsr()
    cpu_comparison(f"poisson3d n={a.n}", A, A @ np.ones(A.shape[0]), a.repeat, a.threads)
    if os.path.exists(a.matrix):
        R = kryl.Matrix.from_file(a.matrix, backend="omp").to_scipy().tocsr()
        cpu_comparison(os.path.basename(a.matrix), R, R @ np.ones(R.shape[0]), a.repeat, a.threads)
    else:
        print(f"\n{a.matrix} absent: the real matrix skipped")
    overhead_and_cli(a.n, a.repeat, a.cli, a.threads)


if __name__ == "__main__":
    main()
