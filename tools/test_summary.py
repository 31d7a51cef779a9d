#!/usr/bin/env python3
"""Sums test cases over the gtest XML files Bazel leaves in bazel-testlogs: prints "passed failed".
A test binary that crashed still has a test.xml with errors="1"; it counts as failed.
With a second argument, a file of test labels (bazel query 'tests(//...)'), only those targets'
logs count: the output base keeps the logs of targets that no longer exist."""
import os
import sys
import xml.etree.ElementTree as ET

root_dir = sys.argv[1] if len(sys.argv) > 1 else "bazel-testlogs"
targets = None
if len(sys.argv) > 2:
    labels = [l.strip() for l in open(sys.argv[2]) if l.strip().startswith("//")]
    if labels:  # an empty list means the query failed: count every log rather than none
        targets = {l[2:].replace(":", "/") for l in labels}
passed = failed = 0
for dirpath, dirs, files in os.walk(root_dir, followlinks=True):
    if "test.xml" not in files:
        continue
    if any(d.startswith("shard_") for d in dirs):
        continue  # a target sharded now: its own test.xml is from before, its shards count
    target = os.path.relpath(dirpath, root_dir)
    if os.path.basename(target).startswith("shard_"):  # shard_1_of_4/ of a sharded target
        target = os.path.dirname(target)
    if targets is not None and target not in targets:
        continue
    path = os.path.join(dirpath, "test.xml")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        failed += 1
        print(f"FAIL: unreadable {path}", file=sys.stderr)
        continue
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    tests = failures = errors = skipped = 0
    for s in suites:
        tests += int(s.get("tests", 0))
        failures += int(s.get("failures", 0))
        errors += int(s.get("errors", 0))
        skipped += int(s.get("skipped", 0)) + int(s.get("disabled", 0))
    if root.tag == "testsuites" and not suites:
        tests = int(root.get("tests", 0))
        failures = int(root.get("failures", 0))
        errors = int(root.get("errors", 0))
    bad = failures + errors
    if bad:
        print(f"FAIL: {os.path.relpath(dirpath, root_dir)}: {bad} failed", file=sys.stderr)
    failed += bad
    passed += max(0, tests - bad - skipped)
print(passed, failed)
