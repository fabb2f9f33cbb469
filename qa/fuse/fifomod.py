#!/usr/bin/env python3
"""fifomod: one SystemTap BPF-runtime module's procfs files, as stapbpf
serves them (stapbpf.cxx procfs_read_event_loop), for qa tests.

    fifomod.py [--log FILE] [--vanish FILE] ROOT MODULE FIXTURE_DIR

ROOT/MODULE/{metadata.json,data.json} are named pipes, mode 0400.  For each
file a thread blocks in open(O_WRONLY) until a reader opens it, writes the
whole document, closes, and then (as stapbpf does) spins on
open(O_WRONLY|O_NONBLOCK) until that fails with ENXIO: no reader left.
How long the reader kept the pipe after the document is logged, one line
per document:

    data.json #N: BYTES bytes; reader closed after MS ms

metadata.json is FIXTURE_DIR/metadata.json; data.json #N is
FIXTURE_DIR/data.json with "calls" set to N, so a reader sees the value
grow.  A reader that holds the pipe makes stapbpf busy-spin: a relay must
close it as soon as it has one document.

A module vanishing mid-read: when the file named by --vanish exists at the
start of a data.json document and holds "BYTES HOLD", only the first BYTES
bytes are written; then the module's directory is removed (as stapbpf
does when it exits), the writer keeps its end open for at most HOLD seconds
(a stalled writer; 0: it dies at once), and the process exits.  Logged:

    vanish at byte BYTES of data.json #N (hold HOLD s)
    reader closed MS ms after the writer stalled     (or: ... still open after HOLD s)

SIGTERM removes the directory and exits.
"""
import errno
import json
import os
import select
import signal
import sys
import threading
import time

args = sys.argv[1:]
log_path = vanish_path = None
while args and args[0].startswith("--"):
    opt = args.pop(0)
    if opt == "--log":
        log_path = args.pop(0)
    elif opt == "--vanish":
        vanish_path = args.pop(0)
    else:
        sys.exit("fifomod: unknown option " + opt)
if len(args) != 3:
    sys.exit("usage: fifomod.py [--log FILE] [--vanish FILE] ROOT MODULE FIXTURE_DIR")
root, module, fixture = args
mdir = os.path.join(root, module)
lock = threading.Lock()
logf = open(log_path, "a") if log_path else sys.stderr


def log(msg):
    with lock:
        logf.write(msg + "\n")
        logf.flush()


def remove_module():
    for f in ("metadata.json", "data.json"):
        try:
            os.unlink(os.path.join(mdir, f))
        except OSError:
            pass
    try:
        os.rmdir(mdir)
    except OSError:
        pass


def reader_gone_after(path, limit=10.0):
    """stapbpf's wait: spin until no reader holds the pipe; seconds."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno == errno.ENXIO:
                return time.monotonic() - t0
            if e.errno == errno.ENOENT:
                return None
            raise
        os.close(fd)
        time.sleep(0.001)
    return None


def document(name, n):
    with open(os.path.join(fixture, name), "rb") as f:
        text = f.read()
    if name == "data.json":
        doc = json.loads(text)
        doc["calls"] = n
        text = (json.dumps(doc, indent=2) + "\n").encode()
    return text


def vanish_request():
    if vanish_path is None:
        return None
    try:
        with open(vanish_path) as f:
            nbytes, hold = f.read().split()
        return int(nbytes), float(hold)
    except (OSError, ValueError):
        return None


def serve(name):
    path = os.path.join(mdir, name)
    n = 0
    while True:
        try:
            fd = os.open(path, os.O_WRONLY)   # waits for a reader
        except FileNotFoundError:
            return                            # the module went (vanish)
        n += 1
        text = document(name, n)
        v = vanish_request() if name == "data.json" else None
        if v is not None:
            nbytes, hold = v
            os.write(fd, text[:nbytes])
            remove_module()
            log("vanish at byte %d of %s #%d (hold %g s)" % (nbytes, name, n, hold))
            if hold > 0:
                # a pipe's write end reports POLLERR once no reader is left
                p = select.poll()
                p.register(fd, select.POLLERR)
                t0 = time.monotonic()
                if p.poll(hold * 1000):
                    log("reader closed %d ms after the writer stalled"
                        % round(1000 * (time.monotonic() - t0)))
                else:
                    log("reader still open after %g s" % hold)
            os.close(fd)
            os._exit(0)
        try:
            os.write(fd, text)
        except BrokenPipeError:
            log("%s #%d: reader left before the document was written" % (name, n))
        os.close(fd)
        held = reader_gone_after(path)
        if held is None:
            log("%s #%d: %d bytes; reader still open after 10 s" % (name, n, len(text)))
        else:
            log("%s #%d: %d bytes; reader closed after %d ms" % (name, n, len(text), round(1000 * held)))


def on_term(sig, frame):
    remove_module()
    os._exit(0)


signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, on_term)
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
os.makedirs(mdir, exist_ok=True)
for f in ("metadata.json", "data.json"):
    p = os.path.join(mdir, f)
    if os.path.exists(p):
        os.unlink(p)
    os.mkfifo(p, 0o400)
    os.chmod(p, 0o400)
for f in ("metadata.json", "data.json"):
    threading.Thread(target=serve, args=(f,), daemon=True).start()
log("serving %s" % mdir)
while True:
    time.sleep(3600)
