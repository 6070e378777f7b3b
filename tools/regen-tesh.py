#!/usr/bin/env python3
"""Regenerate the expected output of tesh golden tests.

usage: tools/regen-tesh.py BUILDDIR tests/cli/NAME.tesh [...]

Runs every `$ command` of each file the way tesh does (from the file's
directory, shlex-split, stdout and stderr merged, ${bindir} = BUILDDIR,
DTSIM_DATADIR = the source tree) and rewrites the `> ` lines that follow it.
Commands marked `! output ignore` keep no expected lines. Review the result
with `git diff` before committing: goldens are never edited by hand.
"""
import os
import re
import shlex
import subprocess
import sys


def expand(cmd, env):
    """Expand variables exactly as tesh does."""
    cmd = re.sub(r"\$\{(\w+):=([^}]*)\}",
                 lambda m: "$" + m.group(1) if m.group(1) in env else m.group(2), cmd)
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        cmd = os.path.expandvars(cmd)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return re.sub(r"(?<!\\)\$[A-Za-z_][A-Za-z0-9_]*", "", cmd)


def run(cmd, cwd, env):
    p = subprocess.run(shlex.split(expand(cmd, env)), cwd=cwd, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # tesh drops the output's trailing newlines: so does the golden
    out = p.stdout.rstrip("\n")
    return ([] if out == "" else out.split("\n")), p.returncode


def regen(path, builddir, srcdir):
    env = dict(os.environ, bindir=builddir, srcdir=srcdir, DTSIM_DATADIR=srcdir)
    cwd = os.path.dirname(os.path.abspath(path))
    lines = open(path).read().rstrip("\n").split("\n")
    out, pending, ignore, expect = [], None, False, 0

    def flush():
        nonlocal pending, ignore, expect
        if pending is None:
            return
        if not ignore:
            got, rc = run(pending, cwd, env)
            out.extend("> " + g if g else ">" for g in got)
            if rc != expect:
                print(f"{path}: '{pending}' exited {rc}, expected {expect}", file=sys.stderr)
        pending, ignore, expect = None, False, 0

    for line in lines:
        if line.startswith("> ") or line == ">":
            continue
        if line.startswith("$ "):
            flush()
            pending = line[2:]
            out.append(line)
            continue
        if line.startswith("! output ignore"):
            ignore = True
        elif line.startswith("! expect return"):
            expect = int(line.split()[-1])
        elif line == "" and pending is not None:
            flush()
        elif line.startswith("! ") or line.startswith("#") or line.startswith("p ") or line == "":
            pass
        out.append(line)
    flush()
    open(path, "w").write("\n".join(out) + "\n")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    builddir = os.path.abspath(sys.argv[1])
    srcdir = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    for f in sys.argv[2:]:
        regen(f, builddir, srcdir)


if __name__ == "__main__":
    main()
