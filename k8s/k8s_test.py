#!/usr/bin/env python3
"""Checks the Kubernetes manifests: every overlay renders (kubectl kustomize, when kubectl is on the
machine), every pod is hardened (non-root, read-only root filesystem, all capabilities dropped,
no privilege escalation, requests and limits), arbiterd is probed through the gRPC health service,
everything carries app.kubernetes.io labels, and base/redis.conf is the configuration the store's
tests run with (libs/store/redis.conf)."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

# Bazel's runfiles are symlinks, which kustomize's load restrictor refuses: work on a real copy.
_SOURCE = os.path.dirname(os.path.abspath(__file__))
_COPY = tempfile.mkdtemp()
ROOT = os.path.join(_COPY, "k8s")
shutil.copytree(_SOURCE, ROOT, symlinks=False)
STORE_CONF = os.path.join(_SOURCE, "..", "libs", "store", "redis.conf")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def load_docs(paths):
    docs = []
    for p in paths:
        with open(p) as f:
            docs += [d for d in yaml.safe_load_all(f) if d]
    return docs


def render(overlay):
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return None
    out = subprocess.run([kubectl, "kustomize", os.path.join(ROOT, "overlays", overlay)],
                         capture_output=True, text=True)
    check(out.returncode == 0, f"kubectl kustomize overlays/{overlay}: {out.stderr.strip()}")
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def check_pods(docs, where, expect_auth):
    for d in docs:
        kind = d.get("kind")
        name = d.get("metadata", {}).get("name")
        check("app.kubernetes.io/name" in d.get("metadata", {}).get("labels", {}) or kind in (
            "Namespace", "ConfigMap", "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy"),
              f"{where}: {kind}/{name} lacks app.kubernetes.io/name")
        if kind not in ("Deployment", "StatefulSet"):
            continue
        spec = d["spec"]["template"]["spec"]
        check(spec.get("securityContext", {}).get("runAsNonRoot") is True, f"{where}: {name} may run as root")
        check(spec.get("automountServiceAccountToken") is False, f"{where}: {name} mounts a service account token")
        for c in spec["containers"]:
            sc = c.get("securityContext", {})
            check(sc.get("readOnlyRootFilesystem") is True, f"{where}: {name}/{c['name']} root fs writable")
            check(sc.get("allowPrivilegeEscalation") is False, f"{where}: {name}/{c['name']} may escalate")
            check(sc.get("capabilities", {}).get("drop") == ["ALL"], f"{where}: {name}/{c['name']} keeps capabilities")
            res = c.get("resources", {})
            check("requests" in res and "limits" in res, f"{where}: {name}/{c['name']} lacks requests/limits")
            check("readinessProbe" in c and "livenessProbe" in c, f"{where}: {name}/{c['name']} lacks probes")
        if name == "arbiterd":
            c = spec["containers"][0]
            check(c["readinessProbe"].get("grpc", {}).get("port") == 7070, f"{where}: arbiterd readiness is not gRPC health")
            args = c.get("args", [])
            if expect_auth:
                check(any(a.startswith("--auth_keys=") for a in args), f"{where}: arbiterd without --auth_keys")
                check(any(a.startswith("--tls_cert=") for a in args), f"{where}: arbiterd without TLS")
                check("--insecure_dev" not in args, f"{where}: arbiterd runs --insecure_dev")
            grace = d["spec"]["template"]["spec"].get("terminationGracePeriodSeconds", 30)
            check(grace >= 30, f"{where}: terminationGracePeriodSeconds {grace} shorter than grace + drain")


def main():
    base = load_docs(sorted(glob.glob(os.path.join(ROOT, "base", "*.yaml"))))
    check_pods([d for d in base if d.get("kind") != "Kustomization"], "base", expect_auth=True)
    for overlay, auth in (("dev", False), ("prod", True)):
        docs = render(overlay)
        if docs is None:
            print(f"kubectl not on this machine: overlays/{overlay} parsed but not rendered")
            load_docs(glob.glob(os.path.join(ROOT, "overlays", overlay, "*.yaml")))
            continue
        check_pods(docs, overlay, expect_auth=auth)
        kinds = sorted({d["kind"] for d in docs})
        if overlay == "prod":
            for k in ("HorizontalPodAutoscaler", "NetworkPolicy", "PodDisruptionBudget"):
                check(k in kinds, f"prod lacks a {k}")
    with open(STORE_CONF) as a, open(os.path.join(ROOT, "base", "redis.conf")) as b:
        check(a.read() == b.read(), "k8s/base/redis.conf differs from libs/store/redis.conf (copy it again)")
    for f in failures:
        print("FAIL:", f)
    print(f"k8s manifests: {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
