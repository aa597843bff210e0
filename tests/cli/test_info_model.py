"""kryl info's storage-format table and --spectrum on every usable backend:
exact footprints of known shapes, the model's arithmetic redone here from
the JSON, refusals, auto's choice, rectangular matrices, and Lanczos
estimates against the known eigenvalues of the 2-D Laplacian."""

import math
import os

from clitest import Checks, arguments, backends, matrix_path, temp_dir, unsupported

FORMATS = ["csr", "ell", "ellr", "jds", "pjds", "sell", "bcsr2", "bcsr4", "dia"]
FORMAT_KEYS = ["suitable", "why", "kernel", "stored", "bytes", "bytes_single", "ratio_csr",
               "ratio_nnz", "alpha", "code_balance", "spmv_bytes", "predicted_s",
               "effective_gbs", "gflops"]
SPECTRUM_KEYS = ["steps", "precond", "lambda_min", "lambda_max", "condition", "seconds"]


def close(a, b, tol):
    return a is not None and abs(a - b) <= tol * max(1.0, abs(b))


def check_table(t, obj, what):
    """The formats object: keys, and its numbers consistent with each other."""
    formats = obj.get("formats")
    if not t.check(isinstance(formats, dict) and sorted(formats) == sorted(FORMATS),
                   "%s: one entry per format" % what, str(formats)):
        return None
    model = obj.get("format_model", {})
    bandwidth = model.get("bandwidth_bytes_per_s", 0)
    t.check(bandwidth > 0 and model.get("minimal_spmv_bytes") == obj["spmv_bytes_double"],
            "%s: format_model" % what, str(model))
    nnz = obj["nnz"]
    csr = formats["csr"]
    for name, f in formats.items():
        label = "%s %s" % (what, name)
        missing = [k for k in FORMAT_KEYS if k not in f]
        if not t.check(not missing, "%s: keys" % label, "missing %s" % missing):
            continue
        t.check((f["why"] is None) == f["suitable"], "%s: why iff refused" % label, str(f))
        if not f["suitable"]:
            t.check(f["why"].startswith(name + ":") and "limit" in f["why"],
                    "%s: the refusal says why" % label, f["why"])
        t.check(f["stored"] >= nnz and f["bytes"] - f["bytes_single"] == 4 * f["stored"],
                "%s: stored and single bytes" % label, str(f))
        t.check(close(f["ratio_csr"], f["bytes"] / csr["bytes"], 1e-12) and
                close(f["ratio_nnz"], f["bytes"] / (12.0 * nnz), 1e-12),
                "%s: ratios" % label, str(f))
        # t = bytes / bandwidth;  B = bytes / 2 nnz;  GB/s = CSR minimum / t
        t.check(close(f["predicted_s"], f["spmv_bytes"] / bandwidth, 1e-12) and
                close(f["code_balance"], f["spmv_bytes"] / (2.0 * nnz), 1e-12),
                "%s: time and code balance from the bytes" % label, str(f))
        t.check(close(f["effective_gbs"], obj["spmv_bytes_double"] / f["predicted_s"] / 1e9,
                      1e-12) and close(f["gflops"], 2.0 * nnz / f["predicted_s"] / 1e9, 1e-12),
                "%s: GB/s and GFLOP/s" % label, str(f))
        t.check(0 < f["alpha"] <= 1.0 + 1e-12, "%s: alpha %s" % (label, f["alpha"]))
    t.check(csr["suitable"] and csr["ratio_csr"] == 1.0, "%s: csr is the unit" % what)
    auto = obj.get("format_auto")
    t.check(auto in formats and formats[auto]["suitable"] and formats[auto]["kernel"] and
            obj.get("format_auto_reason", "").startswith(auto),
            "%s: auto chooses a suitable format with a kernel, and says why" % what,
            "%s: %s" % (auto, obj.get("format_auto_reason")))
    return formats


