#!/usr/bin/env python3
"""Check the tapset's JSON escaper (built by stap/check.sh) against a
Python reference: json.dumps(ensure_ascii=False) for valid UTF-8, one
\\ufffd per byte that is not part of a valid UTF-8 sequence, output cut at
`max` bytes (and MAXSTRINGLEN-1) only between characters."""
import json
import random
import subprocess
import sys

MAXSTR = 512
SHORT = {0x22: b'\\"', 0x5c: b'\\\\', 0x0a: b'\\n', 0x09: b'\\t',
         0x0d: b'\\r', 0x08: b'\\b', 0x0c: b'\\f'}


def ref(data, cap, whole=None):
    data = data[:MAXSTR - 1].split(b'\0')[0]
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
                    t = data[i:i + n]
                    adv = n
                except UnicodeDecodeError:
                    pass
        if len(out) + len(t) > cap:
            break
        out += t
        i += adv
    if whole is not None:
        whole.append(i >= len(data))
    return bytes(out)


def main():
    exe = sys.argv[1]
    rnd = random.Random(4)
    cases = [
        b'', b'plain', b'say "hi" C:\\tmp', b'a\nb\tc\rd\x08e\x0cf', b'\x01\x1f\x7f',
        b'bad\xff\xfe', b'\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80',
        b'\xc0\x80 overlong', b'\xed\xa0\x80 surrogate', b'\xf4\x90\x80\x80 big',
        b'cut \xe2\x82', b'"' * 300, b'\\' * 600, b'\n' * 100,
        b'evil"comm\\\n', b'x' * 600,
    ]
    for _ in range(400):
        n = rnd.randrange(0, 80)
        pool = [rnd.randrange(256) for _ in range(n)]
        cases.append(bytes(pool).replace(b'\0', b'0'))
        cases.append('é€😀"\\\n\x01 ascii'.encode()[:rnd.randrange(1, 25)])
    caps = [511, 100, 7, 6, 5, 1, 0, 4000]
    tests = [(c, cap) for c in cases for cap in caps]
    inp = ''.join('%d %s\n' % (cap, c.hex()) for c, cap in tests)
    res = subprocess.run([exe], input=inp.encode(), capture_output=True, check=True)
    lines = res.stdout.decode().split('\n')
    bad = 0
    for (c, cap), got_hex in zip(tests, lines):
        got = bytes.fromhex(got_hex)
        want = ref(c, cap)
        if got != want:
            bad += 1
            if bad < 5:
                print('MISMATCH cap=%d in=%r got=%r want=%r' % (cap, c, got, want))
            continue
        # Always a valid JSON string body ...
        s = json.loads(b'"' + got + b'"')
        # ... and for valid UTF-8 that was not cut, exactly json.dumps.
        try:
            text = c[:MAXSTR - 1].decode('utf-8')
        except UnicodeDecodeError:
            continue
        whole = []
        ref(c, cap, whole)
        if not whole[0]:
            continue
        if s != text:
            bad += 1
            print('ROUNDTRIP in=%r got=%r' % (c, got))
        if got != json.dumps(text, ensure_ascii=False)[1:-1].encode():
            bad += 1
            print('DUMPS in=%r got=%r' % (c, got))
    if len(lines) - 1 != len(tests):
        print('harness printed %d lines for %d tests' % (len(lines) - 1, len(tests)))
        bad += 1
    print('escape: %d tests, %d failures' % (len(tests), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
