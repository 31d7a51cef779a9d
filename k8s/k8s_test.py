#!/usr/bin/env python3
"""Checks the Kubernetes manifests: every overlay renders (kubectl kustomize, when kubectl is on the
machine), every pod is hardened (non-root, read-only root filesystem, all capabilities dropped,
no privilege escalation, requests and limits), arbiterd is probed through the gRPC health service,
everything carries app.kubernetes.io labels, and base/redis.conf is the configuration the store's
tests run with (libs/store/redis.conf).

Redis (issue 15): base/redis-users.acl is libs/store/redis-users.acl (the default user off, the
store's user limited to the store's commands, none of FLUSHALL, CONFIG, KEYS, ...); Redis runs with
protected mode on, that ACL file (made from the Secret's password) and a maxmemory below its memory
limit with noeviction; its readiness probe authenticates; arbiterd names the ACL user in --store and
reads the password with --store_password_file from the same Secret, mounted."""
import glob
import os
import re
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
STORE_ACL = os.path.join(_SOURCE, "..", "libs", "store", "redis-users.acl")
# What the store's Redis user must never be allowed (issue 15).
FORBIDDEN = ("flushall", "flushdb", "config", "keys", "debug", "shutdown", "acl", "eval", "del",
             "replicaof", "slaveof", "migrate", "module", "save", "bgsave", "bgrewriteaof",
             "monitor", "client", "script|flush", "script|kill", "function", "swapdb", "sync", "psync")
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
        # Every container, init containers too: hardened and bounded; the long-running ones probed.
        for c, init in [(c, True) for c in spec.get("initContainers", [])] + [(c, False) for c in spec["containers"]]:
            sc = c.get("securityContext", {})
            check(sc.get("readOnlyRootFilesystem") is True, f"{where}: {name}/{c['name']} root fs writable")
            check(sc.get("allowPrivilegeEscalation") is False, f"{where}: {name}/{c['name']} may escalate")
            check(sc.get("capabilities", {}).get("drop") == ["ALL"], f"{where}: {name}/{c['name']} keeps capabilities")
            res = c.get("resources", {})
            check("requests" in res and "limits" in res, f"{where}: {name}/{c['name']} lacks requests/limits")
            check(init or ("readinessProbe" in c and "livenessProbe" in c), f"{where}: {name}/{c['name']} lacks probes")
        if name == "arbiterd":
            c = spec["containers"][0]
            check(c["readinessProbe"].get("grpc", {}).get("port") == 7070, f"{where}: arbiterd readiness is not gRPC health")
            args = c.get("args", [])
            if expect_auth:
                check(any(a.startswith("--auth_keys=") for a in args), f"{where}: arbiterd without --auth_keys")
                check(any(a.startswith("--tls_cert=") for a in args), f"{where}: arbiterd without TLS")
                check("--insecure_dev" not in args, f"{where}: arbiterd runs --insecure_dev")
            # arbiterd refuses --insecure_dev off loopback (issue 15): such a pod would never start.
            address = next((a.split("=", 1)[1] for a in args if a.startswith("--grpc_address=")), "")
            check("--insecure_dev" not in args or address.startswith(("127.", "[::1]", "localhost")),
                  f"{where}: arbiterd runs --insecure_dev on {address or 'its default address'}")
            grace = d["spec"]["template"]["spec"].get("terminationGracePeriodSeconds", 30)
            check(grace >= 30, f"{where}: terminationGracePeriodSeconds {grace} shorter than grace + drain")


def memory_bytes(quantity):
    units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "k": 1000, "M": 10**6, "G": 10**9,
             "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30}
    q = str(quantity)
    for suffix in sorted(units, key=len, reverse=True):
        if q.lower().endswith(suffix.lower()) and (suffix.lower() == suffix or q.endswith(suffix)):
            return int(float(q[: -len(suffix)]) * units[suffix])
    return int(q)


def secret_path(spec, container, path):
    """The Secret whose volume `container` mounts where `path` lies, or None."""
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for m in container.get("volumeMounts", []):
        if path.startswith(m["mountPath"].rstrip("/") + "/"):
            secret = volumes.get(m["name"], {}).get("secret")
            return secret.get("secretName") if secret else None
    return None


