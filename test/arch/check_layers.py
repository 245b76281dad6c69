#!/usr/bin/env python3
"""The house's one direction (issue 43, docs/architecture.md): which file reaches which, by its
#include lines and by the functions its object file calls (nm), checked against the floors of
test/arch/floors.txt and the known exceptions of test/arch/allowed.txt.

    check_layers.py SOURCE_DIR BUILD_DIR            exit 1 on a new exception or a stale one
    check_layers.py SOURCE_DIR BUILD_DIR --write    rewrites allowed.txt with today's exceptions
    check_layers.py SOURCE_DIR BUILD_DIR --graph    prints every arrow between folders

A module is a source file without its extension (world.c and world.h are one module). An arrow
runs from module A to module B when a file of A includes a header of B, or when A's object file
calls a function B's object file defines. Two kinds of exception:
  up A -> B     A's floor is below B's (a lower folder reaching a higher one)
  circle A B .. modules that reach one another in a circle (a strongly connected set of the graph)
A third rule: no test or fuzz program includes world.h, directly or through a header of src/ (the
tests use the public API or src/world/world_probe.h, never tl_world's fields).
A circle is allowed when its modules are all in one allowed circle (a circle that shrank is no new
exception); an allowed entry that matches nothing is stale: the list only shrinks."""
import os
import re
import subprocess
import sys

