#!/usr/bin/python3
"""gen.py: event documents for bench/stap/run, from a stap fixture.

  gen.py FIXTURE_DIR OUTDIR N RECORDS   N documents OUTDIR/doc.1..N, each
                                        with RECORDS new records per event
                                        metric (sequence numbers continue)
  gen.py FIXTURE_DIR OUTDIR N -BYTES    the same, each document at least
                                        BYTES long
  Also writes OUTDIR/drained.json: the fixture with empty event lists.
Records are the fixture's own, cycled, with fresh seq and ts."""
import json
import os
import sys

fixture, out, n, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
meta = json.load(open(os.path.join(fixture, "metadata.json")))
doc = json.load(open(os.path.join(fixture, "data.json")))
events = [m for m in meta["metrics"] if m.get("type") == "event"]
os.makedirs(out, exist_ok=True)

drained = dict(doc)
for e in events:
    drained[e["pointer"].lstrip("/")] = []
with open(os.path.join(out, "drained.json"), "w") as f:
    json.dump(drained, f, indent=2, ensure_ascii=False)

seq = {e["name"]: 0 for e in events}
ts = 1764450000000000000
for k in range(1, n + 1):
    d = dict(doc)
    for e in events:
        key = e["pointer"].lstrip("/")
        tmpl = doc[key] or [{}]
        recs = []
        body = 0
        i = 0
        while (size > 0 and i < size) or (size < 0 and body < -size):
            r = dict(tmpl[i % len(tmpl)])
            seq[e["name"]] += 1
            ts += 1000
            r["seq"], r["ts"] = seq[e["name"]], ts
            recs.append(r)
            body += len(json.dumps(r, ensure_ascii=False)) + 2
            i += 1
        d[key] = recs
    with open(os.path.join(out, "doc.%d" % k), "w") as f:
        f.write("{\n")
        items = list(d.items())
        for j, (key, v) in enumerate(items):
            end = ",\n" if j + 1 < len(items) else "\n"
            if isinstance(v, list) and any(key == e["pointer"].lstrip("/") for e in events):
                f.write('  %s: [\n' % json.dumps(key))
                f.write(",\n".join("    " + json.dumps(r, ensure_ascii=False) for r in v))
                f.write("\n  ]" + end)
            else:
                f.write("  %s: %s%s" % (json.dumps(key), json.dumps(v, ensure_ascii=False), end))
        f.write("}\n")
