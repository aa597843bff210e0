"""Files kryl writes: an output that names an input or another output is
refused before anything runs; device nodes, FIFOs and links to them are
refused and left alone; a write that fails midway (a full disk, emulated by
a file size limit with SIGXFSZ ignored) exits 1 with the reason and leaves
the earlier files as they were, with no temporary behind."""

import os
import resource
import signal
import subprocess

from clitest import Checks, arguments, temp_dir


def run_limited(kryl, args, limit):
    """(exit status, stderr) of `kryl ARGS` with files limited to `limit` bytes."""

    def limit_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    p = subprocess.run([kryl.path] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, preexec_fn=limit_files,
                       timeout=600)
    return p.returncode, p.stderr


def expect_refused(t, kryl, what, args, words):
    rc, out, err = kryl.run(*args)
    t.check(rc == 1, "%s: exit 1" % what, "exit %d\n%s\n%s" % (rc, out, err))
    for word in words:
        t.check(word in err, "%s: message mentions '%s'" % (what, word), err)


def test_aliases(t, kryl, tmp):
    a = os.path.join(tmp, "A.mtx")
    kryl.run("gen", "poisson2d", "--n", 6, "-o", a)
    before = open(a).read()
    expect_refused(t, kryl, "--out names the matrix", ["solve", a, "--out", a],
                   ["--out", "same file as the matrix", "refusing to overwrite"])
    # the same file by another name: a hard link, and a path through ".."
    hard = os.path.join(tmp, "hard.mtx")
    os.link(a, hard)
    expect_refused(t, kryl, "--out is a hard link to the matrix", ["solve", a, "--out", hard],
                   ["same file as the matrix"])
    sub = os.path.join(tmp, "sub")
    os.mkdir(sub)
    expect_refused(t, kryl, "--history names the matrix through ..",
                   ["solve", a, "--history", os.path.join(sub, "..", "A.mtx")],
                   ["--history", "same file as the matrix"])
    b = os.path.join(tmp, "b.mtx")
    with open(b, "w") as f:
        f.write("%%MatrixMarket matrix array real general\n36 1\n" + "1\n" * 36)
    expect_refused(t, kryl, "--out names --rhs", ["solve", a, "--rhs", b, "--out", b],
                   ["same file as --rhs"])
    s = os.path.join(tmp, "s.mtx")
    expect_refused(t, kryl, "--out and --history the same new file",
                   ["solve", a, "--out", s, "--history", os.path.join(sub, "..", "s.mtx")],
                   ["name the same file"])
    t.check(not os.path.exists(s), "nothing written when outputs collide")
    t.check(open(a).read() == before, "the matrix is unchanged")


def test_non_regular(t, kryl, tmp):
    a = os.path.join(tmp, "A.mtx")
    expect_refused(t, kryl, "--out /dev/null", ["solve", a, "--out", "/dev/null"],
                   ["/dev/null: a character device"])
    link = os.path.join(tmp, "null_link")
    os.symlink("/dev/null", link)
    expect_refused(t, kryl, "--history to a link to /dev/null", ["solve", a, "--history", link],
                   ["a symbolic link to a character device"])
    t.check(os.path.islink(link) and os.path.exists("/dev/null"), "the link and device remain")
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    expect_refused(t, kryl, "gen -o a FIFO", ["gen", "poisson2d", "--n", 4, "-o", fifo],
                   ["a FIFO"])


def test_full_disk(t, kryl, tmp):
    a = os.path.join(tmp, "big.mtx")
    x = os.path.join(tmp, "x.mtx")
    h = os.path.join(tmp, "h.csv")
    for path in (a, x, h):
        with open(path, "w") as f:
            f.write("earlier\n")
    rc, err = run_limited(kryl, ["gen", "poisson2d", "--n", 200, "-o", a], 64 * 1024)
    t.check(rc == 1 and "big.mtx: cannot write: File too large" in err, "gen on a full disk",
            "exit %d\n%s" % (rc, err))
    small = os.path.join(tmp, "A.mtx")
    kryl.run("gen", "poisson2d", "--n", 100, "-o", small)
    rc, err = run_limited(kryl, ["solve", small, "--out", x, "-q"], 4096)
    t.check(rc == 1 and "x.mtx: cannot write: File too large" in err, "--out on a full disk",
            "exit %d\n%s" % (rc, err))
    # unpreconditioned CG: a history of hundreds of lines on any backend
    rc, err = run_limited(kryl, ["solve", small, "--method", "cg", "--history", h, "-q"], 2048)
    t.check(rc == 1 and "h.csv: cannot write: File too large" in err,
            "--history on a full disk", "exit %d\n%s" % (rc, err))
    for path in (a, x, h):
        t.check(open(path).read() == "earlier\n", "%s unchanged" % os.path.basename(path))
    names = sorted(os.listdir(tmp))
    t.check(names == ["A.mtx", "big.mtx", "h.csv", "x.mtx"], "no temporary left", str(names))


def main():
    kryl, _ = arguments("test_outputs")
    t = Checks("test_outputs")
    with temp_dir() as tmp:
        test_aliases(t, kryl, tmp)
    with temp_dir() as tmp:
        kryl.run("gen", "poisson2d", "--n", 6, "-o", os.path.join(tmp, "A.mtx"))
        test_non_regular(t, kryl, tmp)
    with temp_dir() as tmp:
        test_full_disk(t, kryl, tmp)
    t.finish()


main()