def test_poisson(t, kryl, tmp, usable):
    """poisson2d 20 x 20: 400 rows, 1920 nonzeros, rows of 3..5 entries."""
    a = os.path.join(tmp, "poisson2d.mtx")
    kryl.run("gen", "poisson2d", "--n", 20, "-o", a)
    for backend in usable:
        what = "poisson2d on %s" % backend
        rc, obj, err = kryl.json("info", a, "--backend", backend)
        if not t.check(rc == 0 and obj is not None, "%s: info --json" % what, err):
            continue
        t.check(obj["format_model"]["backend"] == backend, "%s: the model's backend" % what)
        formats = check_table(t, obj, what)
        if formats is None:
            continue
        csr, ell = formats["csr"], formats["ell"]
        # values 8 + columns 4 per nonzero, 64-bit row offsets
        t.check(csr["stored"] == 1920 and csr["bytes"] == 12 * 1920 + 8 * 401,
                "%s: csr footprint" % what, str(csr))
        # ELLPACK: width 5, stride round32(400) = 416
        t.check(ell["stored"] == 5 * 416 and ell["bytes"] == 12 * 5 * 416,
                "%s: ell footprint" % what, str(ell))
        t.check(not formats["bcsr4"]["suitable"] and "4x4 blocks" in formats["bcsr4"]["why"],
                "%s: bcsr4 refused for its fill" % what, str(formats["bcsr4"]))
    rc, out, err = kryl.run("info", a, "--backend", "ref")
    t.check(rc == 0, "info text: exit 0", err)
    for word in ["storage formats", "ref backend", "GB/s", "alpha", "B/flop", "/csr", "/nnz",
                 "refused: bcsr4", "auto "] + ["  %s " % f for f in FORMATS]:
        t.check(word in out, "info text mentions '%s'" % word, out)


def test_shapes(t, kryl, tmp, matrices):
    """A power-law matrix refuses ELLPACK; a rectangular one has no formats;
    a large gzipped one is measured in reasonable time."""
    p = os.path.join(tmp, "powerlaw.mtx")
    kryl.run("gen", "powerlaw", "--n", 2000, "-o", p)
    rc, obj, err = kryl.json("info", p, "--backend", "ref")
    if t.check(rc == 0 and obj is not None, "powerlaw info", err):
        formats = check_table(t, obj, "powerlaw")
        if formats:
            t.check(not formats["ell"]["suitable"] and formats["ell"]["ratio_nnz"] > 10,
                    "powerlaw: ell refused, its footprint > 10x the nonzeros",
                    str(formats["ell"]))
            t.check(obj["format_auto"] == "csr" and "latency-bound" in obj["format_auto_reason"],
                    "powerlaw: a small SpMV is latency-bound, so auto keeps csr",
                    obj["format_auto_reason"])
    ship = matrix_path(matrices, "lp_ship04l.mtx")
    if ship is None:
        t.skip("lp_ship04l.mtx absent")
    else:
        rc, obj, err = kryl.json("info", ship, "--backend", "ref")
        t.check(rc == 0 and obj is not None and obj["formats"] is None and
                "square" in obj.get("formats_note", ""),
                "rectangular: formats null with a note", "%s %s" % (obj, err))
        rc, out, err = kryl.run("info", ship, "--backend", "ref")
        t.check(rc == 0 and "none apply" in out and "square" in out,
                "rectangular: the text says why", out + err)
    gz = matrix_path(matrices, "bcsstk33.mtx.gz")
    if gz is None:
        t.skip("bcsstk33.mtx.gz absent")
    else:
        rc, obj, err = kryl.json("info", gz, "--backend", "ref", timeout=120)
        if t.check(rc == 0 and obj is not None, "bcsstk33 info", err):
            check_table(t, obj, "bcsstk33")


