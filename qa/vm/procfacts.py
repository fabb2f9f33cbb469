#!/usr/bin/python3
"""qa/vm/procfacts.py - what a SystemTap module's procfs directory looks
like to a reader, as text that two implementations can be compared on.

    procfacts.py MODDIR

Run in the VM on a real /proc/systemtap/MODULE (qa/vm/tests capture it
with the module's documents, stap/fixtures/real-*/procfs.txt) and on the
FUSE model serving those documents (qa/fuse/stapfs.c, qa/078): both
must print the same lines.  Prints:

* the directory's entries that are not the relay transport's own
  (trace0, trace1, ...), with type, permission bits and st_size;
* for metadata.json and data.json: whether a second open with O_NONBLOCK
  while the first is open fails (and with which errno); whether reading
  one open in 7-byte pieces gives a document that parses as JSON; whether
  pread at offset 1 of another open gives a suffix of one byte less than
  what was just read... (per-open snapshots make the two opens differ in
  content, so only lengths and JSON-ness are compared).
"""
import errno
import json
import os
import stat
import sys


def entry_line(d, name):
    st = os.lstat(os.path.join(d, name))
    kind = 'dir' if stat.S_ISDIR(st.st_mode) else 'file' if stat.S_ISREG(st.st_mode) else 'other'
    return '%s %s %04o size %d' % (name, kind, stat.S_IMODE(st.st_mode), st.st_size)


def read_in_pieces(fd, n):
    out = b''
    while True:
        b = os.read(fd, n)
        if not b:
            return out
        out += b


def file_facts(path):
    name = os.path.basename(path)
    lines = []
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fd2 = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            os.close(fd2)
            lines.append('%s: a second open while one is open: allowed' % name)
        except OSError as e:
            lines.append('%s: a second open while one is open: %s' % (name, errno.errorcode.get(e.errno, e.errno)))
        doc = read_in_pieces(fd, 7)
    finally:
        os.close(fd)
    try:
        json.loads(doc)
        lines.append('%s: read in 7-byte pieces: one JSON document' % name)
    except ValueError as e:
        lines.append('%s: read in 7-byte pieces: not JSON (%s)' % (name, e))
    fd = os.open(path, os.O_RDONLY)
    try:
        whole = read_in_pieces(fd, 65536)
        tail = os.pread(fd, len(whole) + 16, 1)
        lines.append('%s: pread at 1 after reading it all: %s' %
                     (name, 'the same bytes from the second on' if tail == whole[1:] else
                      'different bytes (%d of %d)' % (len(tail), len(whole))))
        again = os.read(fd, 10)
        lines.append('%s: read after the end: %d bytes' % (name, len(again)))
    finally:
        os.close(fd)
    return lines


def main():
    d = sys.argv[1]
    names = sorted(n for n in os.listdir(d) if not n.startswith('trace'))
    for n in names:
        print(entry_line(d, n))
    for n in ('metadata.json', 'data.json'):
        if n in names:
            for line in file_facts(os.path.join(d, n)):
                print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
