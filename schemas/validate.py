#!/usr/bin/python3
"""schemas/validate.py -- check staprelay's JSON documents against schemas/.

    schemas/validate.py                 every document in the repository
    schemas/validate.py FILE...         these files (kind from the file name)
    schemas/validate.py --schema data#/$defs/histogram_buckets FILE...
    schemas/validate.py -q ...          print only failures and the summary

Without FILE arguments it finds, below the repository root:

* the schemas themselves (checked against the draft 2020-12 meta-schema)
  and every `examples` entry in them, each against the (sub)schema that
  carries it;
* configs: pmda/config.json and every config*.json under examples/;
* every metadata.json under examples/, stap/fixtures/ and qa/;
* every data*.json there: against data.schema.json and, when a valid
  metadata.json sits next to it, metric by metric: each pointer is
  resolved and the value checked against the metric's type, histogram
  buckets against data.schema.json#/$defs/histogram_buckets, event records
  against data.schema.json#/$defs/event_records and their fields against
  event-record.schema.json#/$defs/<type>_value;
* every JSON example in the documentation (README.md, docs/*.md,
  schemas/README.md, stap/README.md, the man pages pmda/*.1 and
  client/*.1): in Markdown every ```json block, and every plain ``` block
  that holds a JSON object or list; in a man page every .nf/.EX block that
  starts with { or [.  Each is checked against the schema named by a
  `<!-- schema: NAME[#/pointer] -->` line just before it, or else the one
  its keys identify (see guess_schema); an example no schema claims fails,
  so an example cannot drift from the formats unnoticed.  Answers of
  `staprelay web`'s API (docs/web.md) are no such format: their blocks
  are fenced ```js and not checked here (qa 700-730 check the answers).

A few rules that JSON Schema cannot state are checked here too, mirroring
relay/: documents are parsed as jansson parses them (integers must fit in
64 bits, no NaN/Infinity, no NUL in strings, a config key may not repeat,
an integer is never written 1.0), metric names must not collide
(relay/metadata.c claim_name), a histogram bucket needs hi >= lo and a
unique name (relay/snapshot.c), records must carry their sequence
numbers in increasing order (relay/events.c), a metric's labels fit in
4096 bytes of compact JSON (pmda/values.c values_labels_fit).

Prints `PASS path` or `FAIL path: error` per file and `schemas: N passed,
N failed`; exits 1 on any failure or when no file was found.  Needs the
jsonschema package with Draft202012Validator (Debian: python3-jsonschema,
4.10 or later).
"""

import argparse
import json
import math
import os
import re
import sys
import time
import warnings

warnings.simplefilter("ignore", DeprecationWarning)   # RefResolver in jsonschema >= 4.18

try:
    import jsonschema
    from jsonschema import Draft202012Validator, RefResolver
except ImportError as e:          # pragma: no cover
    sys.stderr.write("validate.py: needs python3-jsonschema with Draft202012Validator (%s)\n" % e)
    sys.exit(2)

SCHEMA_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(SCHEMA_DIR)
NAMES = ("config", "metadata", "data", "event-record", "run-status")
I64_MIN, I64_MAX = -(2 ** 63), 2 ** 63 - 1
SCAN_DIRS = ("examples", "stap/fixtures", "qa")
DOCS = ("README.md", "schemas/README.md", "stap/README.md")
DOC_DIRS = ("docs",)                  # every *.md in them
MAN_DIRS = ("pmda", "client")         # every *.1 in them
LABELS_MAX_JSON = 4096                # pmda/values.c
TS_SCALE = {"nsec": 1, "ns": 1, "usec": 1000, "us": 1000, "msec": 10 ** 6, "ms": 10 ** 6,
            "sec": 10 ** 9, "s": 10 ** 9}
TS_UNIT = {1: "nsec", 1000: "usec", 10 ** 6: "msec", 10 ** 9: "sec"}


class Invalid(Exception):
    pass


