#!/usr/bin/env python3
"""The layers' check, run by tools/test.sh: every `#include "..."` of the tree's C++ goes to its
own layer or to a layer above it (docs/ARCHITECTURE.md, "The layers", lists them in this order and
is checked against LAYERS below).

A file's layer is the longest entry of LAYERS its path starts with; "<name>" stands for every
folder at that place, each a layer of its own that uses none of its siblings (services/arbitration
does not use services/clock_authority: what two services share goes to a layer above both).
Tests, benchmarks, fuzzers and testing/ helpers keep their folder's rule: they use their own layer
(its testing/ helpers among it) and the layers above, with theirs; tests/ holds the tests that
cross the layers. Includes of other trees (absl, grpcpp, gtest, ...) are not checked.

    python3 tools/check_layers.py          # exit 0, or every forbidden include and exit 1
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# The layers, top first: a layer uses only the layers above it, or, where it names them, only
# those of them.
LAYERS = [
    ("proto", None),
    ("libs/base", None),
    ("libs/chess", None),
    ("libs/analysis", None),
    ("libs/laws", None),
    ("libs/clock", None),
    ("libs/seal", None),
    ("libs/record", None),
    ("libs/store", None),
    ("libs/ledger", None),
    ("libs/clock_authority", None),
    ("libs/arbitration", None),
    # The servers' framework knows no chess and no domain: the store's watch is all it carries.
    ("libs/service", ("proto", "libs/base", "libs/store")),
    ("services", None),
    ("services/<name>", None),
    ("services/arbiterd", None),
    ("tools/<name>", None),
    ("tests", None),
]

# Known exceptions, each one include of one file, until the code it names moves. Keep it tiny: an
# entry whose include is gone fails the check, so that it is removed.
ALLOWED = set()

SCANNED = ("libs", "services", "tools", "tests", "proto")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
NAMES = [name for name, _ in LAYERS]


def layer_of(path):
    """The layer's index and the unit's name (a folder for "<name>" layers), or None."""
    parts = path.split("/")
    best = None
    for index, name in enumerate(NAMES):
        pattern = name.split("/")
        exact = pattern[-1] != "<name>"
        folder = pattern if exact else pattern[:-1]
        # A file in the folder (exact), or in a folder of its (a "<name>" layer).
        if parts[:len(folder)] != folder or len(parts) <= len(pattern):
            continue
        unit = name if exact else "/".join(parts[:len(pattern)])
        # The longest match wins; an exact name over a "<name>" of the same length.
        key = (len(pattern), exact)
        if best is None or key > best[0]:
            best = (key, index, unit)
    return None if best is None else (best[1], best[2])


def may_use(user, used):
    """Whether layer `user` (index, unit) may include from layer `used`."""
    (ui, uunit), (di, dunit) = user, used
    if uunit == dunit:
        return True
    if di >= ui:
        return False
    only = LAYERS[ui][1]
    return only is None or NAMES[di] in only


def why(user, used):
    if user[0] == used[0]:
        return "%s folders do not use each other" % NAMES[user[0]]
    if used[0] > user[0]:
        return "%s is below %s: a layer uses only the layers above it" % (NAMES[used[0]],
                                                                         NAMES[user[0]])
    return "%s uses only %s of the layers above it" % (NAMES[user[0]],
                                                     ", ".join(LAYERS[user[0]][1]))


def sources(root):
    for top in SCANNED:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "bazel-")) and
                             d != "node_modules")
            for f in sorted(files):
                if f.endswith((".h", ".cc")):
                    yield os.path.relpath(os.path.join(folder, f), root)


def documented_order(root):
    """The layer names of docs/ARCHITECTURE.md's list, in its order."""
    text = open(os.path.join(root, "docs", "ARCHITECTURE.md"), encoding="utf-8").read()
    section = text.split("## The layers", 1)[1]
    block = section.split("```", 2)[1]
    names = []
    for line in block.splitlines():
        if line and not line[0].isspace():
            name = line.split()[0].rstrip("/")
            names.append("proto" if name.startswith("proto/") else name)
    return names


def check(root):
    problems = []
    if documented_order(root) != NAMES:
        problems.append("docs/ARCHITECTURE.md lists the layers %s; tools/check_layers.py has %s: "
                        "make them one order" % (documented_order(root), NAMES))
    used_exceptions = set()
    for path in sources(root):
        user = layer_of(path)
        if user is None:
            problems.append("%s: in no layer: add its folder to LAYERS in tools/check_layers.py "
                            "and to docs/ARCHITECTURE.md's list" % path)
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m or m.group(1).split("/")[0] not in SCANNED:
                    continue
                target = m.group(1)
                used = layer_of(target)
                if used is None:
                    problems.append("%s:%d: includes %s, which is in no layer" %
                                    (path, number, target))
                    continue
                if may_use(user, used):
                    continue
                if (path, target) in ALLOWED:
                    used_exceptions.add((path, target))
                    continue
                problems.append("%s:%d: %s may not use %s (#include \"%s\"): %s" %
                                (path, number, user[1], used[1], target, why(user, used)))
    for path, target in sorted(ALLOWED - used_exceptions):
        problems.append("tools/check_layers.py: ALLOWED names %s including %s, which it no longer "
                        "does (or may now): remove the entry" % (path, target))
    return problems


def main():
    problems = check(os.path.normpath(ROOT))
    for p in problems:
        print("check_layers: " + p)
    if problems:
        print("check_layers: %d forbidden includes or mismatches (the layers: docs/ARCHITECTURE.md)"
              % len(problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
