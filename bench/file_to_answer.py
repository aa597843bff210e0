#!/usr/bin/env python3
"""From a Matrix Market file to the answer: `kryl solve A.mtx` against SciPy + CuPy.

Times, in one run and on the same file (kept in the page cache), `kryl solve FILE
--backend cuda --method cg` (read, setup, solve, b = A*1, x0 = 0, rtol 1e-8)
against what a Python user writes without kryl: `scipy.io.mmread`, the CSR handed
to CuPy, and `cupyx.scipy.sparse.linalg.cg` with the same b, x0 and tolerance.
Two comparisons, medians of --repeat runs each:

  work:    kryl's read + setup + solve (its JSON time_s; the GPU's context is
           made on a thread of its own during the read) against mmread + upload
           + CG inside one Python process whose imports, CUDA context and CuPy
           kernels an earlier repetition already made;
  process: the whole `kryl solve` process against a fresh `python3` running
           the same mmread + CuPy CG (interpreter, imports, context included),
           each as a user starts it from the shell.

Also prints kryl's phases (read, setup, solve), those of its read (parse, rows,
sort, checks, storage: the upload) and of the GPU's start (context_s and
context_wait_s, the read's wait for it after the parse), and the parse rate of
both readers in MB/s.  The file is generated with `kryl gen poisson3d --n N`
unless it already exists (7-point 160^3: 4.1 M rows, about 520 MB).

usage: file_to_answer.py KRYL [--n 160] [--file PATH] [--repeat 3] [--backend cuda]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def kryl_run(kryl, path, backend):
    """One `kryl solve` process: (wall seconds, its JSON)."""
    cmd = [kryl, "solve", path, "--backend", backend, "--method", "cg", "--precond", "none",
           "--rtol", "1e-8", "--json"]
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"file_to_answer: {' '.join(cmd)} failed:\n{done.stderr}")
    return seconds, json.loads(done.stdout)


def info_keys(info):
    """The read phases kryl's JSON reports, in its order."""
    return list(info.get("read_phases", {}))


def python_run(path, on_gpu):
    """mmread + (CuPy upload) + CG: (wall seconds, read seconds, iterations, relres)."""
    import numpy as np
    import scipy.io

    start = time.perf_counter()
    a = scipy.io.mmread(path).tocsr()
    read = time.perf_counter() - start
    if on_gpu:
        import cupy as cp
        import cupyx.scipy.sparse as csp
        from cupyx.scipy.sparse.linalg import cg

        xp, ad = cp, csp.csr_matrix(a)
    else:
        from scipy.sparse.linalg import cg

        xp, ad = np, a
    b = ad @ xp.ones(a.shape[0])
    count = [0]

    def callback(_xk):
        count[0] += 1

    x, _ = cg(ad, b, rtol=1e-8, maxiter=20000, callback=callback)
    relres = float(xp.linalg.norm(b - ad @ x) / xp.linalg.norm(b))
    if on_gpu:
        xp.cuda.Device().synchronize()
    return time.perf_counter() - start, read, count[0], relres


def python_process_run(path, on_gpu):
    """A fresh interpreter running python_run once: wall seconds of the process."""
    cmd = [sys.executable, __file__, "--child", path, "--backend", "cuda" if on_gpu else "cpu"]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        python_run(sys.argv[2], sys.argv[3:] == ["--backend", "cuda"])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kryl", help="the kryl command")
    parser.add_argument("--n", type=int, default=160, help="poisson3d grid points a direction")
    parser.add_argument("--file", help="the Matrix Market file (default /tmp/poisson3d-N.mtx)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--backend", default="cuda", help="kryl's backend (cuda: CuPy against it)")
    args = parser.parse_args()
    path = args.file or f"/tmp/poisson3d-{args.n}.mtx"
    if not os.path.exists(path):
        subprocess.run([args.kryl, "gen", "poisson3d", "--n", str(args.n), "-o", path], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    megabytes = os.path.getsize(path) / 1e6
    with open(path, "rb") as f:  # into the page cache: both readers start from memory
        while f.read(1 << 24):
            pass
    on_gpu = args.backend == "cuda"
    kryl_runs = [kryl_run(args.kryl, path, args.backend) for _ in range(args.repeat)]
    python_runs = [python_run(path, on_gpu) for _ in range(args.repeat)]
    process_runs = [python_process_run(path, on_gpu) for _ in range(args.repeat)]
    wall = statistics.median(s for s, _ in kryl_runs)
    work = statistics.median(d["time_s"] for _, d in kryl_runs)
    py_process = statistics.median(process_runs)
    info = kryl_runs[-1][1]
    phases = {k: statistics.median(d[k] for _, d in kryl_runs)
              for k in ("read_s", "setup_s", "solve_s", "context_s", "context_wait_s")}
    read_phases = {k: statistics.median(d["read_phases"][k] for _, d in kryl_runs)
                   for k in info_keys(kryl_runs[-1][1])}
    py_wall = statistics.median(r[0] for r in python_runs)
    py_read = statistics.median(r[1] for r in python_runs)
    _, _, py_its, py_relres = python_runs[-1]
    other = "mmread + CuPy cg" if on_gpu else "mmread + SciPy cg"
    print(f"file {path}: {megabytes:.0f} MB, {info['n']} rows, {info['nnz']} entries")
    print(f"{'':22s} {'work s':>8s} {'process s':>9s} {'read s':>8s} {'MB/s':>7s} {'its':>6s} "
          f"{'relres':>9s}")
    print(f"{'kryl solve':22s} {work:8.3f} {wall:9.3f} {phases['read_s']:8.3f} "
          f"{megabytes / phases['read_s']:7.0f} {info['iterations']:6d} {info['relres']:9.2e}"
          f"   (setup {phases['setup_s']:.3f}, solve {phases['solve_s']:.3f})")
    print(f"{'':22s} read: " + ", ".join(f"{k} {v:.3f}" for k, v in read_phases.items()) +
          f"; context {phases['context_s']:.3f} (waited {phases['context_wait_s']:.3f})")
    print(f"{other:22s} {py_wall:8.3f} {py_process:9.3f} {py_read:8.3f} "
          f"{megabytes / py_read:7.0f} {py_its:6d} {py_relres:9.2e}")
    print(f"kryl / {other}: work {work / py_wall:.2f}x, process {wall / py_process:.2f}x, "
          f"read {phases['read_s'] / py_read:.2f}x")
    print(f"RESULT file_to_answer n={info['n']} kryl_work_s={work:.3f} python_work_s={py_wall:.3f} "
          f"work_ratio={work / py_wall:.3f} kryl_process_s={wall:.3f} "
          f"python_process_s={py_process:.3f} process_ratio={wall / py_process:.3f} "
          f"kryl_read_mbs={megabytes / phases['read_s']:.0f} "
          f"scipy_read_mbs={megabytes / py_read:.0f} kryl_parse_mbs="
          f"{megabytes / read_phases['parse'] if read_phases.get('parse') else 0:.0f}")


if __name__ == "__main__":
    main()