# ---- parsing as jansson does ----------------------------------------------

def _int(text):
    v = int(text)
    if not I64_MIN <= v <= I64_MAX:
        raise ValueError("integer %s does not fit in 64 bits (jansson rejects the document)" % text)
    return v


def _const(name):
    raise ValueError("%s is not JSON (jansson rejects the document)" % name)


def _check_nul(v):
    if isinstance(v, str):
        if "\0" in v:
            raise ValueError("string with a NUL character (jansson rejects the document)")
    elif isinstance(v, list):
        for x in v:
            _check_nul(x)
    elif isinstance(v, dict):
        for k, x in v.items():
            _check_nul(k)
            _check_nul(x)


def parse_json(text, reject_duplicates=False):
    def pairs(items):
        d = {}
        for k, v in items:
            if reject_duplicates and k in d:
                raise ValueError("key %s given twice (the relay parses configs with "
                                 "JSON_REJECT_DUPLICATES)" % json.dumps(k))
            d[k] = v
        return d
    try:
        v = json.loads(text, parse_int=_int, parse_constant=_const, object_pairs_hook=pairs)
        _check_nul(v)
    except ValueError as e:
        raise Invalid("not valid JSON for the relay: %s" % e)
    return v


def load_json(path, reject_duplicates=False):
    try:
        with open(path, "rb") as f:
            raw = f.read()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise Invalid("cannot read: %s" % e)
    return parse_json(text, reject_duplicates)


# ---- schemas ----------------------------------------------------------------

def _is_int(checker, v):
    # jansson: 3 is an integer, 3.0 is a real; booleans are neither.
    return isinstance(v, int) and not isinstance(v, bool)


Validator = jsonschema.validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_int))


