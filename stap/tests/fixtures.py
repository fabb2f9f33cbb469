#!/usr/bin/env python3
"""Byte-exact model of what stap/tapset/staprelay.stp(m) writes, and the
scenarios behind stap/fixtures/.

    python3 stap/tests/fixtures.py --write   regenerate stap/fixtures/
    python3 stap/tests/fixtures.py --check   compare (stap/check.sh), then
                                             run hist_test.py: the bucket
                                             model against the tapset's code
                                             and SystemTap's runtime
    python3 stap/tests/fixtures.py --check-real
                                             the model against what the
                                             real kernel wrote: every
                                             stap/fixtures/real-*/ capture
                                             (qa/vm/run --capture) is
                                             reproduced byte for byte

Every function below mirrors one piece of the tapset (same names in
comments); when the tapset's output changes, change this model and
regenerate.  Timestamps, pids and stacks are made up; everything else
(key order, spacing, escaping, bucket bounds, which records fit in a read)
follows the tapset code.
"""
import json
import os
import re
import sys

MAXSTR = 512
SHORT = {0x22: b'\\"', 0x5c: b'\\\\', 0x0a: b'\\n', 0x09: b'\\t',
         0x0d: b'\\r', 0x08: b'\\b', 0x0c: b'\\f'}


def b(s):
    return s if isinstance(s, bytes) else s.encode()


def esc_n(s, cap):
    """__srl_esc_n"""
    data = b(s)[:MAXSTR - 1].split(b'\0')[0]
    cap = max(0, min(cap, MAXSTR - 1))
    out = bytearray()
    i = 0
    while i < len(data):
        c = data[i]
        adv = 1
        if c in SHORT:
            t = SHORT[c]
        elif c < 0x20:
            t = b'\\u%04x' % c
        elif c < 0x80:
            t = bytes([c])
        else:
            n = 2 if 0xc2 <= c <= 0xdf else 3 if 0xe0 <= c <= 0xef else 4 if 0xf0 <= c <= 0xf4 else 0
            t = b'\\ufffd'
            if n and i + n <= len(data):
                try:
                    data[i:i + n].decode('utf-8')
                    t, adv = data[i:i + n], n
                except UnicodeDecodeError:
                    pass
        if len(out) + len(t) > cap:
            break
        out += t
        i += adv
    return bytes(out)


def esc(s):
    """staprelay_json_escape"""
    return esc_n(s, MAXSTR - 1)


def ptr(s):
    """__srl_ptr_token"""
    return b(s).replace(b'~', b'~0').replace(b'/', b'~1')


def fint(k, v):
    """staprelay_fint"""
    return b', "%s": %d' % (esc(k), v)


def fstr(k, v):
    """staprelay_fstr"""
    ek = esc(k)
    return b', "%s": "%s"' % (ek, esc_n(v, MAXSTR - 1 - len(ek) - 8))


def log_bounds(bk):
    """__srl_log_bounds (bucket 0 holds INT64_MIN alone: its lo is
    INT64_MIN, not -(2^64-1); bucket 128 cannot be reached from int64)"""
    if bk == 64:
        return b'"lo": 0, "hi": 0'
    if bk > 64:
        k = bk - 64
        return b'"lo": %d, "hi": %d' % (1 << (k - 1), (1 << 64) - 1 if k >= 64 else (1 << k) - 1)
    k = 64 - bk
    if k >= 64:
        return b'"lo": %d, "hi": %d' % (-(1 << 63), -(1 << (k - 1)))
    return b'"lo": %d, "hi": %d' % (-((1 << k) - 1), -(1 << (k - 1)))


def log_bucket(v):
    """__srl_log_bucket"""
    if v == 0:
        return 64
    k = abs(v).bit_length()
    return 64 - k if v < 0 else 64 + k


