"""kryl solve --format: every storage format on a generated Laplacian and on
real SPD matrices, on every usable backend.  `kryl info --json` on the same
backend says which formats are suitable: those must converge to the same
iteration count as CSR (within 1%, at least one: a format that sorts rows
sums in another order, and CG's count on an ill-conditioned matrix follows
its rounding) and report the format; the others must
be refused with exactly the reason info gives.  --format auto must pick
info's choice; --tune must time the candidates."""

import os

from clitest import Checks, arguments, backends, matrix_path, temp_dir, unsupported

FORMATS = ["csr", "ell", "ellr", "jds", "pjds", "sell", "bcsr2", "bcsr4", "dia"]
REAL_SPD = ["bcsstk06.mtx", "nos4.mtx", "494_bus.mtx"]


def info_formats(t, kryl, path, backend, what):
    """The "formats" object of `kryl info --json` on backend, or None."""
    rc, obj, err = kryl.json("info", path, "--backend", backend)
    if not t.check(rc == 0 and obj is not None and isinstance(obj.get("formats"), dict),
                   "%s: info --json has the formats" % what, err):
        return None, None
    return obj["formats"], obj


def solve_each_format(t, kryl, path, backend, what):
    """Each format: converged like CSR when suitable, refused with info's reason when not."""
    formats, info = info_formats(t, kryl, path, backend, what)
    if formats is None:
        return
    csr_its = None
    for fmt in FORMATS:
        label = "%s %s on %s" % (what, fmt, backend)
        # pcg + jacobi: its iterations do not depend on the row order a format sorts by
        rc, obj, err = kryl.json("solve", path, "--backend", backend, "--format", fmt,
                                 "--rtol", "1e-10", "--method", "pcg")
        if unsupported(t, backend, label, rc, err):
            continue
        if formats[fmt]["suitable"]:
            if not t.check(rc == 0 and obj is not None and obj["converged"],
                           "%s: converged" % label, "exit %d\n%s" % (rc, err)):
                continue
            t.check(obj["relres"] <= 1e-10, "%s: relres %g" % (label, obj["relres"]))
            t.check(obj["format"] == fmt and obj["format_requested"] == fmt and
                    obj["format_reason"] == "requested",
                    "%s: reported as %s (%s)" % (label, obj["format"], obj["format_reason"]))
            if fmt == "csr":
                csr_its = obj["iterations"]
            elif csr_its is not None:
                t.check(abs(obj["iterations"] - csr_its) <= max(1, csr_its // 100),
                        "%s: %d iterations, csr %d" % (label, obj["iterations"], csr_its))
        else:
            why = formats[fmt]["why"]
            t.check(rc == 1 and obj is not None and "error" in obj, "%s: refused, exit 1" % label,
                    "exit %d" % rc)
            t.check(why and why in err and "would store" in err,
                    "%s: the refusal says why and what it would cost" % label,
                    "stderr: %s\ninfo: %s" % (err, why))
    rc, obj, err = kryl.json("solve", path, "--backend", backend, "--format", "auto")
    label = "%s auto on %s" % (what, backend)
    if unsupported(t, backend, label, rc, err):
        return
    if t.check(rc == 0 and obj is not None and obj["converged"], "%s: converged" % label, err):
        t.check(obj["format"] == info["format_auto"],
                "%s: chose %s, info says %s" % (label, obj["format"], info["format_auto"]))
        t.check(obj["format_requested"] == "auto" and
                obj["format_reason"].startswith(obj["format"]),
                "%s: the reason starts with the choice" % label, obj["format_reason"])
        t.check(formats[obj["format"]]["suitable"], "%s: the choice is suitable" % label)


def test_generated(t, kryl, tmp, usable):
    a = os.path.join(tmp, "poisson2d.mtx")
    rc, _, err = kryl.run("gen", "poisson2d", "--n", 20, "-o", a)
    t.check(rc == 0, "gen poisson2d", err)
    for backend in usable:
        solve_each_format(t, kryl, a, backend, "poisson2d")
    # a 7-point 3-D Laplacian: DIA is suitable (7 diagonals)
    b = os.path.join(tmp, "poisson3d.mtx")
    kryl.run("gen", "poisson3d", "--n", 9, "-o", b)
    for backend in usable:
        rc, obj, err = kryl.json("solve", b, "--backend", backend, "--format", "dia")
        if not unsupported(t, backend, "poisson3d dia", rc, err):
            t.check(rc == 0 and obj and obj["converged"] and obj["format"] == "dia",
                    "poisson3d dia on %s" % backend, err)


def test_real(t, kryl, matrices, usable):
    for name in REAL_SPD:
        path = matrix_path(matrices, name)
        if path is None:
            t.skip("%s absent" % name)
            continue
        for backend in usable:
            solve_each_format(t, kryl, path, backend, name)


def test_tune_and_summary(t, kryl, tmp, usable):
    """--tune times each candidate; the summary names the format and why."""
    a = os.path.join(tmp, "tune.mtx")
    kryl.run("gen", "poisson3d", "--n", 8, "-o", a)
    for backend in usable:
        what = "--tune on %s" % backend
        rc, obj, err = kryl.json("solve", a, "--backend", backend, "--format", "auto", "--tune")
        if unsupported(t, backend, what, rc, err):
            continue
        if t.check(rc == 0 and obj is not None and obj["converged"], what, err):
            reason = obj["format_reason"]
            t.check(obj["tune"] is True and reason.startswith("timed:") and "csr" in reason,
                    "%s: the reason lists the timings" % what, reason)
            t.check(obj["format"] in FORMATS, "%s: chose %s" % (what, obj["format"]))
    rc, obj, err = kryl.json("solve", a, "--backend", "ref", "--tune")
    t.check(rc == 0 and obj is not None and obj["format_reason"].startswith("timed:"),
            "--tune alone times the candidates of --format auto", err)
    rc, out, err = kryl.run("solve", a, "--backend", "ref", "--format", "auto")
    t.check(rc == 0 and "--format auto" in out and "latency-bound" in out,
            "auto summary names the choice and why (a small SpMV: latency-bound)", out + err)
    rc, out, err = kryl.run("solve", a, "--backend", "ref", "--format", "sell")
    t.check(rc == 0 and "format      sell" in out, "summary names the format", out + err)


def test_orders(t, kryl, tmp, usable):
    """--order reorders rows and columns invisibly: same iterations, x in the caller's order."""
    a = os.path.join(tmp, "order.mtx")
    kryl.run("gen", "poisson3d", "--n", 10, "-o", a)
    base = None
    for order in ("none", "rcm", "amd", "color"):
        for backend in usable:
            what = "--order %s on %s" % (order, backend)
            rc, obj, err = kryl.json("solve", a, "--backend", backend, "--order", order,
                                     "--format", "sell", "--method", "pcg")
            if unsupported(t, backend, what, rc, err) or (order == "amd" and rc == 1
                                                           and "SuiteSparse" in err):
                continue
            if t.check(rc == 0 and obj is not None and obj["converged"], what, err):
                t.check(obj["order"] == order, "%s: JSON names the order" % what, str(obj))
                base = obj["iterations"] if base is None else base
                t.check(abs(obj["iterations"] - base) <= 1,
                        "%s: %d iterations, natural %d" % (what, obj["iterations"], base))
    rc, out, err = kryl.run("solve", a, "--order", "bogus")
    t.check(rc == 1 and "rcm" in err, "an unknown --order lists the valid ones", err)


def main():
    kryl, matrices = arguments("test_solve_formats")
    t = Checks("test_solve_formats")
    usable = backends(kryl)
    t.check("ref" in usable, "kryl --version lists ref", str(usable))
    with temp_dir() as tmp:
        test_generated(t, kryl, tmp, usable)
        test_real(t, kryl, matrices, usable)
        test_tune_and_summary(t, kryl, tmp, usable)
        test_orders(t, kryl, tmp, usable)
    t.finish()


if __name__ == "__main__":
    main()