class Schemas:
    def __init__(self):
        self.docs, self.store = {}, {}
        for n in NAMES:
            s = load_json(os.path.join(SCHEMA_DIR, n + ".schema.json"))
            self.docs[n] = s
            # Without $schema: jsonschema would otherwise switch to its stock
            # validator class inside these documents and lose our "integer".
            self.store[s["$id"]] = {k: v for k, v in s.items() if k != "$schema"}

    def validator(self, ref):
        """ref: 'metadata' or 'data#/$defs/histogram_buckets'."""
        name, _, frag = ref.partition("#")
        if name not in self.docs:
            raise SystemExit("validate.py: unknown schema %r (one of %s)" % (name, ", ".join(NAMES)))
        root = self.store[self.docs[name]["$id"]]
        resolver = RefResolver(base_uri=root["$id"], referrer=root, store=self.store)
        return Validator({"$ref": root["$id"] + "#" + frag}, resolver=resolver)

    def errors(self, ref, instance):
        errs = sorted(self.validator(ref).iter_errors(instance),
                      key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
        out = []
        for e in errs:
            # the deepest, most specific message of an allOf/anyOf/$ref tree
            while e.context:
                e = sorted(e.context, key=lambda c: -len(c.absolute_path))[0]
            where = "".join("/" + str(p) for p in e.absolute_path) or "(top)"
            msg = e.message if len(e.message) < 200 else e.message[:197] + "..."
            out.append("%s: %s" % (where, msg))
        return out


def check(schemas, ref, instance):
    errs = schemas.errors(ref, instance)
    if errs:
        more = " (+%d more)" % (len(errs) - 3) if len(errs) > 3 else ""
        raise Invalid("; ".join(errs[:3]) + more)


def pointer_escape(tok):
    return tok.replace("~", "~0").replace("/", "~1")


SCHEMA_KEYS_ONE = ("not", "if", "then", "else", "items", "contains", "additionalProperties",
                   "unevaluatedProperties", "unevaluatedItems", "propertyNames", "contentSchema")
SCHEMA_KEYS_MAP = ("properties", "patternProperties", "$defs", "dependentSchemas")
SCHEMA_KEYS_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")


def subschemas(s, path=""):
    """(json pointer, subschema) for s and every schema nested in it."""
    if not isinstance(s, dict):
        return
    yield path, s
    for k in SCHEMA_KEYS_ONE:
        if k in s:
            yield from subschemas(s[k], path + "/" + pointer_escape(k))
    for k in SCHEMA_KEYS_MAP:
        for name, sub in s.get(k, {}).items():
            yield from subschemas(sub, path + "/" + pointer_escape(k) + "/" + pointer_escape(name))
    for k in SCHEMA_KEYS_LIST:
        for i, sub in enumerate(s.get(k, [])):
            yield from subschemas(sub, "%s/%s/%d" % (path, k, i))


def check_schema_file(schemas, name):
    """The schema against the meta-schema, then every example it carries."""
    doc = schemas.docs[name]
    try:
        Draft202012Validator.check_schema(doc)
    except jsonschema.exceptions.SchemaError as e:
        raise Invalid("not a valid draft 2020-12 schema: %s" % e.message)
    if doc.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
        raise Invalid("$schema is not draft 2020-12")
    def has(sub, key, depth=0):
        """key in sub, or in what its local $ref / allOf leads to"""
        if not isinstance(sub, dict) or depth > 10:
            return False
        if key in sub:
            return True
        ref = sub.get("$ref", "")
        if ref.startswith("#/$defs/") and has(doc["$defs"].get(ref[8:]), key, depth + 1):
            return True
        return any(has(x, key, depth + 1) for x in sub.get("allOf", []))

    n = 0
    for path, sub in subschemas(doc):
        for i, ex in enumerate(sub.get("examples", [])):
            n += 1
            errs = schemas.errors(name + "#" + path, ex)
            if errs:
                raise Invalid("examples[%d] of #%s: %s" % (i, path or "/", errs[0]))
        if re.search(r"/(if|then|else|not|anyOf|allOf|oneOf)(/|$)", path):
            continue                      # a constraint, not documentation
        for prop, psub in sub.get("properties", {}).items():
            for key in ("description", "examples"):
                if not has(psub, key):
                    raise Invalid("%s#%s/properties/%s has no %s" % (name, path, prop, key))
    for d, dsub in doc.get("$defs", {}).items():
        if not has(dsub, "description"):
            raise Invalid("%s#/$defs/%s has no description" % (name, d))
    if not doc.get("examples"):
        raise Invalid("%s has no top-level examples" % name)
    return n


# ---- metadata and data ------------------------------------------------------

def resolve(doc, ptr):
    """RFC 6901, as relay/pointer.c evaluates it; KeyError if absent."""
    if ptr == "":
        return doc
    cur = doc
    for raw in ptr[1:].split("/"):
        tok = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(cur, dict) and tok in cur:
            cur = cur[tok]
        elif isinstance(cur, list) and re.fullmatch(r"0|[1-9][0-9]*", tok) and int(tok) < len(cur):
            cur = cur[int(tok)]
        else:
            raise KeyError(ptr)
    return cur


def check_names(meta):
    """Names the PMNS could not hold (relay/metadata.c claim_name)."""
    leaves, nodes, problems = set(), set(), []

    def claim(name):
        parts = name.split(".")
        prefixes = [".".join(parts[:i]) for i in range(1, len(parts))]
        if name in leaves:
            problems.append("metric name %s used twice" % name)
        elif name in nodes:
            problems.append("%s is already a namespace node" % name)
        elif any(p in leaves for p in prefixes):
            problems.append("%s: %s is already a metric" % (name, [p for p in prefixes if p in leaves][0]))
        else:
            nodes.update(prefixes)
            leaves.add(name)
            return True
        return False

    for m in meta["metrics"]:
        t = m["type"]
        if t == "array":
            if claim(m["name"]):
                leaves.discard(m["name"])
                nodes.add(m["name"])
            for sub in m["metrics"]:
                claim(m["name"] + "." + sub["name"])
        elif t == "event":
            claim(m["name"] + ".records")
            seen = set()
            for f in m["fields"]:
                if f["name"] in seen:
                    problems.append("event %s: field %s given twice" % (m["name"], f["name"]))
                seen.add(f["name"])
                claim(m["name"] + "." + f["name"])
            if any(f["type"] == "stack" for f in m["fields"]):
                claim(m["name"] + ".stacks")
        else:
            claim(m["name"])
    if problems:
        raise Invalid("; ".join(problems))


def check_labels(meta):
    """pmda/values.c values_labels_fit: the metric's labels as compact JSON
    (relay/metadata.c labels_text) in at most LABELS_MAX_JSON bytes, else
    the PMDA publishes none of them.  Count and name length are in the
    schema."""
    def leaves(ms):
        for m in ms:
            if m["type"] == "array":
                yield from ((m["name"] + "." + s["name"], s) for s in m["metrics"])
            elif m["type"] != "event":
                yield m["name"], m
    for name, m in leaves(meta["metrics"]):
        if "labels" in m:
            text = json.dumps(m["labels"], separators=(",", ":"), sort_keys=True, ensure_ascii=False)
            n = len(text.encode("utf-8"))
            if n > LABELS_MAX_JSON:
                raise Invalid("metric %s: labels are %d bytes of JSON, more than %d (the PMDA "
                              "publishes none of them)" % (name, n, LABELS_MAX_JSON))


def check_metadata(schemas, path):
    meta = load_json(path)
    check(schemas, "metadata", meta)
    check_names(meta)
    check_labels(meta)
    return meta


def value_ok(v, t):
    """relay/snapshot.c convert(): booleans are integers, integers are doubles."""
    if t == "integer":
        return isinstance(v, int)
    if t == "double":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, str)


