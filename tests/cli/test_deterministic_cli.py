"""kryl solve --deterministic: the context's flag in --view, --json and the
summary, the same bits of x and of the history on 1, 2 and 3 threads (from
--out and --history), the flag read from an options file, and --tune
refused with it."""

import os
import tempfile

from clitest import Checks, arguments


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def test_threads(t, kryl, tmp):
    """x and the history written by 1, 2 and 3 threads are the same files."""
    outs = []
    for threads in (1, 2, 3):
        x = os.path.join(tmp, "x%d.mtx" % threads)
        h = os.path.join(tmp, "h%d.csv" % threads)
        rc, obj, err = kryl.json("solve", "--gen", "poisson3d", "--n", "30", "--backend", "omp",
                                 "--threads", threads, "--deterministic", "--out", x,
                                 "--history", h)
        t.check(rc == 0 and obj is not None and obj.get("converged"),
                "--deterministic --threads %d: converges" % threads, err)
        if obj is None:
            return
        t.check(obj.get("deterministic") is True, "--json: deterministic true", str(obj))
        outs.append((threads, read_bytes(x), read_bytes(h)))
    for threads, x, h in outs[1:]:
        t.check(x == outs[0][1], "x on %d threads is the file of 1 thread" % threads)
        t.check(h == outs[0][2], "the history on %d threads is the file of 1 thread" % threads)


def test_reported(t, kryl, tmp):
    rc, out, err = kryl.run("solve", "--gen", "poisson2d", "--n", "20", "--backend", "omp",
                            "--deterministic", "--view")
    t.check(rc == 0 and "deterministic true" in out, "--view: deterministic true", out + err)
    t.check(", deterministic" in out, "the summary's backend line says deterministic", out)
    rc, obj, err = kryl.json("solve", "--gen", "poisson2d", "--n", "20", "--view")
    view = obj.get("view", {}) if obj else {}
    t.check(obj is not None and obj.get("deterministic") is False and
            view.get("backend", {}).get("deterministic") is False,
            "--json without the flag: deterministic false", str(obj))
    opts = os.path.join(tmp, "run.opts")
    with open(opts, "w") as f:
        f.write("--deterministic\n--backend omp\n")
    rc, obj, err = kryl.json("solve", "--gen", "poisson2d", "--n", "20", "--options-file", opts)
    t.check(obj is not None and obj.get("deterministic") is True,
            "--deterministic from an options file", str(obj) + err)


def test_tune_refused(t, kryl):
    rc, out, err = kryl.run("solve", "--gen", "poisson2d", "--n", "20", "--deterministic",
                            "--format", "auto", "--tune")
    t.check(rc == 1 and "deterministic" in err and "timing" in err,
            "--tune with --deterministic: refused, saying why", out + err)


def main():
    kryl, _ = arguments("test_deterministic_cli")
    t = Checks("test_deterministic_cli")
    with tempfile.TemporaryDirectory() as tmp:
        test_threads(t, kryl, tmp)
        test_reported(t, kryl, tmp)
    test_tune_refused(t, kryl)
    t.finish()


main()
