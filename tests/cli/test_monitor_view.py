"""kryl solve --monitor [k] and --view: residual lines on stderr every k
iterations (no carriage returns, fit for batch logs), the solver stack as
text and in the JSON, and the ordering named in the summary and the log."""

import os
import re
import subprocess

from clitest import Checks, arguments

LINE = re.compile(r"^(monitor|true) +it +(\d+)  \|\|r\|\| (\S+)  \|\|r\|\|/\|\|b\|\| (\S+)  (\S+) s$")


def monitor_lines(err):
    """[(label, iteration, resnorm, relres, seconds)] of the monitor's lines."""
    rows = []
    for line in err.splitlines():
        m = LINE.match(line)
        if m:
            rows.append((m.group(1), int(m.group(2)), float(m.group(3)), float(m.group(4)),
                         float(m.group(5))))
    return rows


def test_monitor(t, kryl):
    rc, out, err = kryl.run("solve", "--gen", "poisson2d", "--n", "40", "--monitor", "10",
                            "--backend", "ref")
    t.check(rc == 0, "--monitor 10: converges", err)
    t.check("\r" not in err, "--monitor writes no carriage return", repr(err[:200]))
    rows = monitor_lines(err)
    its = [r[1] for r in rows if r[0] == "monitor"]
    t.check(len(rows) >= 3 and its[0] == 0, "--monitor 10: starts at iteration 0", err)
    t.check(all(i % 10 == 0 for i in its), "--monitor 10: every 10th iteration", str(its))
    t.check(its == sorted(its) and len(set(its)) == len(its), "--monitor: iterations ascend",
            str(its))
    t.check(abs(rows[0][3] - 1.0) < 1e-12, "--monitor: relres 1 at x0 = 0", str(rows[0]))
    t.check(all(abs(r[2] / r[3] - rows[0][2]) < 1e-5 * rows[0][2] for r in rows if r[3] > 0),
            "--monitor: ||r|| / relres = ||b|| on every line", str(rows))
    last = rows[-1]
    t.check(last[0] == "true" and last[3] < 1e-8, "--monitor: ends with the true residual",
            str(last))
    times = [r[4] for r in rows]
    t.check(times == sorted(times), "--monitor: elapsed time ascends", str(times))
    # the monitor's iteration count agrees with the result's
    rc, obj, err = kryl.json("solve", "--gen", "poisson2d", "--n", "40", "--monitor",
                             "--backend", "ref")
    rows = monitor_lines(err)
    t.check(obj is not None and rows and rows[-1][1] == obj["iterations"],
            "--monitor alone: the true line's iteration is the result's", err)
    its = [r[1] for r in rows if r[0] == "monitor"]
    t.check(its[:3] == [0, 1, 2], "--monitor alone: every iteration", str(its[:5]))
    rc, out, err = kryl.run("solve", "--gen", "poisson2d", "--n", "10", "--monitor", "0")
    t.check(rc == 1 and "--monitor" in err, "--monitor 0 is refused", err)


def test_view(t, kryl):
    rc, out, err = kryl.run("solve", "--gen", "poisson2d", "--n", "30", "--view", "--method",
                            "gmres", "--precond", "ilut", "--order", "rcm", "--droptol", "1e-4")
    t.check(rc == 0, "--view: runs", err)
    for part in ["solver stack", "method     gmres", "precond    ilut", "droptol 0.0001",
                 "maxfill 20", "order rcm", "precision  double", "backend    "]:
        t.check(part in out, "--view shows '%s'" % part, out)
    t.check("levels" in out, "--view: the factor's levels as built", out)
    t.check(re.search(r"^format +csr, order rcm", out, re.M) is not None,
            "the summary names the ordering", out)
    rc, out, err = kryl.run("solve", "--gen", "convdiff2d", "--n", "30", "--view", "--method",
                            "gmres", "--precision", "mixed", "--precond", "bjacobi",
                            "--blocks", "2", "-q")
    t.check("mixed      inner-outer (outer fgmres" in out and "blocks 2" in out and
            "2 " in out and "blocks of" in out, "--view: mixed scheme and blocks", out)
    rc, obj, err = kryl.json("solve", "--gen", "poisson2d", "--n", "30", "--precond", "mcssor",
                             "--order", "color")
    view = obj.get("view", {}) if obj else {}
    t.check(view.get("method", {}).get("type") == "pcg", "JSON view: method", str(view))
    t.check(view.get("precond", {}).get("type") == "mcssor" and
            "colors" in view.get("precond", {}).get("built", ""),
            "JSON view: mcssor and its colors", str(view))
    t.check(view.get("matrix", {}).get("order") == "color", "JSON view: the ordering", str(view))
    t.check(view.get("backend", {}).get("type") in ("ref", "omp", "cuda"), "JSON view: backend",
            str(view))
    env = dict(os.environ, KRYL_LOG="info")
    p = subprocess.run([kryl.path, "solve", "--gen", "poisson2d", "--n", "20", "--order", "rcm",
                        "-q"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    t.check("ordering rcm" in p.stderr, "KRYL_LOG=info names the ordering", p.stderr)


def main():
    kryl, _ = arguments("test_monitor_view")
    t = Checks("test_monitor_view")
    test_monitor(t, kryl)
    test_view(t, kryl)
    t.finish()


main()
