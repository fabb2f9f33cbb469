#!/usr/bin/env python3
"""stackgen: a staprelay event source producing CPU-profile-like records.

stackgen.py DIR [options]: writes DIR/metadata.json (prefix, one event
stream "samples" with stack/count/pid/comm fields, timestamps in ns) and
rewrites DIR/data.json atomically every --period seconds with the records
of the last --keep periods (the relay drops repeats by sequence number),
each stamped with the current time.  Stacks come from a fixed set of
--stacks distinct stacks of --frames frames each (frame names with spaces,
commas and a '%' among them), drawn Zipf-like with a seeded RNG, so runs
are reproducible in their stacks, not in their timing.  --records N stops
after N records (then keeps the last document); --seconds S after S
seconds.  --lose N skips N sequence numbers after every period (records
lost at the source, all the time).  --churn N: every second N stacks
never seen before replace the N oldest of the set (each new stack is drawn
at least once in the second it appears): a profile whose stacks keep
changing, as bench/fleet/churn measures the stacks counter's cost."""
import argparse, json, os, random, sys, time

p = argparse.ArgumentParser()
p.add_argument("dir")
p.add_argument("--prefix", default="prof")
p.add_argument("--rate", type=float, default=200, help="records per second")
p.add_argument("--period", type=float, default=0.2)
p.add_argument("--keep", type=int, default=3)
p.add_argument("--stacks", type=int, default=12)
p.add_argument("--frames", type=int, default=4)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--records", type=int, default=0)
p.add_argument("--seconds", type=float, default=0)
p.add_argument("--lose", type=int, default=0)
p.add_argument("--host", default="", help="a root frame naming the host")
p.add_argument("--dump", default="", help="append each record's stack and weight")
p.add_argument("--realistic", action="store_true",
               help="frames named like C++/kernel symbols (12-40 bytes), stacks sharing "
                    "their root frames as a real profile's do")
p.add_argument("--churn", type=int, default=0,
               help="new stacks per second, replacing the oldest")
a = p.parse_args()

rng = random.Random(a.seed)
words = ["main", "do work", "f(a,b)", "operator new(unsigned long)", "50%",
         "std::map<int, int>::find", "read_[k]", "caf\u00e9", "x"]
def plain_stack(i):
    frames = ([a.host] if a.host else []) + ["main"]
    for k in range(a.frames - 1):
        frames.append("%s_%d" % (words[(i + k) % len(words)], (i * 7 + k) % 5))
    frames[-1] = "leaf%d %s" % (i, words[i % len(words)])
    return ";".join(frames)
make_stack = plain_stack
if a.realistic:
    parts = ["std", "boost", "folly", "ext4", "vfs", "tcp", "http", "json", "db",
             "Scheduler", "Request", "Buffer", "Parser", "Index", "Cache", "Worker"]
    verbs = ["read", "write", "parse", "lookup", "handle", "dispatch", "alloc",
             "flush", "encode", "decode", "submit", "poll", "wait", "copy"]
    vocab = []
    for v in range(600):
        n = "%s::%s::%s_%d" % (rng.choice(parts), rng.choice(parts), rng.choice(verbs), v)
        if v % 5 == 0:
            n += "_[k]"
        vocab.append(n[:40])
    def real_stack(i):
        # frame k is shared by the stacks with the same i >> (11 - k): a tree;
        # under --churn the leaf names i, so every new stack is distinct
        frames = [vocab[((i >> max(0, 11 - k)) * 37 + k * 101) % len(vocab)]
                  for k in range(a.frames)]
        if a.churn:
            frames[-1] = "%s_%d" % (frames[-1][:32], i)
        return ";".join(frames)
    make_stack = real_stack
stacks = [make_stack(i) for i in range(a.stacks)]
weights = [1.0 / (i + 1) for i in range(a.stacks)]

os.makedirs(a.dir, exist_ok=True)
def atomic(name, doc):
    tmp = os.path.join(a.dir, "." + name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.rename(tmp, os.path.join(a.dir, name))

atomic("metadata.json", {"prefix": a.prefix, "metrics": [
    {"name": "samples", "type": "event", "pointer": "/samples",
     "description": "synthetic CPU samples", "timestamp": "/ts",
     "sequence": "/seq", "fields": [
        {"name": "stack", "pointer": "/stack", "type": "stack"},
        {"name": "count", "pointer": "/count", "type": "integer", "optional": True},
        {"name": "pid", "pointer": "/pid", "type": "integer"},
        {"name": "comm", "pointer": "/comm", "type": "string"}]}]})
seq, written, periods, start = 0, 0, [], time.time()
next_churn, next_id = 1.0, a.stacks
while True:
    t0 = time.time()
    n = int(a.rate * a.period)
    if a.records:
        n = min(n, a.records - written)
    recs = []
    fresh = []
    if a.churn and t0 - start >= next_churn:
        # the oldest go, never-seen stacks come; the weights stay with the
        # positions, so the new stacks start among the lightest
        next_churn += 1.0
        born = [make_stack(next_id + j) for j in range(a.churn)]
        next_id += a.churn
        stacks = stacks[a.churn:] + born
        fresh = list(range(a.stacks - a.churn, a.stacks))
    for j in range(n):
        seq += 1
        s = fresh[j] if j < len(fresh) else rng.choices(range(a.stacks), weights)[0]
        r = {"seq": seq, "ts": int((t0 - rng.random() * a.period) * 1e9),
             "stack": stacks[s], "pid": 100 + s, "comm": "gen"}
        if rng.random() < 0.1:
            r["count"] = rng.randint(2, 4)
        recs.append(r)
    written += n
    if a.dump:
        with open(a.dump, "a") as f:
            for r in recs:
                f.write("%s %d\n" % (r["stack"], r.get("count", 1)))
    periods = (periods + [recs])[-a.keep:]
    atomic("data.json", {"samples": [r for p in periods for r in p]})
    seq += a.lose
    if (a.records and written >= a.records) or \
       (a.seconds and time.time() - start >= a.seconds):
        break
    time.sleep(max(0.0, a.period - (time.time() - t0)))