SRC_DIRS = ["src", "app"]
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def floors(path):
    """folder or file (relative to the source root) -> floor number; a file entry overrides its folder"""
    fl = {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, num = line.split()
        fl[name] = int(num)
    return fl


def floor_of(fl, mod):
    for key in (mod + ".c", mod + ".h", mod):
        if key in fl:
            return fl[key]
    d = os.path.dirname(mod)
    if d in fl:
        return fl[d]
    raise SystemExit(f"check_layers: {mod} has no floor in floors.txt (add its folder)")


def sources(root):
    out = []
    for top in SRC_DIRS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def module(path):
    return os.path.splitext(path)[0]


def include_arrows(root, files):
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    arrows = set()
    for f in files:
        text = open(os.path.join(root, f), errors="replace").read()
        for inc in INCLUDE.findall(text):
            base = os.path.basename(inc)
            cands = by_name.get(base, [])
            if not cands:
                continue  # a public header (include/talus/) or a system one
            if len(cands) > 1:  # the same name in two folders: the one in the includer's folder
                same = [c for c in cands if os.path.dirname(c) == os.path.dirname(f)]
                cands = same or cands
            a, b = module(f), module(cands[0])
            if a != b:
                arrows.add((a, b, "include"))
    return arrows


def objects(root, build):
    objs = {}
    for d, _, files in os.walk(os.path.join(build, "CMakeFiles")):
        for f in files:
            if not f.endswith(".c.o"):
                continue
            p = os.path.join(d, f)
            m = re.search(r"CMakeFiles/(talus_[a-z]+|talus)\.dir/(.*)\.c\.o$", p)
            # not a generated file (default_scene.c), nor the object of a source moved away, nor
            # one an older layout of the build left behind: a source of src/FOLDER is compiled
            # by the floor's target talus_FOLDER, app/ by talus
            if not m or m.group(2).split("/")[0] not in SRC_DIRS:
                continue
            parts = m.group(2).split("/")
            target = "talus" if parts[0] == "app" else "talus_" + parts[1]
            if m.group(1) == target and os.path.exists(os.path.join(root, m.group(2) + ".c")):
                objs[m.group(2)] = p
    return objs


def call_arrows(objs):
    defined, wanted = {}, {}
    for mod, p in objs.items():
        out = subprocess.run(["nm", "--defined-only", "-g", p], capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                defined[parts[2]] = mod
        out = subprocess.run(["nm", "-u", p], capture_output=True, text=True).stdout
        wanted[mod] = [l.split()[-1] for l in out.splitlines() if l.strip()]
    arrows = set()
    for mod, syms in wanted.items():
        for s in syms:
            to = defined.get(s)
            if to and to != mod:
                arrows.add((mod, to, "call"))
    return arrows


def circles(nodes, edges):
    """strongly connected sets of more than one module (Tarjan, iterative)"""
    succ = {n: set() for n in nodes}
    for a, b in edges:
        succ[a].add(b)
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(succ[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(succ[nxt]))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def tests_reaching_world(root, files):
    """The test and fuzz programs that include world.h, directly or through a header of src/: they
    could name tl_world's fields (issue 43: tests use the public API or src/world/world_probe.h)."""
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    reach = {}  # header basename -> whether it reaches world.h

    def reaches(base, seen):
        if base == "world.h":
            return True
        if base in reach:
            return reach[base]
        if base in seen or base not in by_name:
            return False
        seen.add(base)
        text = open(os.path.join(root, by_name[base][0]), errors="replace").read()
        r = any(reaches(os.path.basename(i), seen) for i in INCLUDE.findall(text))
        reach[base] = r
        return r

    bad = []
    for top in ("test", "fuzz"):
        for d, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if not n.endswith((".c", ".h")):
                    continue
                path = os.path.join(d, n)
                text = open(path, errors="replace").read()
                for inc in INCLUDE.findall(text):
                    if reaches(os.path.basename(inc), set()):
                        bad.append(f"{os.path.relpath(path, root)} includes {inc}, which reaches world.h")
    return bad


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    root, build = sys.argv[1], sys.argv[2]
    mode = sys.argv[3] if len(sys.argv) > 3 else ""
    here = os.path.join(root, "test", "arch")
    fl = floors(os.path.join(here, "floors.txt"))
    files = sources(root)
    objs = objects(root, build)
    if not objs:
        print(f"check_layers: no object files under {build}/CMakeFiles (build first)")
        return 1
    arrows = include_arrows(root, files) | call_arrows(objs)
    nodes = {module(f) for f in files} | set(objs)
    edges = {(a, b) for a, b, _ in arrows}
    if mode == "--graph":
        folders = {}
        for a, b, how in sorted(arrows):
            fa, fb = os.path.dirname(a), os.path.dirname(b)
            if fa != fb:
                folders.setdefault((fa, fb), []).append(f"{a} -> {b} ({how})")
        for (fa, fb), lst in sorted(folders.items()):
            up = " UP" if floor_of(fl, fa) < floor_of(fl, fb) else ""
            print(f"{fa} -> {fb}{up}: {len(lst)}")
        return 0
    found = set()
    for a, b, how in arrows:
        if os.path.dirname(a) != os.path.dirname(b) and floor_of(fl, a) < floor_of(fl, b):
            found.add(f"up {a} -> {b}")
    found_circles = circles(nodes, edges)
    allowed_path = os.path.join(here, "allowed.txt")
    if mode == "--write":
        with open(allowed_path + ".part", "w") as f:
            f.write("# The known exceptions to the house's one direction (test/arch/check_layers.py).\n"
                    "# The list only shrinks: fix one, then rerun with --write. Never add a line by hand.\n")
            for line in sorted(found):
                f.write(line + "\n")
            for c in found_circles:
                f.write("circle " + " ".join(c) + "\n")
        os.replace(allowed_path + ".part", allowed_path)
        print(f"wrote {allowed_path}: {len(found)} upward arrows, {len(found_circles)} circles")
        return 0
    allowed_up, allowed_circles = set(), []
    for line in open(allowed_path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("circle "):
            allowed_circles.append(set(line.split()[1:]))
        else:
            allowed_up.add(line)
    bad = 0
    for line in sorted(found - allowed_up):
        print(f"NEW: {line} (a lower floor reaching a higher one; floors: test/arch/floors.txt)")
        bad = 1
    for line in sorted(allowed_up - found):
        print(f"STALE: {line} is gone: remove it from test/arch/allowed.txt (--write)")
        bad = 1
    for c in found_circles:
        if not any(set(c) <= a for a in allowed_circles):
            print(f"NEW: circle {' '.join(c)}")
            bad = 1
    for a in allowed_circles:
        if not any(set(c) <= a for c in found_circles):
            print(f"STALE: circle {' '.join(sorted(a))} is gone: rerun with --write")
            bad = 1
    reaching = tests_reaching_world(root, files)
    for line in reaching:
        print(f"NEW: {line}: a test uses the public API or world_probe.h, never tl_world's fields")
        bad = 1
    print(f"check_layers: {len(arrows)} arrows between {len(nodes)} modules; {len(found)} upward "
          f"(allowed {len(allowed_up)}), {len(found_circles)} circles "
          f"({sum(len(c) for c in found_circles)} modules)")
    return bad


if __name__ == "__main__":
    sys.exit(main())
