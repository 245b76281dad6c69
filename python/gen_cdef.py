#!/usr/bin/env python3
"""Write the cffi declarations of libtalus from its public headers.

Usage: gen_cdef.py OUT HEADER...

The headers (include/talus/types.h, lab.h, scene.h, talus.h) are plain C that
cffi's parser reads once the preprocessor is taken out: comments, include
guards and includes are dropped, the ``extern "C"`` blocks (inside
``#ifdef __cplusplus``) are skipped, and of the macros only integer constants
(``#define TL_LAW_MAX_COEFFS 24``) are kept, which cffi turns into constants.
``sig_atomic_t`` (scene.h, from <signal.h>) is declared as glibc has it, and
the export mark ``TL_API`` (types.h) is taken off each declaration.
The build runs this on every change of the headers, so the module never
declares anything the library does not have.
"""
import re
import sys

PRELUDE = "typedef int sig_atomic_t; /* <signal.h>, glibc */\n"
INT_DEFINE = re.compile(r"#\s*define\s+(TL_[A-Z0-9_]+)\s+(-?(?:0x[0-9a-fA-F]+|[0-9]+)[uUlL]*)\s*$")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def declarations(path):
    """The C declarations of one header, preprocessor lines removed."""
    out = []
    skip = []  # one entry per open #if: True when its body is skipped
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            directive = s[1:].strip()
            if directive.startswith(("if", "ifdef", "ifndef")):
                skip.append("__cplusplus" in directive)
            elif directive.startswith("endif"):
                skip.pop()
            elif directive.startswith("define") and not any(skip):
                m = INT_DEFINE.match(s)
                if m:
                    out.append("#define %s %s" % (m.group(1), m.group(2).rstrip("uUlL")))
            elif directive.startswith(("else", "elif")):
                raise SystemExit("%s: #else/#elif is not handled by gen_cdef.py" % path)
            continue
        if any(skip) or not s:
            continue
        out.append(re.sub(r"\bTL_API\s+", "", line.rstrip()))
    if skip:
        raise SystemExit("%s: unbalanced #if/#endif" % path)
    return "\n".join(out)


def main(argv):
    if len(argv) < 3:
        raise SystemExit("usage: gen_cdef.py OUT HEADER...")
    parts = [PRELUDE]
    for header in argv[2:]:
        parts.append("/* ---- %s ---- */\n%s\n" % (header.rsplit("/", 1)[-1], declarations(header)))
    text = "\n".join(parts)
    tmp = argv[1] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    import os

    os.replace(tmp, argv[1])


if __name__ == "__main__":
    main(sys.argv)
