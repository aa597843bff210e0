"""kryl plot: residual histories as one SVG picture (well-formed, a curve
per file, the files named in the legend), and bad histories refused with
the file and line."""

import os
import xml.etree.ElementTree as ET

from clitest import Checks, arguments, temp_dir

SVG = "{http://www.w3.org/2000/svg}"


def main():
    kryl, _ = arguments("test_plot")
    t = Checks("test_plot")
    with temp_dir() as tmp:
        files = []
        for method in ["cg", "pipecg", "gmres"]:
            path = os.path.join(tmp, method + ".csv")
            rc, out, err = kryl.run("solve", "--gen", "poisson2d", "--n", "30", "--method",
                                    method, "--history", path, "-q")
            t.check(rc == 0 and os.path.exists(path), "%s history written" % method, err)
            files.append(path)
        svg = os.path.join(tmp, "h.svg")
        rc, out, err = kryl.run("plot", *files, "-o", svg, "--title", "Poisson <2-D>")
        t.check(rc == 0, "plot: exit 0", err)
        try:
            root = ET.parse(svg).getroot()
        except (ET.ParseError, OSError) as e:
            t.check(False, "plot: the SVG parses as XML", str(e))
            t.finish()
        lines = root.findall(SVG + "polyline")
        t.check(len(lines) == 3, "plot: a curve per file", "%d polylines" % len(lines))
        t.check(all(len(p.get("points").split()) > 10 for p in lines),
                "plot: every curve has its points")
        texts = [x.text for x in root.iter(SVG + "text")]
        t.check(any(x and x.startswith("cg.csv") for x in texts) and
                any(x and x.startswith("gmres.csv") for x in texts), "plot: legend names files",
                str(texts))
        t.check("Poisson <2-D>" in texts, "plot: the title, escaped", str(texts))
        bad = os.path.join(tmp, "bad.csv")
        with open(bad, "w") as f:
            f.write("iteration,residual_norm,relative_residual\n0,1,1\n1,0.5\n")
        rc, out, err = kryl.run("plot", bad, "-o", svg)
        t.check(rc == 1 and "bad.csv:3" in err, "plot: a bad line named", err)
        rc, out, err = kryl.run("plot", files[0])
        t.check(rc == 1 and "-o" in err, "plot: -o is required", err)
    t.finish()


main()
