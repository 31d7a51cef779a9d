#!/usr/bin/env python3
"""The error catalogue's check, run by tools/test.sh.

Every stable code ("ERR_...") is declared once, with its canonical status, in its layer's
errors.json (bazel/error_catalogue.bzl generates the layer's errors.h from it); code outside the
catalogues names codes only through them, never by a literal (tests, which are clients, may);
docs/ERRORS.md lists every code. `--write` regenerates docs/ERRORS.md.
"""
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
FIELDS = ("code", "name", "status", "meaning")
LITERAL = re.compile(r'"(ERR_[A-Z0-9_]+)"')
GRPC = {"InvalidArgument": "INVALID_ARGUMENT", "FailedPrecondition": "FAILED_PRECONDITION",
        "NotFound": "NOT_FOUND", "AlreadyExists": "ALREADY_EXISTS", "Aborted": "ABORTED",
        "Unavailable": "UNAVAILABLE", "Internal": "INTERNAL", "PermissionDenied":
        "PERMISSION_DENIED", "Unauthenticated": "UNAUTHENTICATED", "OutOfRange": "OUT_OF_RANGE",
        "ResourceExhausted": "RESOURCE_EXHAUSTED", "Cancelled": "CANCELLED",
        "DeadlineExceeded": "DEADLINE_EXCEEDED"}


def catalogue_files():
    """Every errors.json of the tree, as paths from the root (Bazel's output trees left out)."""
    found = []
    for top, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "bazel-")))
        if "errors.json" in files:
            found.append(os.path.relpath(os.path.join(top, "errors.json"), ROOT))
    return sorted(found)


def catalogues(problems):
    # (code, status, meaning, header, catalogue): the header is the generated file's include path.
    entries = []
    for rel in catalogue_files():
        header = rel[:-len(".json")] + ".h"
        try:
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                errors = json.load(f)["errors"]
        except (ValueError, KeyError, TypeError) as e:
            problems.append(f"{rel} is no catalogue: {e!r}")
            continue
        for e in errors:
            missing = [k for k in FIELDS if not isinstance(e.get(k), str)]
            if missing:
                problems.append(f"{rel}: an entry without {', '.join(missing)}: {e}")
                continue
            entries.append((e["code"], e["status"][1:], e["meaning"], header, rel))
    return entries


def literals_outside():
    found = []
    for d in ("libs", "services", "tools"):
        for top, dirs, files in os.walk(os.path.join(ROOT, d)):
            dirs[:] = sorted(dirs)
            for name in sorted(files):
                rel = os.path.relpath(os.path.join(top, name), ROOT)
                if not rel.endswith((".cc", ".h")) or rel.endswith("_test.cc"):
                    continue
                if "/testing/" in rel:
                    continue
                with open(os.path.join(ROOT, rel), encoding="utf-8", errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        before = line.split("//", 1)[0]
                        code = before if before.count('"') % 2 == 0 else line
                        for m in LITERAL.finditer(code):
                            found.append(f"{rel}:{n}: {m.group(1)}")
    return found


def document(entries):
    out = ["# Error codes", "",
           "Every error Arbiter answers carries a stable code in its status details",
           "(`grpc-status-details-bin`): a standard `google.rpc.Status` whose details hold one",
           "`google.rpc.ErrorInfo` with `reason` = the code and `domain` = `arbiter.v1` (AIP-193;",
           "a refused move adds `metadata.illegal_move_reason`). The bare `arbiter.v1.ErrorInfo` is",
           "no longer the details: it stays only as the error field of replies that carry one per",
           "item (`ValidateMove`, `SubmitMoves`, ...). arbiterctl's JSON has",
           "`{\"error\": {\"code\": ...}}`. Clients match on the code, never on the message. Each",
           "code has one canonical gRPC status. The",
           "list is generated from the catalogues (each layer's `errors.json`, whose constants C++ code",
           "includes from the generated `errors.h` named in each heading) by",
           "`tools/check_error_catalogue.py --write`; `tools/test.sh` checks that it is current.",
           "A status without a catalogued code reads as `ERR_<CANONICAL_CODE>` (e.g.",
           "`ERR_INVALID_ARGUMENT`).", ""]
    by_header = {}
    for e in entries:
        by_header.setdefault(e[3], []).append(e)
    for header in sorted(by_header):
        out += [f"## `{header}`", "", "| code | gRPC status | meaning |", "|---|---|---|"]
        for code, status, meaning, _, _ in sorted(by_header[header]):
            out.append(f"| `{code}` | {GRPC.get(status, status)} | {meaning} |")
        out.append("")
    return "\n".join(out)


def main():
    problems = []
    entries = catalogues(problems)
    seen = {}
    for code, _, _, _, catalogue in entries:
        if code in seen:
            problems.append(f"{code} is declared in {seen[code]} and {catalogue}")
        seen[code] = catalogue
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
