#!/usr/bin/python3
"""expect.py [--events] METADATA DATA DEFAULT_PREFIX: the values pmdastaprelay should
serve for one pmdajson-style document, as qa/fuse/pcpdump prints them
(NAME TAB INSTANCE TAB VALUE, strings JSON-encoded), sorted.  Scalars,
array sub-metrics (instances named by the index value) and histograms
(instances "lo-hi", null bounds as -inf/inf, value the count).  Event
metrics are left to event clients; --events prints their names (the
prefix of everything the PMDA derives from them: records, fields, stacks).
"""
import json
import sys


def ptr(doc, pointer):
    """RFC 6901; None when absent."""
    if pointer in ("", None):
        return doc
    cur = doc
    for tok in pointer.lstrip("/").split("/"):
        tok = tok.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, dict) and tok in cur:
            cur = cur[tok]
        elif isinstance(cur, list) and tok.isdigit() and int(tok) < len(cur):
            cur = cur[int(tok)]
        else:
            return None
    return cur


def enc(v):
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, bool):
        return str(int(v))
    if isinstance(v, float):
        return repr(v)
    return str(v)


def inst_name(v):
    return v if isinstance(v, str) else json.dumps(v)


def bound(b, inf):
    return inf if b is None else str(b)


def main():
    args = sys.argv[1:]
    events = args[0] == "--events"
    if events:
        args = args[1:]
    meta = json.load(open(args[0]))
    doc = json.load(open(args[1]))
    prefix = meta.get("prefix", args[2])
    if events:
        for m in meta["metrics"]:
            if m.get("type") == "event":
                print("staprelay.%s.%s" % (prefix, m["name"]))
        return
    out = []
    for m in meta["metrics"]:
        name = "staprelay.%s.%s" % (prefix, m["name"])
        t = m.get("type")
        v = ptr(doc, m.get("pointer"))
        if v is None or t == "event":
            continue
        if t == "array":
            for el in v:
                idx = ptr(el, m.get("index", "/__id"))
                for sub in m.get("metrics", []):
                    sv = ptr(el, sub["pointer"])
                    if sv is not None:
                        out.append("%s.%s\t%s\t%s" % (name, sub["name"],
                                   enc(inst_name(idx)), enc(sv)))
        elif t == "histogram":
            for b in v:
                inst = "%s-%s" % (bound(b["lo"], "-inf"), bound(b["hi"], "inf"))
                out.append("%s\t%s\t%s" % (name, enc(inst), enc(b["count"])))
        else:
            out.append("%s\t-\t%s" % (name, enc(v)))
    for line in sorted(out):
        print(line)


main()
