#!/usr/bin/env python3
"""Check the tapset's histogram bucket code and fixtures.py's model of it
against SystemTap's own runtime, by running all three.

    python3 stap/tests/hist_test.py [--cache DIR] [--runtime DIR]
                                    [--bpf-tree DIR] [--shim SO] [-v]

1. cc: hist_test.c built with the embedded C of __srl_log_bucket and
   __srl_log_bounds cut out of stap/tapset/staprelay.stp and with
   SystemTap's runtime stat-common.c (from --runtime, default the
   installed /usr/share/systemtap/runtime) compiled in user space.  For
   @hist_log: tapset bucket == runtime bucket (__stp_stat_add and
   _stp_val_to_bucket) == fixtures.log_bucket for edge and random values;
   the tapset's bounds text == fixtures.log_bounds for all 128 buckets, and
   those bounds are exact in the runtime (lo and hi in the bucket, lo-1 and
   hi+1 in its neighbours, _stp_bucket_to_val's row label one of them).
   For @hist_linear: fixtures.lin_bucket == the runtime's bucket and
   fixtures.lin_bounds exact in the runtime, for several (start, stop,
   step) shapes.
2. stapbpf: __srl_lin_bucket and __srl_lin_bounds (script functions) cut
   out of the tapset and run in a begin probe under `stap --runtime=bpf`;
   their output must equal fixtures.py's.  Needs root, stapbpf, a build
   tree with a System.map (--bpf-tree, as stap/check.sh makes) and, where
   RLIMIT_MEMLOCK cannot be raised, the memlock shim (--shim).  stapbpf's
   interpreter is 32-bit in sprintf("%d"), so these cases stay within
   32 bits (the cc part covers 64-bit values for the same formulas in
   fixtures.py).  When BPF cannot run here this part says SKIP and why.

Prints `PASS part`, `SKIP part: why` or `FAIL part: why` per part; exit
status 1 when a part failed.  stap/tests/fixtures.py --check runs it.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402

TAPSET = os.path.join(HERE, '..', 'tapset', 'staprelay.stp')
ROOT = os.path.abspath(os.path.join(HERE, '..', '..'))
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
LINEAR = [(0, 100, 25), (1, 3, 1), (0, 100, 30), (-50, 50, 10), (-7, -1, 2),
          (0, 1000000, 10000), (-1000, 1000, 17), (5, 5, 1)]


class Fail(Exception):
    pass


def tapset_text():
    with open(TAPSET, encoding='utf-8') as f:
        return f.read()


def c_body(text, fn):
    """The embedded C of `function fn... %{ ... %}`."""
    m = re.search(r'^function %s:[^\n]*%%\{[^\n]*\n(.*?)^%%\}' % re.escape(fn), text, re.M | re.S)
    if not m:
        raise Fail('no embedded-C function %s in the tapset' % fn)
    return m.group(1)


def script_fn(text, fn):
    """The text of script function fn, up to its closing brace at column 0."""
    m = re.search(r'^function %s:[^\n]*\{\n.*?^\}\n' % re.escape(fn), text, re.M | re.S)
    if not m:
        raise Fail('no script function %s in the tapset' % fn)
    return m.group(0)


def bounds(s):
    """'"lo": L, "hi": H' -> (L or None, H or None)"""
    m = re.fullmatch(r'"lo": (-?\d+|null), "hi": (-?\d+|null)', s)
    if not m:
        raise Fail('bounds text %r' % s)
    return tuple(None if x == 'null' else int(x) for x in m.groups())


# ---- 1. cc -------------------------------------------------------------------

def build(cache, runtime):
    if not os.path.isfile(os.path.join(runtime, 'stat-common.c')):
        raise Fail('no stat-common.c in %s (systemtap runtime)' % runtime)
    text = tapset_text()
    for fn, hdr in (('__srl_log_bucket', 'log_bucket_body.h'), ('__srl_log_bounds', 'log_bounds_body.h')):
        with open(os.path.join(cache, hdr), 'w') as f:
            f.write(c_body(text, fn))
    exe = os.path.join(cache, 'hist_test')
    cmd = ['cc', '-std=gnu11', '-O1', '-DMAXSTRINGLEN=512', '-I' + cache, '-I' + runtime,
           '-o', exe, os.path.join(HERE, 'hist_test.c')]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise Fail('cc: ' + (r.stderr.strip().splitlines() or ['?'])[0])
    return exe


def run_exe(exe, lines):
    r = subprocess.run([exe], input=''.join(l + '\n' for l in lines), capture_output=True, text=True)
    out = r.stdout.splitlines()
    if r.returncode != 0 or len(out) != len(lines):
        raise Fail('hist_test: exit %d, %d lines for %d commands' % (r.returncode, len(out), len(lines)))
    return out


def log_values():
    vals = {0, 1, -1, I64_MIN, I64_MAX, I64_MIN + 1, I64_MAX - 1}
    for k in range(64):
        for x in (1 << k, (1 << k) - 1, (1 << k) + 1):
            for s in (1, -1):
                if I64_MIN <= s * x <= I64_MAX:
                    vals.add(s * x)
    rnd = random.Random(7)
    for _ in range(2000):
        vals.add(rnd.randint(I64_MIN, I64_MAX) >> rnd.randrange(64))
    return sorted(vals)


def check_log(exe):
    vals = log_values()
    # the model's bounds of every bucket, and the values around them
    model = {b: bounds(fixtures.log_bounds(b).decode()) for b in range(128)}
    probes = set(vals)
    for lo, hi in model.values():
        probes.update(x for x in (lo, hi, lo - 1, hi + 1) if I64_MIN <= x <= I64_MAX)
    probes = sorted(probes)
    got = dict(zip(probes, (tuple(map(int, l.split())) for l in
                            run_exe(exe, ['v %d' % v for v in probes]))))
    for v in probes:
        tap, add, rt = got[v]
        want = fixtures.log_bucket(v)
        if not tap == add == rt == want:
            raise Fail('@hist_log bucket of %d: tapset %d, runtime %d/%d, fixtures.py %d' % (v, tap, add, rt, want))
    out = run_exe(exe, ['b %d' % b for b in range(128)])
    for b, line in enumerate(out):
        text, label = line.rsplit('|', 1)
        if text != fixtures.log_bounds(b).decode():
            raise Fail('bucket %d: tapset writes %s, fixtures.py %s' % (b, text, fixtures.log_bounds(b).decode()))
        lo, hi = model[b]
        if got[lo][1] != b or got[hi][1] != b:
            raise Fail('bucket %d %s: the runtime puts lo in %d, hi in %d' % (b, text, got[lo][1], got[hi][1]))
        if lo > I64_MIN and got[lo - 1][1] != b - 1:
            raise Fail('bucket %d %s: lo-1 is in bucket %d, not %d' % (b, text, got[lo - 1][1], b - 1))
        if hi < I64_MAX and got[hi + 1][1] != b + 1:
            raise Fail('bucket %d %s: hi+1 is in bucket %d, not %d' % (b, text, got[hi + 1][1], b + 1))
        if int(label) not in (lo, hi):
            raise Fail('bucket %d %s: the runtime labels it %s' % (b, text, label))
    return len(probes)


def lin_probes(start, stop, step):
    last = (stop - start) // step + 2
    vals = {start - 1, start, stop, stop + 1, start - (1 << 40), stop + (1 << 40)}
    for b in range(last + 1):
        lo, hi = bounds(fixtures.lin_bounds(b, start, stop, step).decode())
        vals.update(x for x in (lo, hi) if x is not None)
        vals.update(x + d for x in (lo, hi) if x is not None for d in (-1, 1))
    return sorted(vals)


def check_linear(exe):
    n = 0
    for start, stop, step in LINEAR:
        probes = lin_probes(start, stop, step)
        out = run_exe(exe, ['l %d %d %d %d' % (v, start, stop, step) for v in probes])
        last = (stop - start) // step + 2
        for v, line in zip(probes, out):
            rt, nb = map(int, line.split())
            if nb != last + 1:
                raise Fail('@hist_linear(v, %d, %d, %d): runtime has %d buckets, fixtures.py %d'
                           % (start, stop, step, nb, last + 1))
            want = fixtures.lin_bucket(v, start, stop, step)
            if rt != want:
                raise Fail('@hist_linear(%d, %d, %d, %d): runtime bucket %d, fixtures.py %d'
                           % (v, start, stop, step, rt, want))
            n += 1
        for b in range(last + 1):
            lo, hi = bounds(fixtures.lin_bounds(b, start, stop, step).decode())
            for x, want in ((lo, b), (hi, b), (None if lo is None else lo - 1, b - 1),
                            (None if hi is None else hi + 1, b + 1)):
                if x is not None and fixtures.lin_bucket(x, start, stop, step) != want:
                    raise Fail('@hist_linear(v, %d, %d, %d) bucket %d: bounds %s-%s not exact at %d'
                               % (start, stop, step, b, lo, hi, x))
    return n


# ---- 2. stapbpf -------------------------------------------------------------

def bpf_cases():
    cases = []
    for start, stop, step in LINEAR:
        last = (stop - start) // step + 2
        for v in lin_probes(start, stop, step):
            if abs(v) < 1 << 31:
                cases.append(('bucket', v, start, stop, step))
        for b in range(last + 1):
            cases.append(('bounds', b, start, stop, step))
    return cases


def bpf_script(cases):
    text = tapset_text()
    lines = [script_fn(text, '__srl_lin_bucket'), script_fn(text, '__srl_lin_bounds'), 'probe begin {']
    for kind, a, start, stop, step in cases:
        if kind == 'bucket':
            lines.append('\tprintf("%%d\\n", __srl_lin_bucket(%d, %d, %d, %d))' % (a, start, stop, step))
        else:
            lines.append('\tprintf("%%s\\n", __srl_lin_bounds(%d, %d, %d, %d))' % (a, start, stop, step))
    lines += ['\texit()', '}', '']
    return '\n'.join(lines)


# stapbpf 4.8 misbehaves on big programs (functions are inlined at every
# call: a translation "internal error" near 2000 calls, "printf not
# started" or a hang from ~60 calls of __srl_lin_bounds with its three
# sprintfs; several begin probes in one script fail too): run the cases in
# batches of bounded weight, a bounds call weighing 3 bucket calls.
BPF_WEIGHT = {'bucket': 1, 'bounds': 3}
BPF_BUDGET = 90


def bpf_batches(cases):
    batch, w = [], 0
    for c in cases:
        if batch and w + BPF_WEIGHT[c[0]] > BPF_BUDGET:
            yield batch
            batch, w = [], 0
        batch.append(c)
        w += BPF_WEIGHT[c[0]]
    if batch:
        yield batch


def bpf_run(cache, tree, shim, cases, n):
    src = os.path.join(cache, 'srl_hist%d.stp' % n)
    with open(src, 'w') as f:
        f.write(bpf_script(cases))
    env = dict(os.environ)
    env.setdefault('SYSTEMTAP_DIR', os.path.join(cache, 'home'))
    mod = 'srl_hist%d' % n
    r = subprocess.run(['stap', '--runtime=bpf', '-r', tree, '-p4', '-m', mod, src],
                       cwd=cache, capture_output=True, text=True, env=env, timeout=600)
    bo = os.path.join(cache, mod + '.bo')
    if r.returncode != 0 or not os.path.exists(bo):
        raise Fail('stap --runtime=bpf -p4: ' + next((l for l in r.stderr.splitlines()
                                                      if not l.startswith('WARNING')), '?'))
    if shim:
        env['LD_PRELOAD'] = shim
    r = subprocess.run(['stapbpf', bo], capture_output=True, text=True, env=env, timeout=30)
    out = r.stdout.splitlines()
    if r.returncode != 0 and not out:
        why = next((l for l in r.stderr.splitlines() if not l.startswith('WARNING')), '?')
        if 'ermission' in why or 'not permitted' in why:
            return None, 'stapbpf: ' + why
        raise Fail('stapbpf: ' + why)
    if len(out) != len(cases):
        raise Fail('stapbpf printed %d lines for %d cases (%s)' % (len(out), len(cases), src))
    return out, None


def check_bpf(cache, tree, shim):
    if os.geteuid() != 0:
        return 'SKIP', 'not root (stapbpf loads BPF programs)'
    for tool in ('stap', 'stapbpf'):
        if not any(os.access(os.path.join(p, tool), os.X_OK) for p in os.environ.get('PATH', '').split(':')):
            return 'SKIP', '%s not installed' % tool
    if tree is None or not os.path.exists(os.path.join(tree, 'System.map')):
        return 'SKIP', 'no build tree with a System.map (stap/check.sh makes build/stapcache/kbuild-*)'
    cases = bpf_cases()
    for n, batch in enumerate(bpf_batches(cases)):
        out, skip = bpf_run(cache, tree, shim, batch, n)
        if skip:
            return 'SKIP', skip
        for (kind, a, start, stop, step), line in zip(batch, out):
            if kind == 'bucket':
                want = str(fixtures.lin_bucket(a, start, stop, step))
            else:
                want = fixtures.lin_bounds(a, start, stop, step).decode()
            if line != want:
                raise Fail('tapset __srl_lin_%s(%d, %d, %d, %d) = %r under stapbpf, fixtures.py %r'
                           % (kind, a, start, stop, step, line, want))
    return 'PASS', '%d cases' % len(cases)


def default_tree(build):
    trees = sorted(d for d in os.listdir(os.path.join(build, 'stapcache'))
                   if d.startswith('kbuild-')) if os.path.isdir(os.path.join(build, 'stapcache')) else []
    return os.path.join(build, 'stapcache', trees[-1]) if trees else None


def main(argv=None):
    build_dir = os.environ.get('STAPRELAY_BUILD', os.path.join(ROOT, 'build'))
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--cache', help='work directory (default: a temporary one)')
    ap.add_argument('--runtime', default=os.environ.get('STAPRELAY_STAP_RUNTIME', '/usr/share/systemtap/runtime'))
    ap.add_argument('--bpf-tree', default=None, help='build tree for stap --runtime=bpf -r')
    ap.add_argument('--shim', default=None, help='LD_PRELOAD for stapbpf (RLIMIT_MEMLOCK)')
    ap.add_argument('--no-bpf', action='store_true')
    args = ap.parse_args(argv)
    tree = args.bpf_tree or default_tree(build_dir)
    shim = args.shim
    if shim is None and os.path.exists(os.path.join(build_dir, 'stapcache', 'memlock_shim.so')):
        shim = os.path.join(build_dir, 'stapcache', 'memlock_shim.so')
    failed = 0
    with tempfile.TemporaryDirectory(prefix='srl-hist.') as tmp:
        cache = args.cache or tmp
        os.makedirs(cache, exist_ok=True)
        try:
            exe = build(cache, args.runtime)
            nlog = check_log(exe)
            nlin = check_linear(exe)
            print('PASS hist-cc (@hist_log: %d values, 128 buckets; @hist_linear: %d values, %d shapes; '
                  'tapset C, fixtures.py and SystemTap runtime agree)' % (nlog, nlin, len(LINEAR)))
        except Fail as e:
            print('FAIL hist-cc: %s' % e)
            failed += 1
        if args.no_bpf:
            print('SKIP hist-bpf: --no-bpf')
        else:
            try:
                verdict, why = check_bpf(cache, tree, shim)
                print('%s hist-bpf: %s' % (verdict, why) if verdict != 'PASS' else
                      'PASS hist-bpf (tapset __srl_lin_bucket/__srl_lin_bounds under stapbpf == fixtures.py: %s)' % why)
            except (Fail, subprocess.TimeoutExpired) as e:
                print('FAIL hist-bpf: %s' % e)
                failed += 1
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