def lin_bucket(v, start, stop, step):
    last = (stop - start) // step + 2
    if v < start:
        return 0
    return min((v - start) // step + 1, last)


def lin_bounds(bk, start, stop, step):
    last = (stop - start) // step + 2
    if bk == 0:
        return b'"lo": null, "hi": %d' % (start - 1)
    lo = start + (bk - 1) * step
    if bk == last:
        return b'"lo": %d, "hi": null' % lo
    return b'"lo": %d, "hi": %d' % (lo, lo + step - 1)


OMITTED_DESC = ('items (metrics, array rows, histograms) the last read of data.json '
                'left out to stay within its size and work limits')


class Metric:
    def __init__(self, name, type, sem='', units='', desc=''):
        self.name, self.type, self.sem, self.units, self.desc = name, type, sem, units, desc
        self.subs = []          # (name, type, sem, units, desc, optional)
        self.stackfield = None


class Source:
    """Registration state + queued records (staprelay.stp)."""

    def __init__(self, prefix='', data_limit=0):
        self.prefix = prefix
        self.metrics = []
        self.by = {}
        self.data_limit = data_limit
        self.queue = {}         # event name -> list of (seq, ts, body, kstk, ustk)
        self.next = {}
        self.dropped = {}
        # probe init: every source has it
        self.add('omitted', 'integer', 'instant', 'count', OMITTED_DESC)

    def add(self, name, type, sem='', units='', desc=''):
        m = Metric(name, type, sem, units, desc)
        self.metrics.append(m)
        self.by[name] = m
        if type == 'event':
            self.queue[name], self.next[name], self.dropped[name] = [], 0, 0
        return m

    def sub(self, parent, name, type, sem='', units='', desc='', optional=False):
        m = self.by[parent]
        m.subs.append((name, type, sem, units, desc, optional))
        if type == 'stack':
            m.stackfield = name

    def event(self, name, ts, fields, kstack=b'', ustack=b'', waker=None):
        """waker: staprelay_event_wake's part, (kernel addresses, user
        lines), both already in the order written (root first)."""
        self.next[name] += 1
        if waker is not None:
            waker = (b(waker[0]), b(waker[1]))
        self.queue[name].append((self.next[name], ts, b(fields), b(kstack), b(ustack), waker))

    # ---- procfs("metadata.json").read
    def metadata(self):
        out = b'{\n'
        if self.prefix:
            out += b'  "prefix": "%s",\n' % esc(self.prefix)
        out += b'  "metrics": ['
        first = True
        for m in self.metrics:
            blk = b'\n    {\n      "name": "%s",\n' % esc(m.name)
            blk += b'      "pointer": "/%s",\n      "type": "%s"' % (esc(ptr(m.name)), b(m.type))
            if m.sem:
                blk += b',\n      "semantics": "%s"' % b(m.sem)
            if m.units:
                blk += b',\n      "units": "%s"' % esc(m.units)
            if m.desc:
                blk += b',\n      "description": "%s"' % esc(m.desc)
            if m.type == 'array':
                blk += b',\n      "index": "/__id",\n      "metrics": ['
            elif m.type == 'event':
                blk += b',\n      "timestamp": "/ts",\n      "timestamp_units": "nsec",'
                blk += b'\n      "sequence": "/seq",\n      "dropped": "/%s",' % esc(ptr(m.name + '_dropped'))
                blk += b'\n      "fields": ['
            if m.type in ('array', 'event'):
                for i, (n, t, sem, units, desc, optional) in enumerate(m.subs, 1):
                    line = b'{"name": "%s", "pointer": "/%s", "type": "%s"' % (esc(n), esc(ptr(n)), b(t))
                    if sem:
                        line += b', "semantics": "%s"' % b(sem)
                    if units:
                        line += b', "units": "%s"' % esc(units)
                    if optional:            # staprelay_add_event_field_optional
                        line += b', "optional": true'
                    blk += (b',\n        ' if i > 1 else b'\n        ') + line
                    blk += (b', "description": "%s"}' % esc(desc)) if desc else b'}'
                blk += b'\n      ]' if m.subs else b']'
            blk += b'\n    }'
            if not first:
                out += b','
            first = False
            out += blk
        out += b']\n}\n' if first else b'\n  ]\n}\n'
        return out


class Data:
    """One run of `probe staprelay_data` (staprelay.stpm)."""

    def __init__(self, src):
        self.src = src
        self.out = b'{'
        self.first = True
        self.omitted = 0
        cap = src.data_limit if 256 < src.data_limit < 131071 else 131071
        self.cap = cap - 3 - 40
        for m in src.metrics:
            if m.type == 'event':
                self.cap -= 2 * len(esc(m.name)) + 60

    def _sep(self):
        return b'\n  ' if self.first else b',\n  '

    def item(self, s):
        if len(self.out) + len(s) + 4 <= self.cap:
            self.out += self._sep() + s
            self.first = False
        else:
            self.omitted += 1

    def int(self, name, v):
        self.item(b'"%s": %d' % (esc(name), v))

    def string(self, name, v):
        self.item(fstr(name, v)[2:])

    def array(self, name, rows, total=None):
        """rows: list of (index, fields); total: rows the array has (those
        beyond len(rows) are counted as omitted, as a loop cut short by
        @staprelay_row_limit is by @staprelay_out_array_end_total)"""
        head = b'"%s": [' % esc(name)
        if len(self.out) + len(head) + 8 > self.cap:
            self.omitted += 1
            return
        self.out += self._sep() + head
        self.first = False
        n = 0
        for idx, fields in rows:
            ei, f = esc(idx), b(fields)
            if len(f) < MAXSTR - 1 and len(self.out) + len(ei) + len(f) + 24 <= self.cap:
                self.out += (b',\n    {"__id": "' if n else b'\n    {"__id": "') + ei + b'"' + f + b'}'
                n += 1
            else:
                self.omitted += 1
        self.out += b'\n  ]' if n else b']'
        if total is not None and total > len(rows):
            self.omitted += total - len(rows)

    def _staged(self, name, items):
        head = b'"%s": [' % esc(name)
        sl = len(head) + 4 + sum(len(it) + 6 for it in items)
        if len(self.out) + sl + 4 > self.cap:
            self.omitted += 1
            return
        self.out += self._sep() + head
        self.first = False
        for i, it in enumerate(items):
            self.out += (b',\n    ' if i else b'\n    ') + it
        self.out += b'\n  ]' if items else b']'

    def buckets(self, name, buckets):
        """a histogram given as its buckets: [(lo, hi, count)], lo/hi None
        for an open end (what a real read shows)"""
        def bound(v):
            return b'null' if v is None else b'%d' % v
        self._staged(name, [b'{"lo": %s, "hi": %s, "count": %d}' % (bound(lo), bound(hi), c)
                            for lo, hi, c in buckets])

    def hist_log(self, name, values):
        items = []
        if values:
            for bk in range(log_bucket(min(values)), log_bucket(max(values)) + 1):
                n = sum(1 for v in values if log_bucket(v) == bk)
                items.append(b'{%s, "count": %d}' % (log_bounds(bk), n))
        self._staged(name, items)

    def hist_linear(self, name, values, start, stop, step):
        items = []
        if values:
            lo, hi = lin_bucket(min(values), start, stop, step), lin_bucket(max(values), start, stop, step)
            for bk in range(lo, hi + 1):
                n = sum(1 for v in values if lin_bucket(v, start, stop, step) == bk)
                items.append(b'{%s, "count": %d}' % (lin_bounds(bk, start, stop, step), n))
        self._staged(name, items)

    @staticmethod
    def _kpieces(pieces, kstk, ksyms):
        for tok in kstk.split():
            if len(tok) > 2:
                sym = ksyms.get(tok.decode())
                # __srl_ksyms: " 0xADDR : sym+off/size [mod]", or
                # " 0xADDR" where kallsyms has no symbol
                line = b' %s : %s\n' % (tok, b(sym)) if sym else b' %s\n' % tok
                pieces.append(esc_n(line, MAXSTR - 1))

    @staticmethod
    def _upieces(pieces, ustk):
        for line in ustk.split(b'\n'):
            if line:
                pieces.append(esc_n(line + b'\n', MAXSTR - 1))

    def events(self, ksyms):
        src = self.src
        for m in src.metrics:
            if m.type != 'event':
                continue
            ee = esc(m.name)
            self.cap += 2 * len(ee) + 60
            self.out += self._sep() + b'"%s_dropped": %d' % (ee, src.dropped[m.name])
            self.first = False
            self.out += b',\n  "%s": [' % ee
            rows = 0
            q = src.queue[m.name]
            while q:
                seq, ts, body, kstk, ustk, waker = q[0]
                pieces = [b'{"seq": %d, "ts": %d' % (seq, ts), body]
                if m.stackfield:
                    pieces.append(b', "%s": "' % esc(m.stackfield))
                    if waker is not None:
                        # @__srl_out_events_wake: the waker's user lines, its
                        # kernel frames, "--", then the blocked stack
                        self._upieces(pieces, waker[1])
                        self._kpieces(pieces, waker[0], ksyms)
                        pieces.append(b'--\\n')
                    self._kpieces(pieces, kstk, ksyms)
                    self._upieces(pieces, ustk)
                    pieces.append(b'"')
                pieces.append(b'}')
                sl = 6 + sum(len(p) for p in pieces)
                if len(self.out) + sl + 4 > self.cap:
                    break
                self.out += (b',\n    ' if rows else b'\n    ') + b''.join(pieces)
                rows += 1
                q.pop(0)
            self.out += b'\n  ]' if rows else b']'

    def end(self):
        return self.out + self._sep() + b'"omitted": %d\n}\n' % self.omitted


# ------------------------------------------------------------- scenarios

KSYMS = {
    '0xffffffff81c2f1a4': 'native_safe_halt+0x4/0x10 [kernel]',
    '0xffffffff81c2f5e1': 'default_idle+0x11/0x20 [kernel]',
    '0xffffffff8112b7a0': 'do_idle+0x210/0x260 [kernel]',
    '0xffffffff81cdb1b0': 'copy_user_enhanced_fast_string+0x10/0x40 [kernel]',
    '0xffffffff8133f6f5': 'filemap_read+0x1d5/0x340 [kernel]',
    '0xffffffff813c0c29': 'vfs_read+0x1a9/0x2c0 [kernel]',
    '0xffffffff813c16f3': 'ksys_read+0x73/0xf0 [kernel]',
    '0xffffffff81c1e9a8': 'do_syscall_64+0x58/0xc0 [kernel]',
    '0xffffffff81e000e6': 'entry_SYSCALL_64_after_hwframe+0x6e/0xd8 [kernel]',
    '0xffffffff81c3a4b1': '__schedule+0x361/0xb30 [kernel]',
    '0xffffffff81c3ad2a': 'schedule+0x5a/0xd0 [kernel]',
    '0xffffffff81c41c55': 'schedule_hrtimeout_range_clock+0xa5/0x120 [kernel]',
    '0xffffffff813d8f13': 'do_sys_poll+0x4b3/0x5c0 [kernel]',
}
K_READ = ('0xffffffff81cdb1b0 0xffffffff8133f6f5 0xffffffff813c0c29 0xffffffff813c16f3 '
          '0xffffffff81c1e9a8 0xffffffff81e000e6')
U_READ = ('__GI___libc_read+0x12 [/usr/lib/x86_64-linux-gnu/libc.so.6]\n'
          'safe_read+0x1a [/usr/bin/cat]\n'
          'main+0x2d4 [/usr/bin/cat]\n'
          '__libc_start_call_main+0x7a [/usr/lib/x86_64-linux-gnu/libc.so.6]\n')
K_POLL = ('0xffffffff81c3a4b1 0xffffffff81c3ad2a 0xffffffff81c41c55 0xffffffff813d8f13 '
          '0xffffffff81c1e9a8 0xffffffff81e000e6')
U_POLL = ('__GI___poll+0x4f [/usr/lib/x86_64-linux-gnu/libc.so.6]\n'
          'g_main_context_iterate.constprop.0+0x1a6 [/usr/lib/x86_64-linux-gnu/libglib-2.0.so.0.7400.6]\n')
TS0 = 1732913600000000000


def profile_source(data_limit=0):
    s = Source(data_limit=data_limit)
    s.add('samples', 'event', desc='CPU samples with kernel and user stacks')
    s.sub('samples', 'stack', 'stack', desc='backtrace, leaf first, kernel frames then user frames')
    s.sub('samples', 'pid', 'integer', 'discrete', desc='process id')
    s.sub('samples', 'tid', 'integer', 'discrete', desc='thread id')
    s.sub('samples', 'cpu', 'integer', 'discrete', desc='CPU number')
    s.sub('samples', 'comm', 'string', desc='command name')
    s.sub('samples', 'count', 'integer', 'counter', 'count', 'samples this record stands for')
    s.add('taken', 'integer', 'counter', 'count', 'samples that passed the filters')
    s.add('frequency', 'integer', 'discrete', '', 'sampling frequency in Hz')
    return s


def sample(s, i, pid, comm, k, u, cpu=0):
    s.event('samples', TS0 + i * 10101010 + 17, fint('pid', pid) + fint('tid', pid) + fint('cpu', cpu)
            + fstr('comm', comm) + fint('count', 1), k, u)


def scen_profile():
    s = profile_source()
    sample(s, 0, 4242, 'cat', K_READ, U_READ, 1)
    sample(s, 1, 4242, 'cat', '', U_READ, 1)
    d = Data(s)
    d.int('taken', 2)
    d.int('frequency', 99)
    d.events(KSYMS)
    return {'metadata.json': s.metadata(), 'data.json': d.end()}


def scen_profile_chunked():
    # stap -G staprelay_data_limit=2048 ... profile.stp: five samples are
    # queued before the first read, two more before the second.  Each read
    # takes the oldest records that fit in 2048 bytes (1-2, then 3-4); the
    # others wait, in order, for later reads.
    s = profile_source(data_limit=2048)
    for i in range(5):
        sample(s, i, 4242 + i % 2, 'cat' if i % 2 == 0 else 'gnome-shell',
               K_READ if i % 2 == 0 else K_POLL, U_READ if i % 2 == 0 else U_POLL, i % 2)
    files = {'metadata.json': s.metadata()}
    d = Data(s)
    d.int('taken', 5)
    d.int('frequency', 99)
    d.events(KSYMS)
    files['data.json'] = d.end()
    for i in range(5, 7):
        sample(s, i, 4242, 'cat', K_READ, U_READ, 0)
    d = Data(s)
    d.int('taken', 7)
    d.int('frequency', 99)
    d.events(KSYMS)
    files['data.2.json'] = d.end()
    return files


def scen_syslat():
    s = Source()
    s.add('calls', 'integer', 'counter', 'count', 'system calls completed')
    s.add('errors', 'integer', 'counter', 'count', 'system calls that returned an error')
    s.add('latency', 'histogram', '', 'nanosec', 'system call latency, all calls')
    s.add('syscalls', 'array', desc='per system call statistics')
    s.sub('syscalls', 'calls', 'integer', 'counter', 'count', 'calls completed')
    s.sub('syscalls', 'errors', 'integer', 'counter', 'count', 'calls that returned an error')
    s.sub('syscalls', 'time', 'integer', 'counter', 'nanosec', 'total time spent in the call')
    s.sub('syscalls', 'max', 'integer', 'instant', 'nanosec', 'longest call')
    lat = {0: [800, 950, 1500, 2100, 40000], 7: [1001234567, 2002315203],
           257: [3000, 3100, 900, 5000]}      # read, poll, openat
    names = {0: 'read', 7: 'poll', 257: 'openat'}
    errs = {257: 1}
    d = Data(s)
    allv = [v for n in sorted(lat) for v in lat[n]]
    d.int('calls', len(allv))
    d.int('errors', sum(errs.values()))
    d.hist_log('latency', allv)
    d.array('syscalls', [(names[n], fint('calls', len(lat[n])) + fint('errors', errs.get(n, 0))
                          + fint('time', sum(lat[n])) + fint('max', max(lat[n]))) for n in sorted(lat)])
    for n in sorted(lat):      # registered while data.json was written
        s.add('latency_' + names[n], 'histogram', '', 'nanosec', 'latency of ' + names[n])
        d.hist_log('latency_' + names[n], lat[n])
    return {'metadata.json': s.metadata(), 'data.json': d.end()}


def scen_iolat():
    s = Source()
    s.add('requests', 'integer', 'counter', 'count', 'block requests completed')
    s.add('errors', 'integer', 'counter', 'count', 'block requests completed with an error')
    s.add('latency', 'histogram', '', 'nanosec', 'block request latency, all devices')
    s.add('devices', 'array', desc='per disk and direction (disk:read|write|other)')
    s.sub('devices', 'requests', 'integer', 'counter', 'count', 'requests completed')
    s.sub('devices', 'bytes', 'integer', 'counter', 'byte', 'bytes completed')
    s.sub('devices', 'errors', 'integer', 'counter', 'count', 'requests completed with an error')
    s.sub('devices', 'time', 'integer', 'counter', 'nanosec', 'total request time')
    s.sub('devices', 'max', 'integer', 'instant', 'nanosec', 'longest request')
    lat = {'nvme0n1:read': [90000, 110000, 250000], 'nvme0n1:write': [1200000, 800000],
           'dm-0:write': [1300000]}
    size = {'nvme0n1:read': [4096, 4096, 131072], 'nvme0n1:write': [65536, 4096], 'dm-0:write': [4096]}
    d = Data(s)
    allv = [v for k in sorted(lat) for v in lat[k]]
    d.int('requests', len(allv))
    d.int('errors', 0)
    d.hist_log('latency', allv)
    d.array('devices', [(k, fint('requests', len(lat[k])) + fint('bytes', sum(size[k])) + fint('errors', 0)
                         + fint('time', sum(lat[k])) + fint('max', max(lat[k]))) for k in sorted(lat)])
    for k in sorted(lat):
        h = 'latency_' + ''.join(c if c.isalnum() or c == '_' else '_' for c in k)
        s.add(h, 'histogram', '', 'nanosec', 'block request latency of ' + k)
        d.hist_log(h, lat[k])
    return {'metadata.json': s.metadata(), 'data.json': d.end()}


def scen_offcpu():
    s = Source()
    s.add('blocks', 'event', desc='off-CPU intervals with the stack they blocked in')
    s.sub('blocks', 'stack', 'stack', desc='stack at switch-out, leaf first, kernel then user frames')
    s.sub('blocks', 'pid', 'integer', 'discrete', desc='process id')
    s.sub('blocks', 'tid', 'integer', 'discrete', desc='thread id')
    s.sub('blocks', 'cpu', 'integer', 'discrete', desc='CPU it ran on again')
    s.sub('blocks', 'comm', 'string', desc='command name')
    s.sub('blocks', 'duration', 'integer', 'instant', 'nanosec', 'time off CPU')
    s.add('switches', 'integer', 'counter', 'count', 'context switches of traced threads')
    s.add('offcpu_time', 'integer', 'counter', 'nanosec', 'total time off CPU')
    s.add('intervals_skipped', 'integer', 'counter', 'count',
          'off-CPU intervals left out: SystemTap skipped a probe while they were open '
          '(its locks busy), so their end, state or waker may be another\'s')
    s.add('offcpu', 'histogram', '', 'nanosec', 'off-CPU intervals')
    durs = [2500, 70000, 1500000, 250000000]
    s.event('blocks', TS0 + 5000, fint('pid', 1201) + fint('tid', 1203) + fint('cpu', 1)
            + fstr('comm', 'gmain') + fint('duration', 1500000), K_POLL, U_POLL)
    s.event('blocks', TS0 + 900000, fint('pid', 1201) + fint('tid', 1201) + fint('cpu', 0)
            + fstr('comm', 'gnome-shell') + fint('duration', 250000000), K_POLL, '')
    d = Data(s)
    d.int('switches', 5)
    d.int('offcpu_time', sum(durs))
    d.int('intervals_skipped', 0)
    d.hist_log('offcpu', durs)
    d.events(KSYMS)
    return {'metadata.json': s.metadata(), 'data.json': d.end()}


def scen_hostile():
    # stap/tests/selftest.stp
    s = Source(prefix='selftest')
    s.add('status', 'string', desc='say "hi" from C:\\tmp')
    s.add('answer', 'integer', 'discrete')
    s.add('ticks', 'integer', 'counter', 'count', 'timer ticks')
    s.add('procs', 'array', desc='per command')
    s.sub('procs', 'count', 'integer', 'counter', 'count')
    s.sub('procs', 'note', 'string', desc='free text')
    s.add('sizes', 'histogram', '', 'byte', 'linear histogram 0..100 step 25')
    s.add('latency', 'histogram', '', 'nanosec')
    s.add('marks', 'event', desc='records with hostile strings')
    s.sub('marks', 'comm', 'string')
    s.sub('marks', 'value', 'integer', 'counter', 'count')
    s.event('marks', TS0 + 1, fstr('comm', 'evil"comm\\\n') + fint('value', 1))
    s.event('marks', TS0 + 2, fstr('comm', b'tab\there \x01') + fint('value', -2))
    d = Data(s)
    d.string('status', b'say "hi"\n\tC:\\tmp \x1f \xff')
    d.int('answer', 42)
    d.int('ticks', 0)
    d.array('procs', [('web "server"\n', fint('count', 3) + fstr('note', 'back\\slash')),
                      ('idle', fint('count', 0) + fstr('note', ''))])
    d.hist_linear('sizes', [-5, 0, 42, 42, 1000], 0, 100, 25)
    d.hist_log('latency', [0, 3, 700])
    d.events(KSYMS)
    return {'metadata.json': s.metadata(), 'data.json': d.end()}


SCENARIOS = {
    'profile': scen_profile,
    'profile-chunked': scen_profile_chunked,
    'syslat': scen_syslat,
    'iolat': scen_iolat,
    'offcpu': scen_offcpu,
    'hostile': scen_hostile,
}


# ------------------------------------------------ real captures (qa/vm)

KLINE = re.compile(r'^ (0xffff[0-9a-f]{12})(?: : (.*))?$')


def reproduce(meta_text, data_text, data_limit=0, next_record=None):
    """The model's metadata.json and data.json for what a real read of a
    module showed (stap/fixtures/real-*/, captured in the VM): the
    metrics registered as its metadata lists them, and the values, rows,
    buckets and records its data holds, given to Source and Data.
    next_record: the first record of the following read, queued after
    this read's records (it must not fit, when this read is full).
    Returns (metadata bytes, data bytes)."""
    meta = json.loads(meta_text)
    data = json.loads(data_text)
    src = Source(prefix=meta.get('prefix', ''), data_limit=data_limit)
    kinds = {}
    for m in meta['metrics']:
        kinds[m['name']] = m
        if m['name'] == 'omitted':
            continue                  # probe init registered it
        src.add(m['name'], m['type'], m.get('semantics', ''), m.get('units', ''),
                m.get('description', ''))
        for f in m.get('metrics', []) + m.get('fields', []):
            src.sub(m['name'], f['name'], f['type'], f.get('semantics', ''), f.get('units', ''),
                    f.get('description', ''), f.get('optional', False))

    def fields(obj, skip):
        out = b''
        for k, v in obj.items():
            if k in skip:
                continue
            out += fint(k, v) if isinstance(v, int) else fstr(k, v)
        return out

    ksyms = {}
    events = [m['name'] for m in meta['metrics'] if m['type'] == 'event']
    for e in events:
        src.dropped[e] = data.get(e + '_dropped', 0)
        recs = list(data.get(e, []))
        if next_record is not None:
            recs.append(next_record)
        stackf = src.by[e].stackfield
        for r in recs:
            parts = [([], [])]   # (kernel, user) of the blocked stack, or waker then blocked
            for line in (r.get(stackf, '') if stackf else '').split('\n'):
                m = KLINE.match(line)
                if line == '--' and len(parts) == 1:
                    parts.append(([], []))
                elif m:
                    parts[-1][0].append(m.group(1))
                    ksyms[m.group(1)] = m.group(2)
                elif line:
                    parts[-1][1].append(line + '\n')
            waker = None
            if len(parts) == 2:
                waker = (' '.join(parts[0][0]), ''.join(parts[0][1]))
            kst, ust = parts[-1]
            src.next[e] = r['seq'] - 1
            src.event(e, r['ts'], fields(r, ('seq', 'ts', stackf)), ' '.join(kst), ''.join(ust),
                      waker)
    d = Data(src)
    drained = False
    for k, v in data.items():
        m = kinds.get(k)
        if k == 'omitted':
            continue
        if m is None or m['type'] == 'event':       # "<e>_dropped" or "<e>"
            if not drained:
                d.events(ksyms)
                drained = True
            continue
        t = m['type']
        if t == 'integer':
            d.int(k, v)
        elif t == 'string':
            d.string(k, v)
        elif t == 'array':
            d.array(k, [(row['__id'], fields(row, ('__id',))) for row in v])
        elif t == 'histogram':
            d.buckets(k, [(bk.get('lo'), bk.get('hi'), bk['count']) for bk in v])
    if events and not drained:
        d.events(ksyms)
    # Items the read left out are not in it: the model cannot know them,
    # so their count comes from the capture (an item the model leaves out
    # of what the read holds shows as a difference anyway).
    d.omitted += data.get('omitted', 0)
    return src.metadata(), d.end()


def check_real(top):
    """Every stap/fixtures/real-*/ capture: the model writes the same
    bytes.  Returns the number of differences."""
    import difflib
    bad = 0
    for name in sorted(os.listdir(top)):
        if not name.startswith('real-'):
            continue
        d = os.path.join(top, name)
        limit = 0
        if os.path.exists(os.path.join(d, 'limit')):
            limit = int(open(os.path.join(d, 'limit')).read())
        meta = open(os.path.join(d, 'metadata.json'), 'rb').read()
        reads = ['data.json'] + sorted(f for f in os.listdir(d) if re.match(r'data\.\d+\.json$', f))
        for i, f in enumerate(reads):
            text = open(os.path.join(d, f), 'rb').read()
            want_meta, want = reproduce(meta, text, limit)
            if i == 0 and want_meta != meta:
                bad += 1
                print('model differs from %s/metadata.json:' % name)
                sys.stdout.writelines(list(difflib.unified_diff(
                    meta.decode().splitlines(True), want_meta.decode().splitlines(True),
                    'real', 'model'))[:20])
            if want != text:
                bad += 1
                print('model differs from %s/%s:' % (name, f))
                sys.stdout.writelines(list(difflib.unified_diff(
                    text.decode(errors='replace').splitlines(True),
                    want.decode(errors='replace').splitlines(True), 'real', 'model'))[:20])
                continue
            # a read that filled its file: the next record did not fit
            if i + 1 < len(reads):
                nxt = json.loads(open(os.path.join(d, reads[i + 1]), 'rb').read())
                for e in (m['name'] for m in json.loads(meta)['metrics'] if m['type'] == 'event'):
                    cur = json.loads(text).get(e, [])
                    if nxt.get(e) and cur and nxt[e][0]['seq'] == cur[-1]['seq'] + 1:
                        _, with_next = reproduce(meta, text, limit, nxt[e][0])
                        if with_next != text and len(with_next) <= (limit or 131071):
                            # the model would have written it: the read was
                            # not full, so the record came later
                            continue
                        if with_next != text:
                            bad += 1
                            print('model splits %s/%s differently' % (name, f))
    return bad


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else '--check'
    top = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'fixtures')
    if mode == '--check-real':
        bad = check_real(top)
        n = sum(1 for x in os.listdir(top) if x.startswith('real-'))
        print('fixtures: the model writes the %d real captures byte for byte' % n if not bad
              else 'fixtures: %d differences from the real captures' % bad)
        return 1 if bad or n == 0 else 0
    bad = 0
    for name, fn in SCENARIOS.items():
        for fname, content in fn().items():
            path = os.path.join(top, name, fname)
            if mode == '--write':
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'wb') as f:
                    f.write(content)
            else:
                try:
                    with open(path, 'rb') as f:
                        have = f.read()
                except OSError:
                    have = None
                if have != content:
                    print('fixture differs from the model: %s/%s' % (name, fname))
                    bad += 1
    if mode != '--write':
        # the model's bucket bounds are only as good as their agreement
        # with the tapset and with SystemTap itself
        import hist_test
        bad += hist_test.main([])
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
