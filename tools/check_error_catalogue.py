#!/usr/bin/env python3
"""The error catalogue's check (issue 11.4), run by tools/test.sh.

Every stable code ("ERR_...") is declared once, with its canonical status, in its layer's
errors.h; code outside the catalogues names codes only through them, never by a literal (tests,
which are clients, may); docs/ERRORS.md lists every code. `--write` regenerates docs/ERRORS.md.
"""
import glob
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
ENTRY = re.compile(
    r'((?://[^\n]*\n)+)inline constexpr base::ErrorSpec (kErr\w+)\{\s*"(ERR_[A-Z0-9_]+)",\s*'
    r'absl::StatusCode::k(\w+)\}')
LITERAL = re.compile(r'"(ERR_[A-Z0-9_]+)"')
GRPC = {"InvalidArgument": "INVALID_ARGUMENT", "FailedPrecondition": "FAILED_PRECONDITION",
        "NotFound": "NOT_FOUND", "AlreadyExists": "ALREADY_EXISTS", "Aborted": "ABORTED",
        "Unavailable": "UNAVAILABLE", "Internal": "INTERNAL", "PermissionDenied":
        "PERMISSION_DENIED", "Unauthenticated": "UNAUTHENTICATED", "OutOfRange": "OUT_OF_RANGE",
        "ResourceExhausted": "RESOURCE_EXHAUSTED", "Cancelled": "CANCELLED",
        "DeadlineExceeded": "DEADLINE_EXCEEDED"}


def catalogues():
    entries = []  # (code, status, meaning, header)
    for header in sorted(glob.glob(os.path.join(ROOT, "**/errors.h"), recursive=True)):
        if "/bazel-" in header:
            continue
        rel = os.path.relpath(header, ROOT)
        text = open(header).read()
        for m in ENTRY.finditer(text):
            comment = " ".join(l.strip()[2:].strip() for l in m.group(1).strip().split("\n"))
            entries.append((m.group(3), m.group(4), comment, rel))
    return entries


def literals_outside():
    found = []
    for d in ("libs", "services", "tools"):
        for path in glob.glob(os.path.join(ROOT, d, "**/*.*"), recursive=True):
            rel = os.path.relpath(path, ROOT)
            if not rel.endswith((".cc", ".h")) or rel.endswith(("_test.cc", "/errors.h")):
                continue
            if "/testing/" in rel:
                continue
            for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                code = line.split("//", 1)[0] if line.split("//", 1)[0].count('"') % 2 == 0 else line
                for m in LITERAL.finditer(code):
                    found.append(f"{rel}:{n}: {m.group(1)}")
    return found


def document(entries):
    out = ["# Error codes", "",
           "Every error Arbiter answers carries a stable code in an `arbiter.v1.ErrorInfo` in the",
           "status details (and in `{\"error\": {\"code\": ...}}` in arbiterctl's JSON). Clients",
           "match on the code, never on the message. Each code has one canonical gRPC status. The",
           "list is generated from the catalogues (`errors.h` of each layer) by",
           "`tools/check_error_catalogue.py --write`; `tools/test.sh` checks that it is current.",
           "A status without a catalogued code reads as `ERR_<CANONICAL_CODE>` (e.g.",
           "`ERR_INVALID_ARGUMENT`).", ""]
    by_header = {}
    for e in entries:
        by_header.setdefault(e[3], []).append(e)
    for header in sorted(by_header):
        out += [f"## `{header}`", "", "| code | gRPC status | meaning |", "|---|---|---|"]
        for code, status, meaning, _ in sorted(by_header[header]):
            out.append(f"| `{code}` | {GRPC.get(status, status)} | {meaning} |")
        out.append("")
    return "\n".join(out)


def main():
    entries = catalogues()
    problems = []
    seen = {}
    for code, status, _, header in entries:
        if code in seen:
            problems.append(f"{code} is declared in {seen[code]} and {header}")
        seen[code] = header
    problems += [f"{l}: a literal code outside the catalogues" for l in literals_outside()]
    doc_path = os.path.join(ROOT, "docs/ERRORS.md")
    doc = document(entries)
    if "--write" in sys.argv:
        open(doc_path, "w").write(doc)
    elif not os.path.exists(doc_path) or open(doc_path).read() != doc:
        problems.append("docs/ERRORS.md is not current: run tools/check_error_catalogue.py --write")
    for p in problems:
        print("error catalogue:", p)
    print(f"error catalogue: {len(entries)} codes, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