def check_value(where, container, m, problems):
    try:
        v = resolve(container, m["pointer"])
    except KeyError:
        v = None
    if v is None:
        problems.append("%s: no value at pointer %s" % (where, m["pointer"]))
    elif not value_ok(v, m["type"]):
        problems.append("%s: value at %s is not of type %s" % (where, m["pointer"], m["type"]))


def check_buckets(schemas, name, buckets, problems):
    errs = schemas.errors("data#/$defs/histogram_buckets", buckets)
    if errs:
        problems.append("histogram %s: %s" % (name, errs[0]))
        return
    check_bucket_bounds(name, buckets, problems)


def check_bucket_bounds(name, buckets, problems):
    """What no schema says of a valid bucket list: hi >= lo, bounds once."""
    seen = set()
    for i, b in enumerate(buckets):
        lo, hi = b.get("lo"), b.get("hi")
        if lo is not None and hi is not None and hi < lo:
            problems.append("histogram %s: bucket %d has hi %d < lo %d" % (name, i, hi, lo))
        key = (lo, hi)
        if key in seen:
            problems.append("histogram %s: bucket %d repeats bounds %s-%s" % (name, i, lo, hi))
        seen.add(key)


def check_records(schemas, m, doc, problems, now_ns):
    name = m["name"]
    try:
        recs = resolve(doc, m["pointer"])
    except KeyError:
        recs = None                       # no records this time
    if "dropped" in m:
        try:
            d = resolve(doc, m["dropped"])
            errs = schemas.errors("data#/$defs/producer_dropped", d)
            if errs:
                problems.append("event %s: dropped %s" % (name, errs[0]))
        except KeyError:
            pass
    if recs is None:
        return
    errs = schemas.errors("data#/$defs/event_records", recs)
    if errs:
        problems.append("event %s: %s" % (name, errs[0]))
        return
    scale = TS_SCALE[m.get("timestamp_units", "nsec")]
    last_seq = None
    for i, rec in enumerate(recs):
        where = "event %s record %d" % (name, i)
        if "sequence" in m:
            try:
                seq = resolve(rec, m["sequence"])
            except KeyError:
                seq = None
            if isinstance(seq, int) and not isinstance(seq, bool):
                if last_seq is not None and seq <= last_seq:
                    problems.append("%s: sequence %d after %d (dropped as a duplicate)" % (where, seq, last_seq))
                last_seq = seq
        if "timestamp" in m:
            try:
                ts = resolve(rec, m["timestamp"])
            except KeyError:
                ts = None
            errs = schemas.errors("event-record#/$defs/timestamp_" + TS_UNIT[scale], ts)
            if errs:
                problems.append("%s: timestamp %s" % (where, errs[0]))
            elif ts * scale > now_ns + 86400 * 10 ** 9:
                problems.append("%s: timestamp %d is more than a day in the future" % (where, ts))
        for f in m["fields"]:
            try:
                v = resolve(rec, f["pointer"])
            except KeyError:
                v = None
            if v is None:
                if not f.get("optional") is True:
                    problems.append("%s: missing field %s" % (where, f["name"]))
                continue
            errs = schemas.errors("event-record#/$defs/%s_value" % f["type"], v)
            if errs:
                problems.append("%s: field %s %s" % (where, f["name"], errs[0].partition(": ")[2]))


