"""The kubectl the manifests' tests need, and what they do on a machine without it.

The manifests use kustomize v5 (components, `labels` with `fields`, patches by label selector),
which kubectl embeds from 1.27 on; an older kubectl (Debian 12's own is 1.20) cannot render them.
There the tests say so and count as skipped, not failed: they write Bazel's test.xml
(XML_OUTPUT_FILE) with the one test case skipped, which tools/test_summary.py counts neither as
passed nor as failed, and exit 0."""
import json
import os
import re
import subprocess
import sys
from xml.sax.saxutils import quoteattr

OLDEST = (1, 27)


def too_old():
    """Why this machine's kubectl cannot render the manifests, or None when it can (or when its
    version cannot be read: then the render itself says what is wrong)."""
    out = subprocess.run(["kubectl", "version", "--client", "-o", "json"], capture_output=True, text=True)
    try:
        client = json.loads(out.stdout)["clientVersion"]
        version = tuple(int(re.sub(r"\D", "", client[part])) for part in ("major", "minor"))
    except (ValueError, KeyError, TypeError):
        return None
    if version >= OLDEST:
        return None
    return (f"kubectl {client.get('gitVersion') or '.'.join(map(str, version))} is older than "
            f"{'.'.join(map(str, OLDEST))}: its kustomize cannot render these manifests (they need kustomize "
            "v5: components, labels with fields, patches by label selector); install kubectl 1.27 or later")


def skip(test, reason):
    """Ends the test as skipped, with the reason: printed, and in Bazel's test.xml."""
    print(f"SKIPPED: {test}: {reason}")
    path = os.environ.get("XML_OUTPUT_FILE")
    if path:
        with open(path, "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                    f'<testsuites tests="1" failures="0" errors="0" skipped="1">\n'
                    f'<testsuite name={quoteattr(test)} tests="1" failures="0" errors="0" skipped="1">\n'
                    f'<testcase name={quoteattr(test)} classname={quoteattr(test)}>'
                    f'<skipped message={quoteattr(reason)}/></testcase>\n'
                    '</testsuite>\n</testsuites>\n')
    sys.exit(0)
