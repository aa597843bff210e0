"""kryl solve's options from elsewhere: --options-file (one option a line,
or a JSON configuration of nested {"type": ...} objects), KRYL_OPTIONS in
the environment (the command line wins), errors that name the line or the
key, and --json printing a JSON object for errors too."""

import json
import os
import subprocess

from clitest import Checks, arguments, temp_dir


def run(kryl, args, env_extra=None):
    env = dict(os.environ)
    env.pop("KRYL_OPTIONS", None)
    env.update(env_extra or {})
    p = subprocess.run([kryl.path] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def solve_json(t, kryl, what, args, env_extra=None):
    rc, out, err = run(kryl, ["solve", "--gen", "convdiff2d", "--n", "30", "--json"] + args,
                       env_extra)
    try:
        return rc, json.loads(out), err
    except ValueError:
        t.check(False, "%s: stdout is one JSON object" % what, out + err)
        return rc, {}, err


def test_options_file(t, kryl, tmp):
    lines = os.path.join(tmp, "gmres.opts")
    with open(lines, "w") as f:
        f.write("# GMRES(25) with ILUT\n--method gmres\n--restart 25  # vectors\n"
                "--precond=ilut\n--droptol 1e-4\n--rtol 1e-9\n")
    rc, obj, err = solve_json(t, kryl, "lines", ["--options-file", lines])
    t.check(rc == 0 and obj.get("method") == "gmres" and obj.get("restart") == 25 and
            obj.get("precond") == "ilut" and obj.get("droptol") == 1e-4 and
            obj.get("rtol") == 1e-9, "--options-file lines applied", str(obj) + err)
    # the command line after the file wins
    rc, obj, err = solve_json(t, kryl, "override", ["--options-file", lines, "--restart", "30"])
    t.check(obj.get("restart") == 30, "a later command-line option overrides the file", str(obj))

    config = os.path.join(tmp, "stack.json")
    with open(config, "w") as f:
        json.dump({"method": "gmres", "rtol": 1e-9,
                   "mixed": {"type": "inner-outer", "inner_rtol": 1e-3, "inner-its": 20},
                   "precond": {"type": "bjacobi", "blocks": 3, "partition": "contiguous",
                               "block-factor": {"type": "ilut", "droptol": 1e-5,
                                                "maxfill": 30}},
                   "order": "rcm", "backend": "ref", "view": True, "monitor": 5}, f)
    rc, obj, err = solve_json(t, kryl, "json", ["--options-file", config])
    view = obj.get("view", {})
    t.check(rc == 0 and obj.get("mixed") == "inner-outer" and obj.get("inner_its") == 20 and
            obj.get("blocks") == 3 and obj.get("block_factor") == "ilut" and
            obj.get("maxfill") == 30 and obj.get("order") == "rcm" and
            obj.get("backend") == "ref", "JSON configuration: the nested stack applied",
            str(obj) + err)
    t.check(view.get("mixed", {}).get("outer") == "fgmres" and
            view.get("precond", {}).get("block_factor") == "ilut",
            "JSON configuration: the view shows the stack", str(view))
    t.check("monitor  it      0" in err, "JSON configuration: the monitor is on", err)

    bad = os.path.join(tmp, "bad.json")
    cases = [
        ({"precond": {"type": "bjacobi", "blocks": "many"}}, ["key precond.blocks", "many"]),
        ({"precond": {"type": "ilut", "droptoll": 1e-3}}, ["key precond.droptoll", "unknown"]),
        ({"precond": {"blocks": 3}}, ["key precond", "type"]),
        ({"rtol": [1e-8]}, ["key rtol", "array"]),
    ]
    for config_obj, words in cases:
        with open(bad, "w") as f:
            json.dump(config_obj, f)
        rc, out, err = run(kryl, ["solve", "--gen", "poisson2d", "--n", "10",
                                  "--options-file", bad])
        t.check(rc == 1 and all(w in err for w in words) and "bad.json" in err,
                "bad configuration %s: exit 1 naming %s" % (config_obj, words), err)
    with open(bad, "w") as f:
        f.write('{"rtol": 1e-8,\n "maxit": 10,}\n')
    rc, out, err = run(kryl, ["solve", "--gen", "poisson2d", "--n", "10", "--options-file", bad])
    t.check(rc == 1 and "bad.json:2:" in err, "malformed JSON: line and column", err)
    with open(lines, "w") as f:
        f.write("--method cg\n--rtoll 1e-8\n")
    rc, out, err = run(kryl, ["solve", "--gen", "poisson2d", "--n", "10", "--options-file", lines])
    t.check(rc == 1 and "gmres.opts:2" in err and "--rtoll" in err,
            "unknown option in a file: its line", err)
    rc, out, err = run(kryl, ["solve", "--gen", "poisson2d", "--n", "10", "--options-file",
                              os.path.join(tmp, "missing.opts")])
    t.check(rc == 1 and "missing.opts" in err, "missing options file named", err)


def test_environment(t, kryl):
    env = {"KRYL_OPTIONS": "--method bicgstab --rtol 1e-7 --precond ilu0"}
    rc, obj, err = solve_json(t, kryl, "KRYL_OPTIONS", [], env)
    t.check(obj.get("method") == "bicgstab" and obj.get("rtol") == 1e-7 and
            obj.get("precond") == "ilu0", "KRYL_OPTIONS applied", str(obj) + err)
    rc, obj, err = solve_json(t, kryl, "KRYL_OPTIONS override", ["--rtol", "1e-9"], env)
    t.check(obj.get("rtol") == 1e-9 and obj.get("method") == "bicgstab",
            "the command line overrides KRYL_OPTIONS", str(obj))
    rc, out, err = run(kryl, ["solve", "--gen", "poisson2d", "--n", "10"],
                       {"KRYL_OPTIONS": "--rtol x"})
    t.check(rc == 1 and "KRYL_OPTIONS" in err and "--rtol" in err, "bad KRYL_OPTIONS named", err)


def test_json_errors(t, kryl, tmp):
    cases = [
        (["solve", os.path.join(tmp, "missing.mtx"), "--json"], "missing.mtx"),
        (["solve", "--gen", "poisson2d", "--n", "10", "--rtol", "x", "--json"], "--rtol"),
        (["solve", "--json", "--gen", "poisson2d", "--n", "10", "--precond", "ilu9"], "ilu9"),
        (["info", os.path.join(tmp, "missing.mtx"), "--json"], "missing.mtx"),
    ]
    for args, word in cases:
        rc, out, err = run(kryl, args)
        try:
            obj = json.loads(out)
        except ValueError:
            obj = {}
        t.check(rc == 1 and word in obj.get("error", "") and isinstance(obj.get("status"), int)
                and obj["status"] < 0, "--json error for %s: exit 1 and a JSON object" % word,
                "exit %d\nstdout: %s\nstderr: %s" % (rc, out, err))
        t.check(word in err, "--json error for %s: still on stderr" % word, err)
    rc, out, err = run(kryl, ["solve", "--gen", "poisson2d", "--n", "10", "--method", "cg",
                              "--maxit", "1", "--json"])
    obj = json.loads(out) if out.strip() else {}
    t.check(rc == 2 and "error" not in obj and obj.get("converged") is False,
            "not converging is a result, not a JSON error", out)


def main():
    kryl, _ = arguments("test_options_config")
    t = Checks("test_options_config")
    with temp_dir() as tmp:
        test_options_file(t, kryl, tmp)
        test_environment(t, kryl)
        test_json_errors(t, kryl, tmp)
    t.finish()


main()
