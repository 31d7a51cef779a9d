#!/usr/bin/env python3
"""Writes a layer's errors.h from its errors.json (see bazel/error_catalogue.bzl).

    gen_errors_header.py libs/analysis/errors.json OUT.h

The JSON path, relative to the workspace root, names the header: its include path
(libs/analysis/errors.h) and its include guard. The catalogue holds

    {"layer": "what the layer is",
     "namespace": "analysis",
     "also_answers": [{"name": "base::kErrBadArgument", "header": "libs/base/errors.h"}],
     "errors": [{"code": "ERR_BAD_LIMITS", "name": "kErrBadLimits",
                 "status": "kInvalidArgument", "meaning": "search or engine limits out of range"}]}

("also_answers" is optional: codes of other layers this one answers too). The header is laid out
as clang-format (.clang-format: Google, 100 columns) would lay it out. Python 3, stdlib only.
"""
import json
import os
import re
import sys

COLUMNS = 100
GENERATOR = "bazel/gen_errors_header.py"
STATUSES = {"kCancelled", "kUnknown", "kInvalidArgument", "kDeadlineExceeded", "kNotFound",
            "kAlreadyExists", "kPermissionDenied", "kResourceExhausted", "kFailedPrecondition",
            "kAborted", "kOutOfRange", "kUnimplemented", "kInternal", "kUnavailable", "kDataLoss",
            "kUnauthenticated"}
ABOUT = ("the stable error codes of this layer, each with its canonical status. "
         "Clients match on the code, never on the message; docs/ERRORS.md lists every code of "
         "every layer. A status is made with base::Error(kErrX, \"message\").")


def comment(text):
    """`text` as // lines, filled to the column limit."""
    lines, line = [], "//"
    for word in text.split():
        if line != "//" and len(line) + 1 + len(word) > COLUMNS:
            lines.append(line)
            line = "//"
        line += " " + word
    return lines + [line]


def declaration(name, code, status):
    """One constant, broken where clang-format breaks it."""
    head = f"inline constexpr base::ErrorSpec {name}{{"
    code_part, status_part = f'"{code}",', f"absl::StatusCode::{status}}};"
    one = f"{head}{code_part} {status_part}"
    if len(one) <= COLUMNS:
        return [one]
    if len(head) + len(code_part) <= COLUMNS and len(head) + len(status_part) <= COLUMNS:
        return [head + code_part, " " * len(head) + status_part]
    return [head, f"    {code_part} {status_part}"]


def fail(json_path, message):
    sys.exit(f"{json_path}: {message}")


def header(json_path, catalogue):
    package = os.path.dirname(os.path.normpath(json_path))
    guard = "ARBITER_" + re.sub(r"[^A-Za-z0-9]", "_", package).upper() + "_ERRORS_H_"
    namespace = catalogue["namespace"]
    also = catalogue.get("also_answers", [])
    errors = catalogue["errors"]
    for e in errors:
        if not re.fullmatch(r"ERR_[A-Z0-9_]+", e["code"]):
            fail(json_path, f"{e['code']!r} is no code (ERR_ and capitals)")
        if not re.fullmatch(r"kErr\w+", e["name"]):
            fail(json_path, f"{e['name']!r} is no constant name (kErr...)")
        if e["status"] not in STATUSES:
            fail(json_path, f"{e['status']!r} is no absl::StatusCode (kInvalidArgument, ...)")
    includes = sorted({"absl/status/status.h", "libs/base/error.h"} | {a["header"] for a in also})

    out = comment(f"{catalogue['layer']}: {ABOUT}")
    out += comment(f"Generated from {json_path} by {GENERATOR}; do not edit.")
    out += [f"#ifndef {guard}", f"#define {guard}", ""]
    out += [f'#include "{i}"' for i in includes]
    out += ["", f"namespace {namespace} {{", ""]
    if also:
        usings = [f"using {a['name']};" for a in also]
        width = max(len(u) for u in usings)
        out += [u.ljust(width) + "  // this layer answers it too" for u in usings] + [""]
    for e in errors:
        out += comment(e["meaning"]) + declaration(e["name"], e["code"], e["status"])
    out += ["", f"}}  // namespace {namespace}", "", f"#endif  // {guard}"]
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    json_path, out_path = argv[1], argv[2]
    with open(json_path, encoding="utf-8") as f:
        catalogue = json.load(f)
    text = header(json_path, catalogue)
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv)
