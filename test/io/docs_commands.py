#!/usr/bin/env python3
"""Every `talus` command the README and docs/ show, run (issue 14: one command line).

A command is a line of an indented code block that starts with `talus ` or
`$ talus ` (continued by a trailing backslash), in README.md and docs/*.md.
Lines with placeholders (SCENE, [options], CAPITALS, <dir>, ...) are usage
summaries, not commands, and are skipped. Each command runs in a scratch
folder with the repository's examples and bench files reachable as in the
docs (the working directory is the repository root), and must exit 0:

- collide, calibrate, models, check, version: run as shown;
- run: as shown when the scene is quick (under a few seconds: the falling
  particle); the long ones (minutes: shear boxes, pours) are checked with
  `talus check`, which loads them with every check of `run`;
- validate and bench: `validate --quick` runs in test_validate and the
  benchmarks in bench/; here they are run with --help.

usage: docs_commands.py TALUS SOURCE_DIR
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

talus, src = sys.argv[1], sys.argv[2]
QUICK_SCENES = {"examples/001-falling-particle.yaml"}
PLACEHOLDER = re.compile(r"\[|\]|<|>|\.\.\.|\bSCENE\b|\bMODE\b|\bDIR\b|\bFILE\b|\bN\b|\bE\b \b|[A-Z]{2,}_?[A-Z]*\b|\|")


def commands(path):
    out, lines = [], open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^ {4,}(\$ )?(talus .*)$", lines[i])
        i += 1
        if not m:
            continue
        cmd = m.group(2).rstrip()
        while cmd.endswith("\\") and i < len(lines):
            cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
            i += 1
        cmd = re.sub(r"\s+#.*$", "", cmd)
        if any(w.endswith(":") for w in cmd.split()[1:3]):  # "talus collide: a sphere ..." is output
            continue
        out.append((os.path.relpath(path, src), cmd))
    return out


found = []
for f in [os.path.join(src, "README.md")] + sorted(
        os.path.join(src, "docs", n) for n in os.listdir(os.path.join(src, "docs")) if n.endswith(".md")):
    found += commands(f)

failures, ran, checked, skipped = 0, 0, 0, 0
tmp = tempfile.mkdtemp()
for where, cmd in found:
    words = shlex.split(cmd.replace(" > kharaz.csv", "").replace(" | head", ""))
    if any(PLACEHOLDER.search(w) for w in words[1:] if not w.startswith("--") or "=" not in w) \
            or "..." in cmd:
        skipped += 1
        if os.environ.get("SHOW_SKIPPED"):
            print("skipped (%s): %s" % (where, cmd))
        continue
    sub = words[1]
    argv = [talus] + words[1:]
    if sub in ("validate", "bench"):
        argv = [talus, sub, "--help"]
    elif sub == "run":
        scene = next((w for w in words[2:] if w.endswith(".yaml")), None)
        if scene not in QUICK_SCENES or "--resume" in words:
            argv = [talus, "check", os.path.join(src, scene)] if scene else [talus, "run", "--help"]
            checked += 1
        else:
            argv = [talus, "run", os.path.join(src, scene), "-o", os.path.join(tmp, "out"), "--quiet"]
    argv = [a if not a.startswith("examples/") else os.path.join(src, a) for a in argv]
    r = subprocess.run(argv, cwd=tmp, capture_output=True, text=True, timeout=300)
    ran += 1
    if r.returncode != 0:
        failures += 1
        print("FAILED (%s): %s\n  exit %d: %s" % (where, cmd, r.returncode, (r.stderr or r.stdout)[-400:]))
print("docs commands: %d found, %d run (%d of them as `talus check`), %d usage lines skipped, %d failed"
      % (len(found), ran, checked, skipped, failures))
sys.exit(1 if failures or ran < 8 else 0)
