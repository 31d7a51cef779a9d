#!/usr/bin/env python3
"""Where an append-only file's bytes go: its commands grouped by name and the kind of key they
write (the part after the hash tag: `log`, `game`, `index`, `deadlines`, ...; an HSET also by its
first field when it is a game's own hash), with their bytes, their count and their bytes per append (the log's XADDs).

  arbitration_bench --games=1024 --duration=5s --dir=/tmp/aof --server_flags=...
  tests/bench/aof_by_command.py /tmp/aof/appendonlydir/appendonly.aof.1.incr.aof
"""
import collections
import sys


def commands(data):
    """Each command of a RESP file: (its bytes, its arguments)."""
    at = 0
    while at < len(data):
        start = at
        end = data.index(b"\r\n", at)
        if data[at:at + 1] != b"*":
            raise ValueError(f"not a command at byte {at}")
        count, at = int(data[at + 1:end]), end + 2
        args = []
        for _ in range(count):
            end = data.index(b"\r\n", at)
            length, at = int(data[at + 1:end]), end + 2
            args.append(data[at:at + length])
            at += length + 2
        yield at - start, args


def kind(args):
    name = args[0].upper().decode()
    if len(args) < 2:
        return name
    key = args[1].decode("latin1")
    part = key.split("}:", 1)[1] if "}:" in key else key
    what = f"{name} {part.split(':')[0]}"
    if name == "HSET" and len(args) > 2 and part.split(":")[0] in ("game", "archived"):
        what += " " + args[2].decode("latin1")
    return what


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    size, count = collections.Counter(), collections.Counter()
    for n, args in commands(data):
        k = kind(args)
        size[k] += n
        count[k] += 1
    appends = max(1, count["XADD log"])
    for k, n in size.most_common():
        print(f"{n:>12} B {count[k]:>9}x {n / appends:9.1f} B/append  {k}")
    print(f"{sum(size.values()):>12} B in all, {sum(size.values()) / appends:.1f} B per append "
          f"({appends} appends)")


if __name__ == "__main__":
    main()
