"""Memory stays bounded from the command line: a size line or a generated
problem larger than --max-memory (or KRYL_MAX_MEMORY) is refused with the
file, the line and the bytes; /dev/zero ends with an error; --gpu-memory
takes a size."""

import os

from clitest import Checks, arguments, temp_dir


def expect(t, kryl, what, args, words):
    rc, out, err = kryl.run(*args)
    t.check(rc == 1, "%s: exit 1" % what, "exit %d\n%s\n%s" % (rc, out, err))
    for word in words:
        t.check(word in err, "%s: message mentions '%s'" % (what, word), err)


def main():
    kryl, _ = arguments("test_limits")
    t = Checks("test_limits")
    with temp_dir() as tmp:
        huge = os.path.join(tmp, "huge.mtx")
        with open(huge, "w") as f:
            f.write("%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n"
                    "1 1 1\n")
        for command in ("info", "solve"):
            expect(t, kryl, "%s of a huge size line" % command,
                   [command, huge, "--max-memory", "1G"],
                   ["huge.mtx:2: the size line's 2147483647 x 2147483647", "34.4 GB",
                    "1.07 GB of the limit set by"])
        expect(t, kryl, "--max-memory that is not a size", ["info", huge, "--max-memory", "lots"],
               ["expected a size in bytes"])
        expect(t, kryl, "info /dev/zero", ["info", "/dev/zero"], ["expected lines of at most"])
        expect(t, kryl, "a generated problem too large",
               ["solve", "--gen", "poisson3d", "--n", 1200, "--max-memory", "2G"],
               ["--gen poisson3d --n 1200 (1728000000 rows", "the matrix 159 GB", "vectors",
                "of host memory", "2.15 GB of the limit"])
        expect(t, kryl, "--gpu-memory that is not a size",
               ["solve", "--gen", "poisson2d", "--n", 10, "--gpu-memory", "lots"],
               ["--gpu-memory", "expected a size in bytes"])
        rc, _, err = kryl.run("solve", "--gen", "poisson2d", "--n", 10, "--backend", "omp",
                              "--gpu-memory", "1M", "--quiet")
        t.check(rc == 0, "--gpu-memory on a backend without a device has no effect", err)
        a = os.path.join(tmp, "A.mtx")
        rc, _, err = kryl.run("gen", "poisson2d", "--n", 20, "-o", a, "--max-memory", "1M")
        t.check(rc == 0, "a small problem within --max-memory", err)
    t.finish()


main()
