#!/usr/bin/python3
"""qa/vm/check.py - check, on the host, the reads a VM test captured.

    check.py READS_DIR [--events NAME] [--kernel-frames] [--offwake] [--hist-rows ARRAY]

READS_DIR holds NNNN/metadata.json and NNNN/data.json, every read the
guest's qa/vm/reader.py made of a real module's procfs files.  Prints one
line per property (golden output for qa/vm/run), "FAIL: ..." otherwise:

* every read is valid JSON and validates against schemas/ (schemas/
  validate.py, each data file mapped through the metadata read with it);
* --events NAME: every record of event NAME carries pid, tid, cpu, comm
  and a stack; the sequence numbers never repeat or go back; stacks hold
  no frame of the module itself (" [staprelay_...]"), do not repeat their
  first frame, and every kernel frame (0xffff... address) is symbolised
  (" : sym+0xOFF/0xSIZE [kernel]" or "[module]"); with --kernel-frames some record must
  have kernel frames;
* --offwake (with --events): a stack may be an off-wake one, the waker's
  part inverted, a "--" line, then the blocked part (docs/formats.md): the
  first-frame rule holds for the blocked part; some record has a waker
  part; in every waker part the user frames come before the kernel
  frames and its last frame (the waker's leaf) is a kernel frame;
* --hist-rows ARRAY: in every read, each histogram latency_X of a row X
  of ARRAY has every bucket from its first to its last (no gaps) and
  counts that add up to the row's calls (requests for iolat), and
  "omitted" counts exactly the rows' histograms that are not there;
* --same-as FIXTURE_DIR: the first read is byte for byte the model's
  metadata.json and data.json there (stap/tests/fixtures.py writes it),
  timestamps and kernel addresses aside.
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

KFRAME = re.compile(r'^ 0x(f{4}[0-9a-f]{12})(?: : (.*))?$')
KSYM = re.compile(r'^[A-Za-z0-9_.$]+\+0x[0-9a-f]+/0x[0-9a-f]+ \[[A-Za-z0-9_-]+\]$')


def fail(msg):
    print('FAIL: ' + msg)


def unpack(d):
    """qa/vm/reader.py's reads.bin into d/NNNN/{metadata,data}.json"""
    path = os.path.join(d, 'reads.bin')
    if not os.path.exists(path):
        return
    with open(path, 'rb') as fp:
        raw = fp.read()
    p, prev = 0, None
    while p < len(raw):
        nl = raw.index(b'\n', p)
        n, f, size = raw[p:nl].split(b' ')
        p = nl + 1
        if size == b'=':
            b = prev
        else:
            b = raw[p:p + int(size)]
            p += int(size)
        if f == b'metadata.json':
            prev = b
        out = os.path.join(d, '%04d' % int(n))
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, f.decode()), 'wb') as o:
            o.write(b)
    os.unlink(path)


def reads(d):
    unpack(d)
    for n in sorted(os.listdir(d)):
        p = os.path.join(d, n)
        if os.path.isdir(p):
            yield p


def check_json(dirs):
    bad = 0
    docs = []
    for p in dirs:
        pair = []
        for f in ('metadata.json', 'data.json'):
            try:
                with open(os.path.join(p, f), 'rb') as fp:
                    pair.append(json.loads(fp.read()))
            except (OSError, ValueError) as e:
                if bad < 5:
                    fail('%s/%s: %s' % (os.path.basename(p), f, e))
                bad += 1
                pair = None
                break
        if pair:
            docs.append((p, pair[0], pair[1]))
    if not bad:
        print('reads: every metadata.json and data.json is valid JSON')
    return docs


