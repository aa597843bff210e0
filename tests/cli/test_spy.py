"""kryl spy: the sparsity pattern as one SVG picture (well-formed, titled with
n and nnz, a square per entry for a small matrix and a binned grid for a
large one, a second panel after --order with bandwidth and profile), and bad
input refused with a message naming it."""

import os
import re
import xml.etree.ElementTree as ET

from clitest import Checks, arguments, temp_dir

SVG = "{http://www.w3.org/2000/svg}"


def parse(t, path, what):
    try:
        return ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        t.check(False, "%s: the SVG parses as XML" % what, str(e))
        return None


def texts(root):
    return [x.text or "" for x in root.iter(SVG + "text")]


def runs(root):
    """The rectangles of the pattern: "Mx yhWvHh-Wz" subpaths of its paths."""
    found = []
    for p in root.iter(SVG + "path"):
        for m in re.finditer(r"M([-\d.e]+) ([-\d.e]+)h([-\d.e]+)v([-\d.e]+)h[-\d.e]+z",
                             p.get("d")):
            found.append(tuple(float(v) for v in m.groups()))
    return found


def test_small(t, kryl, tmp):
    a = os.path.join(tmp, "small.mtx")
    with open(a, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n4 4 5\n"
                "1 1 2\n2 2 2\n3 3 2\n4 4 2\n4 1 -1\n")
    svg = os.path.join(tmp, "small.svg")
    rc, out, err = kryl.run("spy", a, "-o", svg)
    root = parse(t, svg, "small") if rc == 0 else None
    t.check(root is not None, "small: exit 0 and an SVG", err)
    if root is None:
        return
    t.check("small.mtx: n = 4, nnz = 5" in texts(root), "small: title with n and nnz",
            str(texts(root)))
    # no two entries of a row are neighbours: a square each
    t.check(len(runs(root)) == 5 and all(r[2] == r[3] == 100 for r in runs(root)),
            "small: a square of 100 pixels per stored entry", str(runs(root)))
    t.check(any("bandwidth 3" in x for x in texts(root)), "small: bandwidth 3", str(texts(root)))


def test_large_and_order(t, kryl, tmp):
    a = os.path.join(tmp, "rgg.mtx")
    kryl.run("gen", "rgg", "--n", "5000", "-o", a)
    svg = os.path.join(tmp, "rgg.svg")
    rc, out, err = kryl.run("spy", a, "-o", svg, "--order", "rcm", "--title", "RGG <5000>")
    root = parse(t, svg, "rgg") if rc == 0 else None
    t.check(root is not None, "rgg --order rcm: exit 0 and an SVG", err)
    if root is None:
        return
    words = texts(root)
    t.check(any(x.startswith("RGG <5000>: n = 5000, nnz = ") for x in words),
            "rgg: the title, escaped, with n and nnz", str(words))
    panels = [re.match(r"(.*): bandwidth (\d+), profile (\d+)", x) for x in words]
    panels = [m for m in panels if m]
    t.check(len(panels) == 2 and panels[0].group(1) == "as stored" and
            panels[1].group(1) == "rcm", "rgg: two panels, as stored and rcm", str(words))
    if len(panels) == 2:
        t.check(int(panels[1].group(2)) < int(panels[0].group(2)) / 4,
                "rcm shrinks the scrambled graph's bandwidth", str(words))
    t.check(any("a pixel holds 12.5 x 12.5 entries" in x for x in words),
            "rgg: binned to the pixel grid", str(words))
    # binned: every rect lies within its panel's 400 pixels
    found = runs(root)
    t.check(found and max(r[0] + r[2] for r in found) <= 2 * 460 and
            max(r[1] + r[3] for r in found) <= 70 + 400, "rgg: rectangles inside the panels")
    t.check(os.path.getsize(svg) < 4 << 20, "rgg: the picture stays small",
            "%d bytes" % os.path.getsize(svg))


def test_errors(t, kryl, tmp):
    a = os.path.join(tmp, "p.mtx")
    kryl.run("gen", "poisson2d", "--n", "5", "-o", a)
    bad = os.path.join(tmp, "bad.mtx")
    with open(bad, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n9 1 1\n")
    rect = os.path.join(tmp, "rect.mtx")
    with open(rect, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n3 2 1\n1 1 1\n")
    svg = os.path.join(tmp, "e.svg")
    cases = [
        ("no -o", ["spy", a], ["-o FILE.svg", "usage"]),
        ("no matrix", ["spy", "-o", svg], ["A.mtx"]),
        ("missing file", ["spy", os.path.join(tmp, "none.mtx"), "-o", svg], ["none.mtx"]),
        ("entry out of range", ["spy", bad, "-o", svg], ["bad.mtx:4"]),
        ("not square", ["spy", rect, "-o", svg], ["rect.mtx", "3 x 2", "square"]),
        ("unknown order", ["spy", a, "-o", svg, "--order", "nd"], ["--order", "nd", "rcm"]),
        ("output over the input", ["spy", a, "-o", a], ["--out"]),
        ("unwritable output", ["spy", a, "-o", os.path.join(tmp, "no", "dir.svg")],
         ["dir.svg"]),
    ]
    for what, args, words in cases:
        rc, out, err = kryl.run(*args)
        t.check(rc == 1 and all(w in err for w in words),
                "spy %s: exit 1 naming %s" % (what, words), "rc %d: %s" % (rc, err))
    t.check(not os.path.exists(svg), "no picture written on errors")
    with open(a) as f:
        t.check(f.readline().startswith("%%MatrixMarket"), "the input left as it was")


def main():
    kryl, _ = arguments("test_spy")
    t = Checks("test_spy")
    with temp_dir() as tmp:
        test_small(t, kryl, tmp)
        test_large_and_order(t, kryl, tmp)
        test_errors(t, kryl, tmp)
    t.finish()


if __name__ == "__main__":
    main()