def test_spectrum(t, kryl, tmp, matrices, usable):
    """The 5-point Laplacian on n x n has lambda = 8 sin^2(pi i / 2(n+1)),
    i.e. lambda_min = 8 sin^2(h/2), lambda_max = 8 cos^2(h/2), h = pi/(n+1);
    D^-1 A = A/4.  Ritz values lie inside [lambda_min, lambda_max]."""
    n = 20
    a = os.path.join(tmp, "spectrum.mtx")
    kryl.run("gen", "poisson2d", "--n", n, "-o", a)
    h = math.pi / (n + 1)
    lmin, lmax = 8 * math.sin(h / 2) ** 2, 8 * math.cos(h / 2) ** 2
    for backend in usable:
        for steps, precond, scale, tol in [(200, "none", 1.0, 1e-9), (50, "none", 1.0, 1e-2),
                                           (200, "jacobi", 0.25, 1e-9)]:
            what = "spectrum %d steps %s on %s" % (steps, precond, backend)
            rc, obj, err = kryl.json("info", a, "--backend", backend, "--spectrum", "--steps",
                                     steps, "--precond", precond)
            if unsupported(t, backend, what, rc, err):
                continue
            if not t.check(rc == 0 and obj is not None and isinstance(obj.get("spectrum"), dict),
                           "%s: JSON" % what, err):
                continue
            s = obj["spectrum"]
            missing = [k for k in SPECTRUM_KEYS if k not in s]
            if not t.check(not missing, "%s: keys" % what, "missing %s" % missing):
                continue
            t.check(s["steps"] == steps and s["precond"] == precond, "%s: reported" % what)
            lo, hi = scale * lmin, scale * lmax
            t.check(s["lambda_min"] >= lo * (1 - 1e-12) and s["lambda_max"] <= hi * (1 + 1e-12),
                    "%s: Ritz values inside [%.6g, %.6g]" % (what, lo, hi), str(s))
            t.check(close(s["lambda_min"], lo, tol * lo) and close(s["lambda_max"], hi, tol),
                    "%s: lambda_min %.9g ~ %.9g, lambda_max %.9g ~ %.9g" %
                    (what, s["lambda_min"], lo, s["lambda_max"], hi))
            t.check(close(s["condition"], s["lambda_max"] / s["lambda_min"], 1e-12),
                    "%s: condition = lambda_max / lambda_min" % what)
    rc, obj, err = kryl.json("info", a, "--backend", "ref", "--spectrum", "--steps", 100000)
    t.check(rc == 0 and obj and obj["spectrum"]["steps"] == n * n,
            "--steps beyond n runs n steps", "%s %s" % (obj, err))
    rc, out, err = kryl.run("info", a, "--backend", "ref", "--spectrum")
    t.check(rc == 0 and "Lanczos" in out and "lambda_min" in out and "condition estimate" in out,
            "spectrum text", out + err)
    nos4 = matrix_path(matrices, "nos4.mtx")
    if nos4 is None:
        t.skip("nos4.mtx absent")
    else:
        for backend in usable:
            rc, obj, err = kryl.json("info", nos4, "--backend", backend, "--spectrum")
            if unsupported(t, backend, "nos4 spectrum", rc, err):
                continue
            t.check(rc == 0 and obj and 0 < obj["spectrum"]["lambda_min"] <
                    obj["spectrum"]["lambda_max"] and obj["spectrum"]["condition"] > 1,
                    "nos4 spectrum on %s: positive definite estimate" % backend,
                    "%s %s" % (obj, err))


def main():
    kryl, matrices = arguments("test_info_model")
    t = Checks("test_info_model")
    usable = backends(kryl)
    t.check("ref" in usable, "kryl --version lists ref", str(usable))
    with temp_dir() as tmp:
        test_poisson(t, kryl, tmp, usable)
        test_shapes(t, kryl, tmp, matrices)
        test_spectrum(t, kryl, tmp, matrices, usable)
    t.finish()


if __name__ == "__main__":
    main()