def fast_validator():
    """schemas/validate.py, as a module, made fast enough for thousands of
    reads without changing what it accepts:
    * a metadata.json with the same bytes as one already checked has the
      same result (reads of a module mostly repeat their metadata);
    * a histogram bucket is checked against the schema with its count set
      to 0, and its count alone against the bucket schema's "count"
      property (cached by value): the bucket schema's 128 if/then bands
      (hi >= lo) only look at lo and hi -- asserted below, else every
      bucket is checked whole."""
    sys.path.insert(0, os.path.join(ROOT, 'schemas'))
    import validate as V
    schemas = V.Schemas()
    bucket = schemas.docs['data']['$defs']['histogram_bucket']
    rest = dict(bucket)
    props = dict(rest.pop('properties'))
    props.pop('count', None)
    rest.pop('required', None)
    rest['properties'] = props
    separable = '"count"' not in json.dumps({k: v for k, v in rest.items()
                                             if k not in ('description', '$comment', 'examples')})
    meta_memo, bucket_memo, count_memo = {}, {}, {}
    check_metadata = V.check_metadata

    def memo_metadata(sch, path):
        with open(path, 'rb') as fp:
            key = fp.read()
        if key not in meta_memo:
            try:
                meta_memo[key] = (check_metadata(sch, path), None)
            except V.Invalid as e:
                meta_memo[key] = (None, e)
        meta, err = meta_memo[key]
        if err:
            raise err
        return meta

    def bucket_errors(b):
        if not separable or not isinstance(b, dict):
            return schemas.errors('data#/$defs/histogram_bucket', b)
        norm = dict(b)
        if 'count' in norm:
            c = norm['count']
            norm['count'] = 0
            ck = (type(c).__name__, json.dumps(c))
            if ck not in count_memo:
                count_memo[ck] = schemas.errors('data#/$defs/histogram_bucket/properties/count', c)
        else:
            ck = None
        key = json.dumps(norm, sort_keys=True)
        if key not in bucket_memo:
            bucket_memo[key] = schemas.errors('data#/$defs/histogram_bucket', norm)
        return bucket_memo[key] + (count_memo[ck] if ck else [])

    def check_buckets(sch, name, buckets, problems):
        if not isinstance(buckets, list):
            problems.append('histogram %s: not a list' % name)
            return
        for i, b in enumerate(buckets):
            errs = bucket_errors(b)
            if errs:
                problems.append('histogram %s: /%d%s' % (name, i, errs[0]))
                return
        V.check_bucket_bounds(name, buckets, problems)

    V.check_metadata = memo_metadata
    V.check_buckets = check_buckets
    return V, schemas


def check_schemas(dirs):
    V, schemas = fast_validator()
    bad = 0
    for p in dirs:
        for f, check in (('metadata.json', V.check_metadata), ('data.json', V.check_data)):
            try:
                check(schemas, os.path.join(p, f))
            except V.Invalid as e:
                bad += 1
                if bad <= 5:
                    fail('schemas: %s/%s: %s' % (os.path.basename(p), f, e))
    if not bad:
        print('reads: every one validates against schemas/')


def check_events(docs, name, want_kernel, offwake=False):
    fields = ('pid', 'tid', 'cpu', 'comm', 'stack')
    nrec = missing = module = repeated = unsym = with_k = 0
    woken = inverted_bad = 0
    last_seq = 0
    order = True
    for p, meta, data in docs:
        for r in data.get(name, []):
            nrec += 1
            if any(f not in r for f in fields):
                missing += 1
            if r['seq'] <= last_seq:
                order = False
            last_seq = r['seq']
            frames = [l for l in r.get('stack', '').split('\n') if l.strip()]
            if any('[staprelay_' in l or '[stap_' in l for l in frames):
                module += 1
            blocked = frames
            if offwake and '--' in [l.strip() for l in frames]:
                cut = [l.strip() for l in frames].index('--')
                waker, blocked = frames[:cut], frames[cut + 1:]
                woken += 1
                kinds = ['k' if KFRAME.match(l) else 'u' for l in waker]
                if not re.match(r'u*k+$', ''.join(kinds)):
                    inverted_bad += 1
                    if inverted_bad <= 3:
                        fail('a waker part not inverted (user frames, then kernel frames '
                             'to its leaf): %r' % waker[-3:])
            if len(blocked) >= 2 and blocked[0] == blocked[1]:
                repeated += 1
            kf = [KFRAME.match(l) for l in frames]
            kf = [m for m in kf if m]
            if kf:
                with_k += 1
            for m in kf:
                if not m.group(2) or not KSYM.match(m.group(2)):
                    unsym += 1
                    if unsym <= 3:
                        fail('unsymbolised kernel frame: %r' % m.group(0))
    if nrec == 0:
        fail('no %s records in any read' % name)
        return
    if not missing:
        print('records: every %s record carries pid, tid, cpu, comm and a stack' % name)
    else:
        fail('%d of %d records lack a field' % (missing, nrec))
    if order:
        print('records: sequence numbers only grow')
    else:
        fail('sequence numbers repeat or go back')
    if not module:
        print('stacks: no frame of the module itself')
    else:
        fail('%d stacks hold frames of the module itself' % module)
    if not repeated:
        print('stacks: no repeated first frame')
    else:
        fail('%d stacks repeat their first frame' % repeated)
    if not unsym:
        print('stacks: every kernel frame is symbolised')
    if offwake:
        if not woken:
            fail('no %s record has a waker part' % name)
        elif not inverted_bad:
            print('stacks: waker parts are inverted, user frames then kernel frames, then --')
    if want_kernel:
        if with_k:
            print('stacks: records have kernel frames')
        else:
            fail('no record has a kernel frame')