def present(doc, pointer):
    try:
        return resolve(doc, pointer) is not None
    except KeyError:
        return False


def omitted_count(meta, doc):
    """How many metrics, arrays and histograms data.json may leave out:
    the value of the metadata's integer metric "omitted" (the SystemTap
    tapset's count of the items a read left out for its size or work
    cap, stap/README.md), else none.  It also counts array rows, so
    fewer absences than it says are fine; more are not."""
    for m in meta["metrics"]:
        if m["name"] == "omitted" and m["type"] == "integer":
            try:
                v = resolve(doc, m["pointer"])
            except KeyError:
                return 0
            return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0
    return 0


def check_data(schemas, path, meta_path=None):
    doc = load_json(path)
    check(schemas, "data", doc)
    if meta_path is None:
        cand = os.path.join(os.path.dirname(path), "metadata.json")
        if not os.path.exists(cand):
            return
        meta_path = cand
    try:
        meta = check_metadata(schemas, meta_path)
    except Invalid as e:
        raise Invalid("its %s is invalid (%s)" % (os.path.basename(meta_path), e))
    problems, absent, now_ns = [], [], time.time_ns()
    for m in meta["metrics"]:
        t, name = m["type"], m["name"]
        if t in ("integer", "double", "string"):
            if not present(doc, m["pointer"]):
                absent.append("metric %s: no value at pointer %s" % (name, m["pointer"]))
                continue
            check_value("metric " + name, doc, m, problems)
        elif t == "array":
            try:
                elems = resolve(doc, m["pointer"])
            except KeyError:
                absent.append("array %s: no value at pointer %s" % (name, m["pointer"]))
                continue
            if not isinstance(elems, list):
                problems.append("array %s: value at %s is not a list" % (name, m["pointer"]))
                continue
            seen = set()
            for i, e in enumerate(elems):
                try:
                    idx = resolve(e, m["index"])
                except KeyError:
                    idx = None
                if isinstance(idx, bool) or not (isinstance(idx, int) or (isinstance(idx, str) and idx)):
                    problems.append("array %s element %d: index %s is not a non-empty string "
                                    "or an integer" % (name, i, m["index"]))
                    continue
                if str(idx) in seen:
                    problems.append("array %s element %d: instance name %s repeats" % (name, i, idx))
                    continue
                seen.add(str(idx))
                for sub in m["metrics"]:
                    check_value("array %s[%s] metric %s" % (name, idx, sub["name"]), e, sub, problems)
        elif t == "histogram":
            try:
                buckets = resolve(doc, m["pointer"])
            except KeyError:
                absent.append("histogram %s: no value at pointer %s" % (name, m["pointer"]))
                continue
            check_buckets(schemas, name, buckets, problems)
        elif t == "event":
            check_records(schemas, m, doc, problems, now_ns)
    if len(absent) > omitted_count(meta, doc):
        problems = absent + problems
    if problems:
        more = " (+%d more)" % (len(problems) - 3) if len(problems) > 3 else ""
        raise Invalid("against %s: %s%s" % (os.path.basename(meta_path), "; ".join(problems[:3]), more))


