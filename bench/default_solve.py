"""`kryl solve A.mtx` with no options (--method auto) on every square
matrix of a directory: what auto chose, iterations, time, and whether it
reached the default rtol 1e-8; prints a Markdown table and the count.

    python3 bench/default_solve.py KRYL MATRICES_DIR [--backend ref|omp|cuda]
"""

import glob
import json
import os
import subprocess
import sys


def main():
    kryl, directory = sys.argv[1], sys.argv[2]
    extra = sys.argv[3:]
    rows, converged, total = [], 0, 0
    for path in sorted(glob.glob(os.path.join(directory, "*.mtx*"))):
        name = os.path.basename(path)
        try:
            p = subprocess.run([kryl, "solve", path, "--json"] + extra, capture_output=True,
                               text=True, timeout=900)
        except subprocess.TimeoutExpired:
            rows.append("| %s | timed out (900 s) | | | |" % name)
            total += 1
            continue
        o = json.loads(p.stdout) if p.stdout.strip() else {}
        if "converged" not in o:  # an error: --json prints {"error": ...}
            err = o.get("error") or (p.stderr.strip().splitlines() or ["?"])[-1]
            if "square" in err:
                continue  # rectangular: not a system kryl solve takes
            rows.append("| %s | error: %s | | | |" % (name, err.replace("|", "/")))
            total += 1
            continue
        total += 1
        converged += o["converged"]
        choice = "%s + %s%s" % (o["method"], o["precond"], " (rows matched)" if o.get("match") else "")
        rows.append("| %s | %s | %d | %.3g | %s (%.1e) |" % (
            name, choice, o["iterations"], o["time_s"],
            "yes" if o["converged"] else "no: " + o["reason"], o["relres"]))
    print("| matrix | auto chose | iterations | time (s) | converged (relres) |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print("\n%d of %d square matrices converged to 1e-8" % (converged, total))


if __name__ == "__main__":
    main()
