#!/usr/bin/env python3
"""grafana_pcp: what grafana-pcp does with pmdastaprelay's metrics, re-implemented
line for line from its source (performancecopilot/grafana-pcp at bca33d7,
read 2026-12-01), so tests can run our real instance names through it.

  build_stack_tree   src/datasources/lib/pmapi/data_processor.ts, lines
                     417-468 (buildStackTree, target format
                     "flamegraph_grafana"); the legacy flame graph panel,
                     src/panels/flamegraph/model.ts lines 11-31 (readStacks),
                     splits and trims the same way
  heatmap_label      data_processor.ts lines 249-260 (getHeatMapDisplayName)
  rate               src/datasources/lib/pmapi/field_transformations.ts
                     lines 8-55 (fieldSetRate, rateConversion)

JavaScript's String.prototype.trim() removes WhiteSpace and LineTerminator
code points (ECMA-262 sec 22.1.3.32): JS_WHITESPACE below.  JavaScript's
split(/[\\n,]/) splits on newline and comma only.

Command line (used by qa 620):
  grafana_pcp.py fold INDOM_JSON FETCH_JSON
      /pmapi/indom and /pmapi/fetch answers of pmproxy for a stacks counter:
      prints each flame graph node with samples of its own as a JSON list,
      [frame, frame, ..., count], frames exactly as grafana-pcp shows them,
      the tree walked in insertion order
  grafana_pcp.py labels INDOM_JSON FETCH_JSON
      the heat map's row labels, in the order grafana-pcp builds its fields
      (the order of the values in /pmapi/fetch)
"""
import json
import re
import sys

# ECMA-262 WhiteSpace + LineTerminator (what trim() removes)
JS_WHITESPACE = ("\u0009\u000b\u000c\u0020\u00a0\ufeff\u1680\u2000\u2001\u2002"
                 "\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f"
                 "\u3000\u000a\u000d\u2028\u2029")


def js_trim(s):
    return s.strip(JS_WHITESPACE)


def build_stack_tree(fields, min_samples=1, hide_unresolved=False, hide_idle=False):
    """fields: [(instance_name, [values...]), ...] in field order.
    data_processor.ts 417-468."""
    root = {"name": "root", "leafValue": 0, "children": []}
    for name, values in fields:
        if not name:                                   # 427: !instance?.name
            continue
        count = 0
        for v in values:                               # 431-437
            if v is not None:                          # MISSING_VALUE
                count += v
        if count < min_samples:                        # 438-440
            continue
        cur = root
        skip = False
        for frame in re.split(r"[\n,]", name):         # 444
            frame = js_trim(frame)                     # 447
            if not frame or (hide_unresolved and frame.startswith("0x")):
                continue                               # 448-450
            if hide_idle and frame.startswith("cpuidle_enter_state+"):
                skip = True                            # 451-454
                break
            child = next((c for c in cur["children"] if c["name"] == frame), None)
            if child is None:                          # 455-459
                child = {"name": frame, "leafValue": 0, "children": []}
                cur["children"].append(child)
            cur = child
        if not skip:                                   # 462-464
            cur["leafValue"] += count
    return root


def leaf_paths(node, path=()):
    """Every node with samples of its own: (frames root first, leafValue)."""
    if node["leafValue"] and path:
        yield path, node["leafValue"]
    for c in node["children"]:
        yield from leaf_paths(c, path + (c["name"],))


def heatmap_label(instance_name):
    """data_processor.ts 249-260: the bucket's upper bound."""
    if instance_name:
        m = re.match(r"^(.+?)\-(.+?)$", instance_name, re.S)
        if m:
            return m.group(2)
    return "0-0"


def rate(values, times_ms, discrete=False):
    """field_transformations.ts 8-55: counters become per-second rates; the
    first value and any that went down are missing (None)."""
    out = list(values)
    for i in range(len(out) - 1, 0, -1):
        dt = (times_ms[i] - times_ms[i - 1]) / 1000
        cur, prev = values[i], values[i - 1]
        if not dt > 0 or cur is None or prev is None or cur - prev < 0:
            out[i] = None
            continue
        out[i] = round((cur - prev) / dt) if discrete else (cur - prev) / dt
    if out:
        out[0] = None
    return out


def strict_json(path):
    """pmproxy's answer must be valid JSON (no raw control bytes, no \\x)."""
    with open(path, "rb") as f:
        return json.loads(f.read().decode("utf-8"), strict=True)


def fields_from(indom_path, fetch_path):
    """grafana-pcp's fields for one fetch: one per instance, in the order of
    the values (data_processor.ts 212-221), named from the indom."""
    indom = strict_json(indom_path)
    fetch = strict_json(fetch_path)
    names = {i["instance"]: i["name"] for i in indom["instances"]}
    fields = []
    for vs in fetch["values"]:
        for iv in vs["instances"]:
            fields.append((names.get(iv["instance"]), [iv["value"]]))
    return fields


def main(argv):
    if len(argv) != 4 or argv[1] not in ("fold", "labels"):
        print(__doc__, file=sys.stderr)
        return 2
    fields = fields_from(argv[2], argv[3])
    if argv[1] == "fold":
        tree = build_stack_tree(fields)
        for path, count in leaf_paths(tree):
            print(json.dumps(list(path) + [count], ensure_ascii=False))
    else:
        print(" ".join(heatmap_label(n) for n, _ in fields))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
