#!/bin/sh
# The guides of doc/guide/ show real runs: every `./dtsim ...` line of their
# ```sh blocks is run by a tesh test (tests/cli/guide-*.tesh, or the
# examples/teach-*.tesh of the pictures they show), and every ```text block
# they quote is output that one of those tests checks, line for line.
# And doc/README.md, the index of doc/, names every page of doc/.
set -eu
src="${top_srcdir:?}"
cd "$src"
exec python3 - doc/guide/*.md <<'PY'
import glob, re, sys

tesh = sorted(glob.glob("tests/cli/guide-*.tesh") + glob.glob("examples/teach-*.tesh"))
commands, goldens = [], []
for path in tesh:
    lines = open(path).read().split("\n")
    commands += [l[2:] for l in lines if l.startswith("$ ")]
    goldens.append([l[2:] if l.startswith("> ") else "" if l == ">" else None
                    for l in lines])

def quoted(block):
    n = len(block)
    for g in goldens:
        for i in range(len(g) - n + 1):
            if g[i:i + n] == block:
                return True
    return False

bad = 0
n_cmd = n_out = 0
for guide in sys.argv[1:]:
    kind, block = None, []
    for lineno, line in enumerate(open(guide).read().split("\n"), 1):
        m = re.match(r"^```(\w*)$", line)
        if m and kind is None:
            kind, block, start = m.group(1), [], lineno + 1
            continue
        if line == "```" and kind is not None:
            if kind == "text":
                n_out += 1
                if not quoted(block):
                    print(f"{guide}:{start}: this output is not checked by any guide tesh test")
                    bad += 1
            kind = None
            continue
        if kind == "sh" and line.startswith("./dtsim "):
            n_cmd += 1
            cmd = line[2:].rstrip()
            if not any(cmd in c for c in commands):
                print(f"{guide}:{lineno}: no tesh test runs '{cmd}'")
                bad += 1
        elif kind is not None:
            block.append(line)

index = open("doc/README.md").read()
for page in sorted(glob.glob("doc/*.md") + glob.glob("doc/guide/*.md")):
    name = page[len("doc/"):]
    if name != "README.md" and f"({name})" not in index:
        print(f"doc/README.md does not list {page}")
        bad += 1

print(f"guide-commands: {n_cmd} commands and {n_out} outputs checked in {len(sys.argv) - 1} guides")
sys.exit(1 if bad or n_cmd < 10 else 0)
PY