def sanitize(s):
    s = re.sub(r'[^A-Za-z0-9_]', '_', s)
    return '_' + s if s[:1].isdigit() else s


def check_hist_rows(docs, array):
    gaps = sums = omitted_bad = 0
    full_reads = 0
    for p, meta, data in docs:
        rows = data.get(array)
        if rows is None:
            continue
        count_key = 'calls' if rows and 'calls' in rows[0] else 'requests'
        missing = 0
        for row in rows:
            h = data.get('latency_' + sanitize(row['__id']))
            if h is None:
                missing += 1
                continue
            for a, b in zip(h, h[1:]):
                if a['hi'] is None or b['lo'] != a['hi'] + 1:
                    gaps += 1
            if sum(b['count'] for b in h) != row[count_key]:
                sums += 1
                if sums <= 3:
                    fail('%s: latency_%s counts %d, the row says %d' %
                         (os.path.basename(p), row['__id'], sum(b['count'] for b in h), row[count_key]))
        if data.get('omitted') != missing:
            omitted_bad += 1
            if omitted_bad <= 3:
                fail('%s: omitted is %s, %d histograms are missing' %
                     (os.path.basename(p), data.get('omitted'), missing))
        if missing:
            full_reads += 1
    if not gaps:
        print('histograms: every bucket from the first to the last')
    else:
        fail('%d bucket gaps' % gaps)
    if not sums:
        print('histograms: counts add up to the rows\' %s' % array)
    if not omitted_bad:
        print('omitted: counts exactly the histograms left out')
    return full_reads


def normalised(b):
    """timestamps and kernel addresses are the run's own"""
    b = re.sub(rb'"ts": [0-9]+', b'"ts": TS', b)
    return re.sub(rb'0xffff[0-9a-f]{12}', b'0xADDR', b)


def check_same_as(dirs, fixture):
    """the first read is the model's document (stap/tests/fixtures.py)"""
    first = dirs[0]
    name = os.path.relpath(fixture, ROOT)
    same = True
    for f in ('metadata.json', 'data.json'):
        with open(os.path.join(first, f), 'rb') as a, open(os.path.join(fixture, f), 'rb') as b:
            got, want = normalised(a.read()), normalised(b.read())
        if got != want:
            same = False
            import difflib
            for line in list(difflib.unified_diff(want.decode(errors='replace').splitlines(),
                                                  got.decode(errors='replace').splitlines(),
                                                  name + '/' + f, 'real/' + f, lineterm=''))[:12]:
                fail(line)
    if same:
        print('model: the first read is %s, timestamps aside' % name)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument('dir')
    ap.add_argument('--events')
    ap.add_argument('--kernel-frames', action='store_true')
    ap.add_argument('--offwake', action='store_true')
    ap.add_argument('--hist-rows')
    ap.add_argument('--same-as')
    a = ap.parse_args(argv)
    dirs = list(reads(a.dir))
    if not dirs:
        fail('no reads in %s' % a.dir)
        return 0
    docs = check_json(dirs)
    check_schemas(dirs)
    if a.events:
        check_events(docs, a.events, a.kernel_frames, a.offwake)
    if a.hist_rows:
        check_hist_rows(docs, a.hist_rows)
    if a.same_as:
        check_same_as(dirs, a.same_as)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