def check_config(schemas, path):
    check(schemas, "config", load_json(path, reject_duplicates=True))


# A fenced Markdown block, with the <!-- schema: REF --> line before it if any.
MD_BLOCK = re.compile(r"^(?:<!-- schema: (\S+) -->[ \t]*\n)?```([\w-]*)[ \t]*\n(.*?)^```", re.M | re.S)
MAN_BLOCK = re.compile(r"^\.(?:nf|EX)[ \t]*\n(.*?)^\.(?:fi|EE)\b", re.M | re.S)
# An object or list opening: `{"`, `[{`, `[1`... but not `[access]` (pmcd.conf)
# nor `{ staprelay.x }` (a pmlogger config).
LOOKS_JSON = re.compile(r'\s*[\[{]\s*([\]}"{\[-]|[0-9]|true\b|false\b|null\b)')
MAN_ESC = ((r"\(dq", '"'), (r"\(aq", "'"), (r"\-", "-"), (r"\e", "\\"), (r"\&", ""))


def guess_schema(schemas, inst):
    """The schema an unmarked example is written for, from its keys; None
    when none claims it.  Keys that only one kind of document has decide:
    a metric list is metadata, a run's state is a run status, bucket
    bounds are a histogram; config keys and event-record keys must all be
    known to the schema for it to claim the example."""
    def props(name):
        return set(schemas.docs[name].get("properties", {}))
    if isinstance(inst, list):
        if inst and all(isinstance(b, dict) and "count" in b and ("lo" in b or "hi" in b) for b in inst):
            return "data#/$defs/histogram_buckets"
        return None
    if not isinstance(inst, dict) or not inst:
        return None
    keys = set(inst)
    if "metrics" in keys:
        return "metadata"
    if {"name", "pointer", "type"} <= keys:
        return "metadata#/$defs/metric"
    if {"script", "state"} <= keys:
        return "run-status"
    if keys <= props("config"):
        return "config"
    if keys <= props("event-record") | {"seq", "ts"}:
        return "event-record"
    return None


def doc_examples(path, text):
    """(line, ref or None, json text) of every example in a doc."""
    if path.endswith(".md"):
        for mt in MD_BLOCK.finditer(text):
            ref, lang, body = mt.group(1), mt.group(2), mt.group(3)
            line = text.count("\n", 0, mt.start()) + (2 if ref else 1)
            if lang == "json" or ref:
                yield line, ref, body
            elif lang == "" and LOOKS_JSON.match(body):
                yield line, None, body
    else:
        for mt in MAN_BLOCK.finditer(text):
            body = mt.group(1)
            if not LOOKS_JSON.match(body):
                continue
            for a, b in MAN_ESC:
                body = body.replace(a, b)
            yield text.count("\n", 0, mt.start()) + 1, None, body


