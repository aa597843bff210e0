"""kryl solve --hybrid 1|2|3|auto with pipecg and pcg on a generated 2-D
Poisson matrix, on every usable backend as the device side: the true
residual recomputed here from the written x meets the tolerance; the JSON,
the summary and --view say which hybrid method ran and how the rows were
split; --hybrid-host-rows gives the host its rows; under a --gpu-memory cap
below the matrix (ref standing in for the GPU) 3 and auto keep on the device
only the rows that fit; auto without a GPU runs on one backend and says so; the refusals name the problem; the help
describes the options."""

import os

from clitest import Checks, arguments, backends, solve_checked, temp_dir

RTOL = 1e-8


def test_solves(t, kryl, tmp, usable):
    path = os.path.join(tmp, "poisson2d.mtx")
    kryl.run("gen", "poisson2d", "--n", 40, "-o", path)
    for backend in usable:
        for hybrid, method, extra in [("1", "pcg", []), ("2", "pipecg", ["--precond", "jacobi"]),
                                      ("3", "pcg", []),
                                      ("3", "pipecg", ["--hybrid-host-rows", "700"]),
                                      ("1", "pipecg", ["--precond", "lspoly"])]:
            what = "--hybrid %s %s %s on %s" % (hybrid, method, " ".join(extra), backend)
            obj = solve_checked(t, kryl, what, backend, path,
                                ["--method", method, "--hybrid", hybrid] + extra, tmp, RTOL)
            if obj is None:
                continue
            h = obj.get("hybrid", {})
            t.check(h.get("type") == hybrid and h.get("requested") == hybrid and
                    h.get("host_rows", -1) + h.get("device_rows", -1) == 1600 and h.get("reason"),
                    "%s: the JSON says what ran and the split" % what, str(h))
            if "--hybrid-host-rows" in extra:
                # rows 660..699 reach 40 rows on, and row 699 its neighbour 700
                t.check(h.get("host_rows") == 700 and h.get("host_coupling_nnz") == 41 and
                        h.get("device_coupling_nnz") == 41,
                        "%s: 700 rows on the host, 41 entries coupling each way" % what, str(h))
    # a cap below the matrix's bytes: the device side (ref standing in) keeps
    # the rows that fit, the host the rest, and the reason says so
    for hybrid in ("3", "auto"):
        what = "--hybrid %s under --gpu-memory 100K on ref" % hybrid
        obj = solve_checked(t, kryl, what, "ref", path,
                            ["--method", "pipecg", "--hybrid", hybrid, "--gpu-memory", "100K"],
                            tmp, RTOL)
        h = (obj or {}).get("hybrid", {})
        t.check(h.get("type") == "3" and "does not fit" in h.get("reason", "") and
                0 < h.get("device_rows", 0) < 1600 and
                12 * (h.get("device_nnz", 0) + h.get("device_coupling_nnz", 0)) +
                96 * h.get("device_rows", 0) <= 100 * 1024,
                "%s: the device's part fits the cap" % what, str(h))
    rc, out, err = kryl.run("solve", path, "--backend", "ref", "--method", "pipecg", "--precond",
                            "jacobi", "--hybrid", "3", "--hybrid-host-rows", 100, "--view")
    t.check(rc == 0 and "hybrid      3 (asked 3): 100 host rows" in out and
            "hybrid     3 (requested 3, host_rows 100, device_rows 1500)" in out,
            "the summary and --view give the split", out + err)
    rc, obj, err = kryl.json("solve", path, "--backend", "ref", "--method", "pcg", "--hybrid",
                             "auto")
    h = (obj or {}).get("hybrid", {})
    t.check(rc == 0 and h.get("type") == "none" and h.get("requested") == "auto" and
            "no GPU" in h.get("reason", ""), "auto on ref: one backend, saying why",
            str(obj) + err)


def test_refusals(t, kryl, tmp):
    small = os.path.join(tmp, "small.mtx")
    kryl.run("gen", "poisson2d", "--n", 6, "-o", small)
    cases = [(["--method", "gmres", "--hybrid", "3"], "pipecg or pcg"),
             (["--method", "pipecg", "--hybrid", "4"], "1|2|3|auto"),
             (["--method", "pipecg", "--hybrid", "2", "--precond", "lspoly"], "Jacobi"),
             (["--method", "pipecg", "--hybrid", "1", "--hybrid-host-rows", "3"], "hybrid 3"),
             (["--method", "pcg", "--hybrid", "3", "--hybrid-host-rows", "37"], "37 host rows")]
    for args, word in cases:
        rc, _, err = kryl.run("solve", small, "--backend", "ref", *args)
        t.check(rc == 1 and word in err, "%s refused naming %r" % (" ".join(args), word),
                "exit %d\n%s" % (rc, err))
    rc, out, _ = kryl.run("solve", "--help")
    t.check("--hybrid 1|2|3|auto" in out and "--hybrid-host-rows" in out,
            "help describes --hybrid", out)


def main():
    kryl, _ = arguments("test_hybrid_cli")
    t = Checks("test_hybrid_cli")
    usable = backends(kryl)
    with temp_dir() as tmp:
        test_solves(t, kryl, tmp, usable)
        test_refusals(t, kryl, tmp)
    t.finish()


if __name__ == "__main__":
    main()