def check_redis_auth(docs, where):
    """Issue 15: Redis requires AUTH as the store's ACL user; arbiterd authenticates as it."""
    workloads = {d["metadata"]["name"]: d for d in docs if d.get("kind") in ("Deployment", "StatefulSet")}
    redis, arbiterd = workloads.get("redis"), workloads.get("arbiterd")
    check(redis is not None and arbiterd is not None, f"{where}: redis or arbiterd missing")
    if redis is None or arbiterd is None:
        return
    rspec = redis["spec"]["template"]["spec"]
    rc = next(c for c in rspec["containers"] if c["name"] == "redis")
    args = [str(a) for a in rc.get("args", [])]
    flags = dict(zip(args[1::2], args[2::2])) if args and not args[0].startswith("--") else {}
    check("--protected-mode" not in flags or flags["--protected-mode"] == "yes",
          f"{where}: redis runs with protected mode off")
    check(args and args[0] == "/etc/redis/redis.conf", f"{where}: redis does not load redis.conf")
    check(flags.get("--maxmemory-policy", "noeviction") == "noeviction", f"{where}: redis may evict")
    check("--requirepass" not in flags and "--user" not in flags,
          f"{where}: a Redis password on redis's command line")
    limit = rc.get("resources", {}).get("limits", {}).get("memory")
    check("--maxmemory" in flags, f"{where}: redis without --maxmemory")
    if "--maxmemory" in flags and limit:
        check(0 < memory_bytes(flags["--maxmemory"]) <= memory_bytes(limit) * 0.8,
              f"{where}: redis --maxmemory {flags['--maxmemory']} leaves no headroom under {limit}")
    aclfile = flags.get("--aclfile", "")
    check(aclfile != "", f"{where}: redis without --aclfile")
    # The ACL file is written by an init container from the Secret's password, into a volume the
    # redis container mounts.
    writers = [c for c in rspec.get("initContainers", []) if aclfile and aclfile in " ".join(map(str, c.get("command", []) + c.get("args", [])))]
    check(len(writers) == 1, f"{where}: no init container writes {aclfile}")
    redis_secret = None
    for w in writers:
        script = " ".join(map(str, w.get("command", []) + w.get("args", [])))
        check("redis-users.acl" in script, f"{where}: the ACL file is not made from redis-users.acl")
        check("sha256sum" in script, f"{where}: the ACL file holds the password, not its hash")
        for path in re.findall(r"(/[\w./-]*password)\b", script):
            redis_secret = secret_path(rspec, w, path) or redis_secret
    check(redis_secret is not None, f"{where}: the Redis password is not read from a mounted Secret")
    probe = " ".join(map(str, rc.get("readinessProbe", {}).get("exec", {}).get("command", [])))
    check("REDISCLI_AUTH" in probe and "--user arbiter" in probe and "PONG" in probe,
          f"{where}: the redis probe does not authenticate as the store's user (or ignores the reply)")
    ac = arbiterd["spec"]["template"]["spec"]["containers"][0]
    aargs = ac.get("args", [])
    store = next((a for a in aargs if a.startswith("--store=")), "")
    check(store.startswith("--store=redis://arbiter@"), f"{where}: arbiterd's --store names no ACL user: {store}")
    userinfo = store.split("//", 1)[-1].split("@")[0] if "@" in store else ""
    check(":" not in userinfo, f"{where}: a password in --store")
    pwfile = next((a.split("=", 1)[1] for a in aargs if a.startswith("--store_password_file=")), "")
    check(pwfile != "", f"{where}: arbiterd without --store_password_file")
    if pwfile:
        secret = secret_path(arbiterd["spec"]["template"]["spec"], ac, pwfile)
        check(secret is not None, f"{where}: arbiterd's password file is not in a mounted Secret")
        check(secret == redis_secret, f"{where}: arbiterd reads Secret {secret}, redis {redis_secret}")


