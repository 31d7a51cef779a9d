#!/usr/bin/env python3
"""On a machine whose kubectl is older than 1.27 (Debian 12's is 1.20), //k8s:k8s_test says so and
counts as skipped: it exits 0 and writes a test.xml whose one test case is skipped (which
tools/test_summary.py counts neither as passed nor as failed). A stand-in kubectl, first on PATH,
reports the version; kubectl_version.too_old() is checked on both sides of 1.27."""
import os
import stat
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from k8s import kubectl_version  # noqa: E402 (the workspace root first)

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def fake_kubectl(directory, minor):
    """A kubectl that reports 1.<minor> (as `kubectl version --client -o json` does) and fails at
    anything else, as a kustomize too old for the manifests would."""
    path = os.path.join(directory, "kubectl")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n"
                'if [ "$1" = version ]; then\n'
                f'  echo \'{{"clientVersion": {{"major": "1", "minor": "{minor}", "gitVersion": "v1.{minor}.15"}}}}\'\n'
                "  exit 0\nfi\n"
                "echo 'Error: json: unknown field \"components\"' >&2\nexit 1\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def with_kubectl(minor):
    directory = tempfile.mkdtemp()
    fake_kubectl(directory, minor)
    return dict(os.environ, PATH=directory + os.pathsep + os.environ.get("PATH", ""))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for minor, old in ((20, True), (26, True), ("27", False), ("32+", False)):
        env = with_kubectl(minor)
        saved, os.environ["PATH"] = os.environ["PATH"], env["PATH"]
        try:
            reason = kubectl_version.too_old()
        finally:
            os.environ["PATH"] = saved
        check(bool(reason) == old, f"kubectl 1.{minor}: too_old() says {reason!r}")

    xml = os.path.join(tempfile.mkdtemp(), "test.xml")
    run = subprocess.run([sys.executable, os.path.join(here, "k8s_test.py")], capture_output=True, text=True,
                         env=dict(with_kubectl(20), XML_OUTPUT_FILE=xml))
    out = run.stdout + run.stderr
    check(run.returncode == 0, f"k8s_test under kubectl 1.20 exits {run.returncode}, not 0 (skipped):\n{out}")
    check("SKIPPED" in out and "v1.20.15 is older than 1.27" in out, f"k8s_test under kubectl 1.20 does not say why:\n{out}")
    if os.path.exists(xml):
        suite = ET.parse(xml).getroot().find("testsuite")
        check(suite is not None and suite.get("tests") == "1" and suite.get("skipped") == "1"
              and suite.get("failures") == "0" and suite.find("testcase/skipped") is not None,
              f"the test.xml does not count one skipped test: {open(xml).read()}")
    else:
        check(False, "k8s_test under kubectl 1.20 wrote no test.xml (XML_OUTPUT_FILE)")
    print("\n".join([f"FAIL: {f}" for f in failures] + [f"kubectl_version_test: {len(failures)} problems"]))
    return int(bool(failures))


if __name__ == "__main__":
    sys.exit(main())