def check_doc_examples(schemas, path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    n = 0
    for line, ref, body in doc_examples(path, text):
        n += 1
        try:
            inst = parse_json(body, reject_duplicates=ref is not None and ref.startswith("config"))
            if ref is None:
                ref = guess_schema(schemas, inst)
                if ref is None:
                    raise Invalid("no schema claims this example: put a <!-- schema: NAME[#POINTER] --> "
                                  "line before it, or fix its keys")
                if ref == "config":      # duplicate keys: parse again as the relay does
                    parse_json(body, reject_duplicates=True)
            check(schemas, ref, inst)
            if ref == "metadata":
                check_names(inst)
                check_labels(inst)
            elif ref == "metadata#/$defs/metric":
                check_labels({"metrics": [inst]})
        except Invalid as e:
            raise Invalid("line %d (%s): %s" % (line, ref or "?", e))
    return n


# ---- discovery and main -----------------------------------------------------

def discover():
    """(kind, path) pairs, in a stable order."""
    found = [("schema", os.path.join(SCHEMA_DIR, n + ".schema.json")) for n in NAMES]
    cfg = os.path.join(ROOT, "pmda", "config.json")
    if os.path.exists(cfg):
        found.append(("config", cfg))
    for top in SCAN_DIRS:
        base = os.path.join(ROOT, top)
        for d, dirs, files in os.walk(base):
            dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "__pycache__")
            for fn in sorted(files):
                p = os.path.join(d, fn)
                if fn == "metadata.json":
                    found.append(("metadata", p))
                elif re.fullmatch(r"data(\..+)?\.json", fn):
                    found.append(("data", p))
                elif top == "examples" and re.fullmatch(r"config.*\.json", fn):
                    found.append(("config", p))
    docs = [os.path.join(ROOT, d) for d in DOCS]
    for top, ext in [(d, ".md") for d in DOC_DIRS] + [(d, ".1") for d in MAN_DIRS]:
        base = os.path.join(ROOT, top)
        if os.path.isdir(base):
            docs += [os.path.join(base, fn) for fn in sorted(os.listdir(base)) if fn.endswith(ext)]
    for p in docs:
        if os.path.exists(p):
            found.append(("doc", p))
    return found


def kind_of(path):
    fn = os.path.basename(path)
    if fn.endswith(".schema.json"):
        return "schema"
    if fn == "metadata.json":
        return "metadata"
    if re.fullmatch(r"data(\..+)?\.json", fn):
        return "data"
    if fn.startswith("config") and fn.endswith(".json"):
        return "config"
    if fn.endswith(".md") or re.fullmatch(r".+\.[1-9]", fn):
        return "doc"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    ap.add_argument("--schema", metavar="NAME[#POINTER]",
                    help="check every FILE against this schema (config, metadata, data, event-record), "
                         "e.g. data#/$defs/histogram_buckets")
    ap.add_argument("--metadata", metavar="FILE", help="with data files: map them through this metadata")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()

    try:
        schemas = Schemas()
    except Invalid as e:
        print("FAIL schemas: %s" % e)
        print("schemas: 0 passed, 1 failed")
        return 1
    if args.files:
        # --schema metadata / config: the whole check (names, duplicate keys)
        kind = {None: None, "metadata": "metadata", "config": "config"}.get(args.schema, "ref")
        todo = [(kind or kind_of(p), p) for p in args.files]
    else:
        todo = discover()

    passed = failed = 0
    for kind, path in todo:
        shown = os.path.relpath(path, ROOT) if os.path.abspath(path).startswith(ROOT + os.sep) else path
        try:
            if kind == "ref":
                check(schemas, args.schema, load_json(path, args.schema.startswith("config")))
            elif kind == "schema":
                name = os.path.basename(path)[:-len(".schema.json")]
                if os.path.dirname(os.path.abspath(path)) != SCHEMA_DIR or name not in NAMES:
                    raise Invalid("not one of schemas/{%s}.schema.json" % ",".join(NAMES))
                check_schema_file(schemas, name)
            elif kind == "config":
                check_config(schemas, path)
            elif kind == "metadata":
                check_metadata(schemas, path)
            elif kind == "data":
                check_data(schemas, path, args.metadata)
            elif kind == "doc":
                if check_doc_examples(schemas, path) == 0:
                    continue              # no marked examples: nothing to count
            else:
                raise Invalid("unknown kind of file (use --schema)")
        except Invalid as e:
            failed += 1
            print("FAIL %s: %s" % (shown, e))
            continue
        passed += 1
        if not args.quiet:
            print("PASS %s" % shown)
    if passed + failed == 0:
        print("schemas: no files found")
        return 1
    print("schemas: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