def check_acl(path):
    """The store's ACL rules: the default user off, the store's user without dangerous commands."""
    with open(path) as f:
        lines = [line.split() for line in f if line.strip()]
    users = {line[1]: line[2:] for line in lines if len(line) > 1 and line[0] == "user"}
    check(len(users) == len(lines), f"{path}: a line that is not a user")
    check("off" in users.get("default", []) and "on" not in users.get("default", []),
          f"{path}: the default user is not off")
    check("nopass" not in users.get("default", []), f"{path}: the default user has nopass")
    rules = users.get("arbiter", [])
    check("on" in rules, f"{path}: no enabled user arbiter")
    check(rules.index("-@all") < min([i for i, r in enumerate(rules) if r.startswith("+")] or [len(rules)])
          if "-@all" in rules else False, f"{path}: arbiter's commands are not an allow-list")
    check("nopass" not in rules and not any(r.startswith((">", "#")) for r in rules),
          f"{path}: a password in the shared rules (it is added at start)")
    check(not any(r in ("allcommands", "allkeys", "~*", "+@all") or r.startswith("+@") for r in rules),
          f"{path}: arbiter has command categories or every key")
    allowed = {r[1:].lower() for r in rules if r.startswith("+")}
    for cmd in FORBIDDEN:
        check(cmd not in allowed and cmd.split("|")[0] not in allowed,
              f"{path}: arbiter may run {cmd.upper()}")
    check(all(r == "~arbiter:*" for r in rules if r.startswith("~")), f"{path}: arbiter's keys are not arbiter:*")


def main():
    base = load_docs(sorted(glob.glob(os.path.join(ROOT, "base", "*.yaml"))))
    check_pods([d for d in base if d.get("kind") != "Kustomization"], "base", expect_auth=True)
    check_redis_auth(base, "base")
    for overlay, auth in (("dev", False), ("prod", True)):
        docs = render(overlay)
        if docs is None:
            print(f"kubectl not on this machine: overlays/{overlay} parsed but not rendered")
            load_docs(glob.glob(os.path.join(ROOT, "overlays", overlay, "*.yaml")))
            continue
        check_pods(docs, overlay, expect_auth=auth)
        check_redis_auth(docs, overlay)
        if overlay == "prod":
            # Only arbiterd reaches Redis (the store link has no TLS: libs/store/README.md).
            policies = [d for d in docs if d.get("kind") == "NetworkPolicy"
                        and d["spec"]["podSelector"].get("matchLabels", {}).get("app.kubernetes.io/name") == "redis"]
            check(len(policies) == 1 and all(
                [f.get("podSelector", {}).get("matchLabels", {}).get("app.kubernetes.io/name") for f in rule.get("from", [])] == ["arbiterd"]
                for p in policies for rule in p["spec"].get("ingress", [])), "prod: Redis reachable by more than arbiterd")
        kinds = sorted({d["kind"] for d in docs})
        if overlay == "prod":
            for k in ("HorizontalPodAutoscaler", "NetworkPolicy", "PodDisruptionBudget"):
                check(k in kinds, f"prod lacks a {k}")
    with open(STORE_CONF) as a, open(os.path.join(ROOT, "base", "redis.conf")) as b:
        check(a.read() == b.read(), "k8s/base/redis.conf differs from libs/store/redis.conf (copy it again)")
    with open(STORE_ACL) as a, open(os.path.join(ROOT, "base", "redis-users.acl")) as b:
        check(a.read() == b.read(), "k8s/base/redis-users.acl differs from libs/store/redis-users.acl (copy it again)")
    check_acl(STORE_ACL)
    with open(STORE_CONF) as f:
        conf = dict(line.split(None, 1) for line in f if line.strip() and not line.startswith("#"))
    check(conf.get("protected-mode", "").strip() == "yes", "redis.conf: protected-mode is not yes")
    check(conf.get("maxmemory-policy", "").strip() == "noeviction", "redis.conf: maxmemory-policy is not noeviction")
    for f in failures:
        print("FAIL:", f)
    print(f"k8s manifests: {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
