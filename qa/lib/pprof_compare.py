#!/usr/bin/env python3
"""pprof_compare: the qa tests' reading of `go tool pprof`'s output, to
hold staprelay against it.

  raw2folded COLUMN    stdin: `go tool pprof -raw`; stdout: folded stacks
                       (root first, merged, sorted) of the sample value
                       COLUMN (a type name, or "dflt")
  traces2folded        stdin: `go tool pprof -traces` of a profile whose
                       values are plain counts; stdout: folded stacks
  top                  stdin: `go tool pprof -top -unit=...`; stdout:
                       "name flat cum" lines, sorted
  stop                 stdin: `staprelay top -n 0`; same form
  dotnodes             stdin: DOT (pprof's or staprelay's); stdout: the
                       node names (tooltips without the value), sorted
  svgnodes             stdin: Graphviz SVG; the node names, sorted
  changes MODE TOP...  each TOP file `go tool pprof -top -unit=B` of one
                       profile; stdout: "name v1 .. vN change" lines,
                       sorted, of the frames with a flat value anywhere:
                       MODE abs the flat values, MODE share flat% of
                       each total (%.2f, as staprelay prints them)
  schanges             stdin: `staprelay diff --format table --limit 0`;
                       the same form, then whether its rows are ranked
"""
import re
import sys
from collections import defaultdict


def folded_out(stacks):
    for k in sorted(stacks, key=lambda s: s.encode()):
        v = stacks[k]
        print("%s %d" % (k, v))


def raw2folded(column):
    text = sys.stdin.read()
    lines = text.split("\n")
    i = lines.index("Samples:")
    header = lines[i + 1].split()
    names = [h.split("/")[0] for h in header]
    if column == "dflt":   # pprof's default: marked, else the last type
        col = next((n for n, h in enumerate(header) if h.endswith("[dflt]")),
                   len(header) - 1)
    else:
        col = names.index(column)
    samples = []
    j = i + 2
    while not lines[j].startswith("Locations"):
        m = re.match(r"^\s*([-\d\s]+):\s*([\d\s]*)$", lines[j])
        if m:
            vals = [int(v) for v in m.group(1).split()]
            samples.append((vals[col], [int(x) for x in m.group(2).split()]))
        j += 1
    locs = {}
    j += 1
    cur = None
    while j < len(lines) and not lines[j].startswith("Mappings"):
        m = re.match(r"^\s*(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(.*) \S*:\d+ s=\d+$", lines[j])
        if m:
            cur = int(m.group(1))
            locs[cur] = [m.group(2)]
        else:
            m = re.match(r"^\s+(.*) \S*:\d+ s=\d+$", lines[j])
            if m and cur is not None:
                locs[cur].append(m.group(1))
        j += 1
    stacks = defaultdict(int)
    for v, ids in samples:
        if v == 0:
            continue
        frames = []
        for lid in reversed(ids):           # root first
            frames.extend(reversed(locs[lid]))  # outermost line first
        stacks[";".join(f.replace(";", ":") for f in frames)] += v
    folded_out(stacks)


def traces2folded():
    stacks = defaultdict(int)
    cur, frames = None, []
    for line in sys.stdin:
        line = line.rstrip("\n")
        if line.startswith("-----------+"):
            if cur is not None and frames:
                stacks[";".join(reversed(frames))] += cur
            cur, frames = None, []
            continue
        m = re.match(r"^\s+(\d+)\s{3}(\S.*)$", line)
        if m and cur is None:
            cur = int(m.group(1))
            frames.append(m.group(2))
        elif cur is not None and line.startswith(" " * 13) and line.strip():
            frames.append(line.strip())
    folded_out(stacks)


def top():
    rows = []
    for line in sys.stdin:
        m = re.match(r"^\s*(\d+)\D*\s+[\d.]+%\s+[\d.]+%\s+(\d+)\D*\s+[\d.]+%\s+(.*)$", line)
        if m:
            rows.append("%s %s %s" % (m.group(3), m.group(1), m.group(2)))
    for r in sorted(rows):
        print(r)


def stop():
    rows = []
    for line in sys.stdin:
        m = re.match(r"^\s*([\d,]+)\s+[\d.]+%\s+([\d,]+)\s+[\d.]+%\s+(.*)$", line)
        if m:
            rows.append("%s %s %s" % (m.group(3), m.group(1).replace(",", ""),
                                      m.group(2).replace(",", "")))
    for r in sorted(rows):
        print(r)


def dotnodes():
    names = set()
    for line in sys.stdin:
        m = re.match(r'^N\d+ \[label=.* tooltip="(.*) \([^()]*\)" color=', line)
        if m:
            names.add(m.group(1))
    for n in sorted(names):
        print(n)


def svgnodes():
    text = sys.stdin.read()
    names = set()
    for m in re.finditer(r'<g id="node\d+" class="node">.*?xlink:title="([^"]*) \([^()]*\)"', text, re.S):
        names.add(m.group(1).replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&"))
    for n in sorted(names):
        print(n)


def go_flats(path):
    flat, total = {}, None
    with open(path) as f:
        for line in f:
            m = re.search(r"% of (\d+)B total", line)
            if m:
                total = int(m.group(1))
            m = re.match(r"^\s*(\d+)B\s+[\d.e+-]+%\s+[\d.e+-]+%\s+\d+B\s+[\d.e+-]+%\s+(.*?)( \(inline\))?$", line)
            if m:
                flat[m.group(2)] = flat.get(m.group(2), 0) + int(m.group(1))
    return flat, total


def changes(mode, paths):
    profiles = [go_flats(p) for p in paths]
    names = set()
    for flat, _ in profiles:
        names.update(n for n, v in flat.items() if v)
    for n in sorted(names):
        if mode == "abs":
            v = [flat.get(n, 0) for flat, _ in profiles]
            d = v[-1] - v[0]
            print(n, " ".join(str(x) for x in v), "%+d" % d if d else "0")
        else:
            v = [100 * flat.get(n, 0) / total for flat, total in profiles]
            print(n, " ".join("%.2f" % x for x in v), "%+.2f" % (v[-1] - v[0]))


def schanges():
    rows, ranked, last = [], True, None
    for line in sys.stdin:
        f = line.split()
        if len(f) < 3 or not re.match(r"^[+-]?[\d,.]+%?$", f[0]) or "%" not in line and not re.match(r"^[+-][\d,]+$|^0$", f[-2]):
            continue
        vals, name = [], None
        for i, x in enumerate(f):
            if not re.match(r"^[+-]?[\d,.]+%?$", x):
                name = " ".join(f[i:])
                break
            vals.append(x.replace(",", "").rstrip("%"))
        if name is None or len(vals) < 3:
            continue
        change = abs(float(vals[-1]))
        if last is not None and change > last:
            ranked = False
        last = change
        rows.append("%s %s" % (name, " ".join(vals)))
    for r in sorted(rows):
        print(r)
    print("rows ranked by the largest change" if ranked else "rows NOT ranked")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "raw2folded":
        raw2folded(sys.argv[2])
    elif cmd == "changes":
        changes(sys.argv[2], sys.argv[3:])
    elif cmd == "schanges":
        schanges()
    else:
        {"traces2folded": traces2folded, "top": top, "stop": stop,
         "dotnodes": dotnodes, "svgnodes": svgnodes}[cmd]()
