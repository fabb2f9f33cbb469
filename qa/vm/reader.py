#!/usr/bin/python3
"""qa/vm/reader.py - read a SystemTap module's procfs JSON files the way a
user's tool would, repeatedly, and keep every read.

    reader.py MODDIR OUTDIR SECONDS [HZ]

Every 1/HZ seconds (default 10 Hz; back to back when it falls behind)
opens MODDIR/metadata.json and
MODDIR/data.json in turn, reads each to the end in one open (a blocking
open: the runtime lets one reader in at a time, so this waits while the
PMDA reads) and keeps the bytes; at the end all of them go to
OUTDIR/reads.bin (see write_reads; qa/vm/check.py unpacks it into
NNNN/metadata.json and NNNN/data.json).  Stops when SECONDS have passed and SECONDS*HZ reads were made (so
the count does not depend on the machine's speed), or when the module
goes away.
The host checks the reads afterwards (schemas/validate.py, qa/vm/check.py).

Prints `reads: N`, and a FAIL line when an open or read failed while the
module was there (the errors and the achieved rate go to stderr).
"""
import errno
import os
import sys
import time


def read_all(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = []
        while True:
            b = os.read(fd, 65536)
            if not b:
                return b''.join(chunks)
            chunks.append(b)
    finally:
        os.close(fd)


def write_reads(path, kept):
    """All reads in one file (the share to the host is slow with many
    small files): per read "N metadata.json LEN\\n" + bytes, then
    "N data.json LEN\\n" + bytes; a metadata.json equal to the previous
    read's is written as "N metadata.json =\\n".  qa/vm/check.py unpacks
    it."""
    prev = None
    out = []
    for i, docs in enumerate(kept):
        for f in ('metadata.json', 'data.json'):
            b = docs[f]
            if f == 'metadata.json' and b == prev:
                out.append(b'%d %s =\n' % (i, f.encode()))
                continue
            out.append(b'%d %s %d\n' % (i, f.encode(), len(b)))
            out.append(b)
        prev = docs['metadata.json']
    # in a few large writes: each write is a round trip on the 9p share
    blob = b''.join(out)
    with open(path, 'wb', buffering=0) as fp:
        for p in range(0, len(blob), 4 << 20):
            fp.write(blob[p:p + (4 << 20)])


def main():
    moddir, outdir, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
    hz = float(sys.argv[4]) if len(sys.argv) > 4 else 10.0
    os.makedirs(outdir, exist_ok=True)
    start = time.monotonic()
    n = errors = 0
    gone = False
    want = int(secs * hz)
    kept = []     # written out at the end: the share is slow
    # exactly SECS*HZ reads (paced at HZ; later when reads are slow): the
    # count the test prints must not depend on how fast the guest was
    while n < want and not gone:
        tick = start + n / hz
        delay = tick - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        docs = {}
        for f in ('metadata.json', 'data.json'):
            try:
                docs[f] = read_all(os.path.join(moddir, f))
            except OSError as e:
                if e.errno == errno.ENOENT or not os.path.isdir(moddir):
                    gone = True
                else:
                    errors += 1
                    print('reader: %s: %s' % (f, e), file=sys.stderr)
                break
        if len(docs) == 2:
            kept.append(docs)
            n += 1
    took = time.monotonic() - start
    write_reads(os.path.join(outdir, 'reads.bin'), kept)
    print('reader: %d reads in %.1f s (%.1f/s), %d errors%s' %
          (n, took, n / took if took else 0, errors, ', module gone' if gone else ''),
          file=sys.stderr)
    print('reads: %d' % n)
    if errors:
        print('FAIL: %d reads failed (see the .full file)' % errors)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
