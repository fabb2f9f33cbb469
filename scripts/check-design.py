#!/usr/bin/env python3
"""check-design: docs/design.md is the map of the code; fail where they differ.

  scripts/check-design.py        (make check-design; make check runs it first)

* Every module (the stem of a .c or .h) of common/, relay/, pmda/ and
  client/*/ has a row: in design.md's table of its folder (common/,
  relay/, pmda/: the first cell names it; client/: the files cell of its
  sub-folder's row), or, for client/web/, in docs/web.md's module table.
* Every name a row of design.md gives as a module is a file there (no
  stale rows): for common/, relay/ and pmda/ the names in a row's first
  cell, for client/ the names of the files cell outside parentheses.
* Every .c has a .h of the same name, but for the few whose functions
  another header declares (DECLARED_ELSEWHERE, each with that header):
  design.md says so too.

Prints each problem and "design: N modules, N problems"; exits 1 on any.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# .c files without a .h of their own, and the header that declares them
DECLARED_ELSEWHERE = {
    "pmda/main.c": None,                           # the program
    "client/main.c": None,                         # the program
    "client/render/heatmap_html.c": "client/render/heatmap_out.h, client/render/html.h",
}
CMD_RE = re.compile(r"^client/cmd/cmd_[a-z0-9_]+\.c$")   # builtin.h declares cmd_*


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read().splitlines()


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def outside_parens(text):
    out, depth = [], 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def names(text):
    """The module names a cell gives: `x`, `x.c`, `x.h`, `x` (header only)."""
    out = set()
    for tok in re.findall(r"`([^`]+)`", outside_parens(text)):
        tok = tok.strip()
        if re.fullmatch(r"[A-Za-z0-9_.]+", tok):
            out.add(tok)
    return out


def rows(lines, heading_re):
    """The table rows under the heading matching heading_re, up to the next heading."""
    inside = False
    for line in lines:
        if line.startswith("#"):
            inside = re.match(heading_re, line) is not None
            continue
        if inside and line.startswith("|") and not re.match(r"^\|[-| ]+\|$", line):
            yield cells(line)


def documented():
    """folder -> the names its rows give"""
    design = read("docs/design.md")
    doc = {}
    for part in ("common", "relay", "pmda"):
        doc[part] = set()
        for c in rows(design, r"^### `%s/`" % part):
            if c[0] != "file":
                doc[part] |= names(c[0])
    for c in rows(design, r"^### `client/`"):
        m = re.fullmatch(r"`([a-z]+)/`", c[0])
        if m and len(c) > 1:
            doc.setdefault("client/" + m.group(1), set()).update(names(c[1]))
    if os.path.exists(os.path.join(ROOT, "docs/web.md")):
        web = doc.setdefault("client/web", set())
        for c in rows(read("docs/web.md"), r"^## Modules \(client/web/\)"):
            if c[0] != "file":
                web |= names(c[0])
    return doc


def folders():
    out = ["common", "relay", "pmda"]
    for d in sorted(os.listdir(os.path.join(ROOT, "client"))):
        if os.path.isdir(os.path.join(ROOT, "client", d)):
            out.append("client/" + d)
    return out


def main():
    doc = documented()
    problems = []
    nmodules = 0
    for folder in folders():
        files = sorted(os.listdir(os.path.join(ROOT, folder)))
        stems = sorted({f[:-2] for f in files if f.endswith((".c", ".h"))})
        nmodules += len(stems)
        rowname = "docs/web.md's module table" if folder == "client/web" else \
            "docs/design.md's %s row" % (folder if folder.startswith("client/") else folder + "/")
        for s in stems:
            if s not in doc.get(folder, set()) and s + ".c" not in doc.get(folder, set()) \
                    and s + ".h" not in doc.get(folder, set()):
                problems.append("%s/%s: a module with no row (add it to %s)" % (folder, s, rowname))
        for f in files:
            path = folder + "/" + f
            if f.endswith(".c") and f[:-2] + ".h" not in files and \
                    path not in DECLARED_ELSEWHERE and not CMD_RE.match(path):
                problems.append("%s: no %s.h (every .c has a .h of the same name)" % (path, f[:-2]))
        # (docs/web.md's table is also the plan of modules still being written)
        for n in sorted(doc.get(folder, set()) if folder != "client/web" else ()):
            if not any(os.path.exists(os.path.join(ROOT, folder, n + ext)) for ext in ("", ".c", ".h")):
                problems.append("%s: %s names `%s`, which is no file there" % (folder, rowname, n))
    for p in problems:
        print("check-design: " + p)
    print("design: %d modules, %d problems" % (nmodules, len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
