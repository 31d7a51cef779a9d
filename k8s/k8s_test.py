#!/usr/bin/env python3
"""Checks the Kubernetes manifests: every overlay renders (kubectl kustomize, when kubectl is on the
machine), every pod is hardened (non-root, read-only root filesystem, all capabilities dropped,
no privilege escalation, requests and limits), arbiterd is probed through the gRPC health service,
everything carries app.kubernetes.io labels, and base/redis.conf is the configuration the store's
tests run with (libs/store/redis.conf).

Redis: base/redis-users.acl is libs/store/redis-users.acl (the default user off, the
store's user limited to the store's commands, none of FLUSHALL, CONFIG, KEYS, EVAL, SCRIPT,
FUNCTION, ...: it FCALLs the functions of base/redis_functions.lua, which is
libs/store/redis_functions.lua and which the redis container loads at start as the ACL user
`functions`, whose Secret arbiterd never mounts); Redis runs with
protected mode on, that ACL file (made from the Secret's password) and a maxmemory below its memory
limit with noeviction; its readiness probe authenticates; arbiterd names the ACL user in --store and
reads the password with --store_password_file from the same Secret, mounted.

Operations: every rendered overlay (dev, prod, and base with each component of
components/ on its own) is validated offline against the Kubernetes API schemas and the
prometheus-operator CRDs (tools/k8s-schemas/validate.js: unknown kinds, unknown fields, wrong types),
and the validator is shown to reject broken manifests; every container of every pod template meets
the restricted Pod Security Standard, which both namespaces enforce; prod denies all traffic by
default and opens per workload only what each needs; the HPA owns arbiterd's replica count (no
spec.replicas to fight it) and a PodDisruptionBudget leaves it serving; prod recycles gRPC
connections (--grpc_max_connection_age) so clients rebalance; the kubelet's gRPC probes reach a
plaintext port.

Secure defaults: prod's arbiterd runs with --jwt_audience and --jwt_issuer (non-empty, through the
ConfigMap arbiterd-auth) and --rate_limit_qps (1 to 10000 calls a second per caller), and the check
is shown to fail without each.

kubectl (with kustomize v5) and node, with tools/k8s-schemas/node_modules (tools/setup.sh runs
`npm ci` there), must be on the machine: the test fails, with the reason, when one is missing."""
import copy
import glob
import json
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
STORE_FUNCTIONS = os.path.join(_SOURCE, "..", "libs", "store", "redis_functions.lua")
# What the store's Redis user must never be allowed, nor any subcommand of these: no
# code of its own on Redis either (EVAL, SCRIPT LOAD + EVALSHA, FUNCTION LOAD: a script that
# loops stalls Redis, BUSY); it calls the functions an administrator loaded (FCALL).
FORBIDDEN = ("flushall", "flushdb", "config", "keys", "debug", "shutdown", "acl", "eval", "del",
             "replicaof", "slaveof", "migrate", "module", "save", "bgsave", "bgrewriteaof",
             "monitor", "client", "script", "function", "swapdb", "sync", "psync", "evalsha",
             "eval_ro", "evalsha_ro")
# The validator and its packages: node resolves node_modules from the script's real path (the
# checkout's tools/k8s-schemas/, where tools/setup.sh installed them).
VALIDATOR = os.path.realpath(os.path.join(_SOURCE, "..", "tools", "k8s-schemas", "validate.js"))
COMPONENTS = sorted(d for d in os.listdir(os.path.join(ROOT, "components"))
                    if os.path.exists(os.path.join(ROOT, "components", d, "kustomization.yaml")))
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


def render(directory):
    """`kubectl kustomize` of a directory under ROOT: (its YAML text, its objects)."""
    out = subprocess.run(["kubectl", "kustomize", os.path.join(ROOT, directory)],
                         capture_output=True, text=True)
    check(out.returncode == 0, f"kubectl kustomize {directory}: {out.stderr.strip()}")
    return out.stdout, [d for d in yaml.safe_load_all(out.stdout) if d]


def component_alone(name):
    """A kustomization of the base with one component: each component must render (and validate)
    on its own, not only beside the others in prod."""
    directory = os.path.join("_checks", name)
    os.makedirs(os.path.join(ROOT, directory), exist_ok=True)
    with open(os.path.join(ROOT, directory, "kustomization.yaml"), "w") as f:
        yaml.safe_dump({"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                        "namespace": "arbiter-check", "resources": ["../../base"],
                        "components": [f"../../components/{name}"]}, f)
    return directory


def validate(texts):
    """Runs the schema validator on {label: YAML text}; returns (exit code, output)."""
    paths = []
    for label, text in texts.items():
        path = os.path.join(_COPY, label.replace("/", "_") + ".rendered.yaml")
        with open(path, "w") as f:
            f.write(text)
        paths.append(path)
    out = subprocess.run(["node", VALIDATOR] + paths, capture_output=True, text=True)
    return out.returncode, out.stdout + out.stderr


def check_validator_rejects(docs):
    """The validator must catch what a typo or a wrong type in a manifest would be: each broken copy
    of a rendered object is reported, at the broken field."""
    deployment = next(d for d in docs if d.get("kind") == "Deployment")
    broken = []

    def mutant(doc, mutate, expect):
        d = copy.deepcopy(doc)
        d["metadata"]["name"] = f"broken-{len(broken)}"
        mutate(d)
        broken.append((d, expect))

    def container(d):
        return d["spec"]["template"]["spec"]["containers"][0]

    mutant(deployment, lambda d: container(d)["ports"][0].update(containerPort="x"),
           "containers/0/ports/0/containerPort: must be integer")
    mutant(deployment, lambda d: d["spec"].update(replica=3), "/spec/replica: unknown field")
    mutant(deployment, lambda d: container(d)["securityContext"].update(runAsNonroot=True),
           "securityContext/runAsNonroot: unknown field")
    mutant(deployment, lambda d: d["spec"]["template"]["spec"].pop("containers"),
           'missingProperty":"containers"')
    mutant(deployment, lambda d: container(d)["securityContext"].update(seccompProfile={"type": "Default"}),
           "seccompProfile/type: must be equal to one of the allowed values")
    mutant(deployment, lambda d: d.update(kind="Deploymnet"), "unknown kind Deploymnet")
    mutant(deployment, lambda d: d.update(apiVersion="apps/v2"), "no schema for apiVersion apps/v2")
    # A CRD's schema (prometheus-operator), as strict as the built-in kinds'.
    for monitor in [d for d in docs if d.get("kind") == "ServiceMonitor"][:1]:
        mutant(monitor, lambda d: d["spec"]["endpoints"][0].update(intervall="30s"),
               "/spec/endpoints/0/intervall: unknown field")
    for doc, expect in broken:
        rc, out = validate({"broken": yaml.safe_dump(doc)})
        check(rc != 0 and expect in out, f"validator accepts a broken manifest (want {expect!r}): {out.strip()}")
    rc, out = validate({"intact": yaml.safe_dump(deployment)})
    check(rc == 0, f"validator rejects the intact Deployment: {out.strip()}")


def pod_templates(docs):
    """(where, pod spec) of every pod the objects would run."""
    for d in docs:
        kind, spec = d.get("kind"), d.get("spec", {})
        name = f"{kind}/{d.get('metadata', {}).get('name')}"
        if kind == "Pod":
            yield name, spec
        elif kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
            yield name, spec["template"]["spec"]
        elif kind == "CronJob":
            yield name, spec["jobTemplate"]["spec"]["template"]["spec"]


RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                      "projected", "secret"}


def check_restricted(docs, where):
    """The restricted Pod Security Standard (the namespaces enforce it): the API server would refuse a
    pod that fails any of these, so the rollout would never start."""
    for name, spec in pod_templates(docs):
        at = f"{where}: {name}"
        psc = spec.get("securityContext", {})
        for host in ("hostNetwork", "hostPID", "hostIPC"):
            check(spec.get(host) is not True, f"{at} uses {host}")
        for v in spec.get("volumes", []):
            types = set(v) - {"name"}
            check(types <= RESTRICTED_VOLUMES, f"{at}: volume {v['name']} of type {sorted(types)} (hostPath?)")
        check(not psc.get("sysctls"), f"{at}: sysctls set")
        containers = (spec.get("initContainers", []) + spec.get("containers", [])
                      + spec.get("ephemeralContainers", []))
        check(containers, f"{at}: no containers")
        for c in containers:
            cat = f"{at}/{c['name']}"
            sc = c.get("securityContext", {})
            merged = dict(psc, **sc)  # a container's setting overrides the pod's
            check(merged.get("runAsNonRoot") is True, f"{cat}: runAsNonRoot not true")
            check(merged.get("runAsUser", 1) != 0, f"{cat}: runs as user 0")
            check(merged.get("seccompProfile", {}).get("type") in ("RuntimeDefault", "Localhost"),
                  f"{cat}: no RuntimeDefault (or Localhost) seccomp profile")
            check(sc.get("allowPrivilegeEscalation") is False, f"{cat}: allowPrivilegeEscalation not false")
            check(sc.get("privileged") is not True, f"{cat}: privileged")
            caps = sc.get("capabilities", {})
            check("ALL" in caps.get("drop", []), f"{cat}: capabilities not dropped (drop: [ALL])")
            check(set(caps.get("add", [])) <= {"NET_BIND_SERVICE"}, f"{cat}: adds capabilities {caps.get('add')}")
            check(sc.get("procMount", "Default") == "Default", f"{cat}: procMount")
            check(not sc.get("windowsOptions", {}).get("hostProcess"), f"{cat}: hostProcess")
            check(all(not p.get("hostPort") for p in c.get("ports", [])), f"{cat}: hostPort")
            se = merged.get("seLinuxOptions", {})
            check(not se.get("user") and not se.get("role"), f"{cat}: seLinuxOptions user/role")


def check_namespaces(docs, where, namespace):
    ns = [d for d in docs if d.get("kind") == "Namespace"]
    check([d["metadata"]["name"] for d in ns] == [namespace], f"{where}: the Namespace is not {namespace}")
    for d in ns:
        labels = d["metadata"].get("labels", {})
        for mode in ("enforce", "audit", "warn"):
            check(labels.get(f"pod-security.kubernetes.io/{mode}") == "restricted",
                  f"{where}: namespace {namespace} does not {mode} the restricted profile")
            check(f"pod-security.kubernetes.io/{mode}-version" in labels,
                  f"{where}: namespace {namespace} has no {mode}-version")
    for d in docs:
        if d.get("kind") != "Namespace":
            check(d["metadata"].get("namespace") == namespace,
                  f"{where}: {d['kind']}/{d['metadata']['name']} outside namespace {namespace}")


def check_apply_size(docs, where):
    """`kubectl apply` keeps each object, as JSON, in an annotation the API server caps at 256 KiB
    (a dashboards ConfigMap grows toward it): past it the apply fails."""
    for d in docs:
        size = len(json.dumps(d, separators=(",", ":")))
        check(size < 256 * 1024 - 4096, f"{where}: {d['kind']}/{d['metadata']['name']} is {size} bytes, too large "
              "for kubectl apply's last-applied annotation")


def names_of(peer_selector):
    """The app.kubernetes.io/name values a pod selector admits, or None for "any pod"."""
    if not peer_selector:
        return None
    names = set()
    if "app.kubernetes.io/name" in peer_selector.get("matchLabels", {}):
        names.add(peer_selector["matchLabels"]["app.kubernetes.io/name"])
    for e in peer_selector.get("matchExpressions", []):
        if e["key"] == "app.kubernetes.io/name" and e["operator"] == "In":
            names |= set(e["values"])
    return names or None


def in_namespace(peer, names):
    """Whether a NetworkPolicy peer admits only pods of this namespace named in `names`."""
    selected = names_of(peer.get("podSelector"))
    return "namespaceSelector" not in peer and "ipBlock" not in peer and selected is not None and selected <= names


def ports_of(rule):
    return {(p.get("protocol", "TCP"), p["port"]) for p in rule.get("ports", [])}


def check_network_policies(docs, where):
    """Default deny, then per workload only what it needs."""
    policies = [d for d in docs if d.get("kind") == "NetworkPolicy"]
    deny = [p for p in policies if p["spec"]["podSelector"] == {} and not p["spec"].get("ingress")
            and not p["spec"].get("egress")]
    check(any(set(p["spec"].get("policyTypes", [])) == {"Ingress", "Egress"} for p in deny),
          f"{where}: no default-deny NetworkPolicy for ingress and egress")
    dns = {("UDP", 53), ("TCP", 53)}
    store = {("TCP", 6379), ("TCP", 26379)}
    by_target = {}
    for p in policies:
        for n in names_of(p["spec"]["podSelector"]) or ():
            by_target.setdefault(n, []).append(p)
    for workload in ("arbiterd", "redis"):
        for direction in ("Ingress", "Egress"):
            check(any(direction in p["spec"].get("policyTypes", []) and p["spec"].get(direction.lower())
                      for p in by_target.get(workload, [])),
                  f"{where}: no NetworkPolicy opens {direction.lower()} for {workload}")
    # arbiterd: in on gRPC, metrics and health only; out to the store and DNS only.
    ingress_ports = set()
    for p in by_target.get("arbiterd", []):
        ingress_ports |= set().union(*[ports_of(r) for r in p["spec"].get("ingress", [])] or [set()])
    check(ingress_ports == {("TCP", 7070), ("TCP", 9090), ("TCP", 8081)},
          f"{where}: arbiterd admits ports {sorted(ingress_ports)}, want 7070 (gRPC), 9090 (metrics), 8081 (health)")
    for p in by_target.get("arbiterd", []):
        for r in p["spec"].get("ingress", []):
            check(r.get("from"), f"{where}: arbiterd admits {sorted(ports_of(r))} from anywhere")
        for r in p["spec"].get("egress", []):
            to, ports = r.get("to", []), ports_of(r)
            to_store = ports <= store and all(in_namespace(t, {"redis", "redis-sentinel"}) for t in to)
            to_dns = ports == dns and all(
                t.get("podSelector", {}).get("matchLabels", {}).get("k8s-app") == "kube-dns" for t in to)
            check(to and (to_store or to_dns), f"{where}: arbiterd may send to {to} on {sorted(ports)}")
    # Redis and Sentinel: only arbiterd and each other (the store link has no TLS:
    # libs/store/README.md).
    for n in ("redis", "redis-sentinel"):
        for p in by_target.get(n, []):
            for r in p["spec"].get("ingress", []):
                peers = r.get("from", [])
                check(peers and all(in_namespace(f, {"arbiterd", "redis", "redis-sentinel"}) for f in peers),
                      f"{where}: {n} reachable by more than arbiterd, Redis and Sentinel: {peers}")
            for r in p["spec"].get("egress", []):
                check(ports_of(r) <= store | dns and r.get("to"), f"{where}: {n} may send to {r}")


def check_autoscaling(docs, where):
    """The HPA owns arbiterd's replicas: a replica count in the Deployment would be set back by every
    `kubectl apply`, fighting it."""
    deployment = next(d for d in docs if d.get("kind") == "Deployment" and d["metadata"]["name"] == "arbiterd")
    hpas = [d for d in docs if d.get("kind") == "HorizontalPodAutoscaler"
            and d["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "arbiterd"}]
    pdbs = [d for d in docs if d.get("kind") == "PodDisruptionBudget"
            and d["spec"]["selector"].get("matchLabels", {}).get("app.kubernetes.io/name") == "arbiterd"]
    check(len(hpas) == 1, f"{where}: not one HorizontalPodAutoscaler for arbiterd")
    check("replicas" not in deployment["spec"], f"{where}: arbiterd has spec.replicas beside its HPA")
    check(len(pdbs) == 1 and pdbs[0]["spec"]["selector"]["matchLabels"] == {"app.kubernetes.io/name": "arbiterd"},
          f"{where}: no PodDisruptionBudget for arbiterd")
    if hpas and len(pdbs) == 1:
        h = hpas[0]["spec"]
        check(2 <= h["minReplicas"] <= h["maxReplicas"], f"{where}: HPA min {h['minReplicas']} max {h['maxReplicas']}")
        # A budget as large as the smallest deployment would block every node drain.
        check(pdbs[0]["spec"].get("minAvailable", 0) < h["minReplicas"],
              f"{where}: the PodDisruptionBudget allows no disruption at minReplicas")


def duration_seconds(text):
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if not parts or "".join(a + b for a, b in parts) != text:
        return None
    return sum(float(a) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[b] for a, b in parts)


def check_connection_age(docs, where):
    """Long-lived HTTP/2 connections stay on one pod: the server must close them now and then
    (GRPC_ARG_MAX_CONNECTION_AGE_MS) for clients to rebalance over new pods."""
    d = next(d for d in docs if d.get("kind") == "Deployment" and d["metadata"]["name"] == "arbiterd")
    args = d["spec"]["template"]["spec"]["containers"][0].get("args", [])
    ages = [a.split("=", 1)[1] for a in args if a.startswith("--grpc_max_connection_age=")]
    check(len(ages) == 1, f"{where}: arbiterd has {len(ages)} --grpc_max_connection_age flags, want 1 (prod's "
          "kustomization.yaml adds it with a JSON patch: drop that patch if base/arbiterd.yaml has the flag)")
    for age in ages:
        seconds = duration_seconds(age)
        check(seconds is not None and 60 <= seconds <= 3600,
              f"{where}: --grpc_max_connection_age={age} is not a duration of 1 minute to 1 hour")


def flag_values(docs, name):
    """arbiterd's values of --name, each with a $(VAR) resolved as the kubelet does: from the
    container's env, a literal or a ConfigMap's key (None where it resolves to nothing)."""
    d = next(d for d in docs if d.get("kind") == "Deployment" and d["metadata"]["name"] == "arbiterd")
    c = d["spec"]["template"]["spec"]["containers"][0]
    maps = {m["metadata"]["name"]: m.get("data", {}) for m in docs if m.get("kind") == "ConfigMap"}
    env = {}
    for e in c.get("env", []):
        if "value" in e:
            env[e["name"]] = e["value"]
        ref = e.get("valueFrom", {}).get("configMapKeyRef")
        if ref:
            env[e["name"]] = maps.get(ref["name"], {}).get(ref["key"])
    values = []
    for a in c.get("args", []):
        if not a.startswith(f"--{name}="):
            continue
        value = a.split("=", 1)[1]
        for var in re.findall(r"\$\((\w+)\)", value):
            value = None if env.get(var) is None else value.replace(f"$({var})", env[var])
            if value is None:
                break
        values.append(value)
    return values


def check_secure_defaults(docs, where):
    """Production turns on what the server leaves off by default: tokens bound to this
    deployment's audience and issuer (a token minted for another service is refused), and a rate
    limit per caller (one token cannot take the server's capacity)."""
    for name in ("jwt_audience", "jwt_issuer"):
        values = flag_values(docs, name)
        check(len(values) == 1, f"{where}: arbiterd has {len(values)} --{name} flags, want 1")
        check(all(v and v.strip() == v for v in values),
              f"{where}: --{name} is empty or names a ConfigMap key or variable that is not there: {values}")
    qps = flag_values(docs, "rate_limit_qps")
    check(len(qps) == 1, f"{where}: arbiterd has {len(qps)} --rate_limit_qps flags, want 1")
    for v in qps:
        try:
            rate = float(v)
        except (TypeError, ValueError):
            rate = None
        check(rate is not None and 1 <= rate <= 10000,
              f"{where}: --rate_limit_qps={v} is not a limit of 1 to 10000 calls a second")
        for b in flag_values(docs, "rate_limit_burst"):
            check(rate is not None and b is not None and re.fullmatch(r"\d+(\.\d+)?", b) and float(b) >= rate,
                  f"{where}: --rate_limit_burst={b} is below --rate_limit_qps={v}")


def check_secure_defaults_rejects(docs):
    """The check above is shown to fail on prod without each flag, and on an audience whose
    ConfigMap key is missing."""
    global failures
    def mutant(mutate):
        global failures
        copied = copy.deepcopy(docs)
        d = next(d for d in copied if d.get("kind") == "Deployment" and d["metadata"]["name"] == "arbiterd")
        mutate(d["spec"]["template"]["spec"]["containers"][0], copied)
        kept, failures = failures, []
        check_secure_defaults(copied, "mutant")
        found, failures = failures, kept
        return found
    for name in ("jwt_audience", "jwt_issuer", "rate_limit_qps"):
        def drop(c, _, name=name):
            c["args"] = [a for a in c["args"] if not a.startswith(f"--{name}=")]
        check(mutant(drop), f"check_secure_defaults accepts prod without --{name}")
    def no_key(_, copied):
        for m in copied:
            if m.get("kind") == "ConfigMap":
                m.get("data", {}).pop("jwt-audience", None)
    check(mutant(no_key), "check_secure_defaults accepts an audience from a missing ConfigMap key")
    def zero(c, _):
        c["args"] = [("--rate_limit_qps=0" if a.startswith("--rate_limit_qps=") else a) for a in c["args"]]
    check(mutant(zero), "check_secure_defaults accepts --rate_limit_qps=0 (no limit)")


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
            args = c.get("args", [])
            # The kubelet's gRPC probe speaks plaintext: with TLS on the API port it must probe a
            # plaintext health port (--health_address) or the pod never becomes ready.
            health = next((a.rsplit(":", 1)[1] for a in args if a.startswith("--health_address=")), None)
            plaintext = {int(health)} if health else set() if any(a.startswith("--tls_cert=") for a in args) else {7070}
            for probe in ("readinessProbe", "livenessProbe"):
                port = c[probe].get("grpc", {}).get("port")
                check(port is not None, f"{where}: arbiterd {probe} is not gRPC health")
                check(port in plaintext, f"{where}: arbiterd {probe} on port {port}, which serves TLS or nothing")
            if expect_auth:
                check(any(a.startswith("--auth_keys=") for a in args), f"{where}: arbiterd without --auth_keys")
                check(any(a.startswith("--tls_cert=") for a in args), f"{where}: arbiterd without TLS")
                check("--insecure_dev" not in args, f"{where}: arbiterd runs --insecure_dev")
            # arbiterd refuses --insecure_dev off loopback: such a pod would never start.
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
    """Redis requires AUTH as the store's ACL user; arbiterd authenticates as it."""
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
            secret = secret_path(rspec, w, path)
            # The functions loader's password (below) is not the store's.
            if secret and not secret.startswith("redis-functions"):
                redis_secret = secret
    check(redis_secret is not None, f"{where}: the Redis password is not read from a mounted Secret")
    # The store's functions: the redis container loads them itself after each start, as the ACL
    # user `functions`, whose password (Secret redis-functions) the init container hashes into the
    # ACL file; arbiterd never mounts that Secret.
    hook = " ".join(map(str, rc.get("lifecycle", {}).get("postStart", {}).get("exec", {}).get("command", [])))
    check("FUNCTION LOAD REPLACE" in hook and "--user functions" in hook and "redis_functions.lua" in hook
          and "REDISCLI_AUTH" in hook, f"{where}: the redis container does not load the store's functions as `functions`")
    functions_secret = None
    for path in re.findall(r"(/[\w./-]*password)\b", hook):
        functions_secret = secret_path(rspec, rc, path) or functions_secret
    check(functions_secret is not None and functions_secret.startswith("redis-functions"),
          f"{where}: the functions loader's password is not the mounted Secret redis-functions")
    check(any("user functions" in " ".join(map(str, w.get("command", []))) and "fhash" in " ".join(map(str, w.get("command", [])))
              for w in writers), f"{where}: the ACL file has no password hash for the user functions")
    config = next((v.get("configMap", {}).get("name", "") for v in rspec.get("volumes", []) if v["name"] == "config"), "")
    maps = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "ConfigMap"}
    if config in maps:
        check("redis_functions.lua" in maps[config].get("data", {}),
              f"{where}: ConfigMap {config} has no redis_functions.lua")
    for v in arbiterd["spec"]["template"]["spec"].get("volumes", []):
        check(not v.get("secret", {}).get("secretName", "").startswith("redis-functions"),
              f"{where}: arbiterd mounts the functions loader's Secret")
    probe = " ".join(map(str, rc.get("readinessProbe", {}).get("exec", {}).get("command", [])))
    check("REDISCLI_AUTH" in probe and "--user arbiter" in probe and "PONG" in probe,
          f"{where}: the redis probe does not authenticate as the store's user (or ignores the reply)")
    ac = arbiterd["spec"]["template"]["spec"]["containers"][0]
    aargs = ac.get("args", [])
    store = next((a for a in aargs if a.startswith("--store=")), "")
    # Redis itself, or its Sentinels (components/redis-sentinel): as the ACL user either way.
    check(store.startswith(("--store=redis://arbiter@", "--store=redis+sentinel://arbiter@")),
          f"{where}: arbiterd's --store names no ACL user: {store}")
    userinfo = store.split("//", 1)[-1].split("@")[0] if "@" in store else ""
    check(":" not in userinfo, f"{where}: a password in --store")
    pwfile = next((a.split("=", 1)[1] for a in aargs if a.startswith("--store_password_file=")), "")
    check(pwfile != "", f"{where}: arbiterd without --store_password_file")
    if pwfile:
        secret = secret_path(arbiterd["spec"]["template"]["spec"], ac, pwfile)
        check(secret is not None, f"{where}: arbiterd's password file is not in a mounted Secret")
        check(secret == redis_secret, f"{where}: arbiterd reads Secret {secret}, redis {redis_secret}")


def check_seal_key(docs, where):
    """Appendix A: arbiterd reads the sealed moves' master key from a Secret mounted read-only."""
    arbiterd = next((d for d in docs if d.get("kind") == "Deployment" and d["metadata"]["name"] == "arbiterd"), None)
    check(arbiterd is not None, f"{where}: arbiterd missing")
    if arbiterd is None:
        return
    spec = arbiterd["spec"]["template"]["spec"]
    c = spec["containers"][0]
    path = next((a.split("=", 1)[1] for a in c.get("args", []) if a.startswith("--seal_key_file=")), "")
    check(path != "", f"{where}: arbiterd without --seal_key_file (adjourned games cannot be sealed)")
    if not path:
        return
    # A generated Secret (the dev overlay's) carries kustomize's hash suffix.
    secret = secret_path(spec, c, path) or ""
    check(secret == "arbiter-seal-key" or secret.startswith("arbiter-seal-key-"),
          f"{where}: --seal_key_file {path} is not in the mounted Secret arbiter-seal-key")
    mount = next((m for m in c.get("volumeMounts", []) if path.startswith(m["mountPath"].rstrip("/") + "/")), {})
    check(mount.get("readOnly") is True, f"{where}: the seal key's mount is not read-only")


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
        check(not any(a == cmd or a.split("|")[0] == cmd.split("|")[0] for a in allowed),
              f"{path}: arbiter may run {cmd.upper()} (or one of its subcommands)")
    check("fcall" in allowed, f"{path}: arbiter may not FCALL the store's functions")
    check(all(r == "~arbiter:*" for r in rules if r.startswith("~")), f"{path}: arbiter's keys are not arbiter:*")
    # The loader of the functions: FUNCTION LOAD and nothing else that changes data or runs code.
    loader = users.get("functions", [])
    check("on" in loader and "-@all" in loader, f"{path}: no user functions with an allow-list")
    check({r[1:].lower() for r in loader if r.startswith("+")} <= {"function|load", "ping", "role"},
          f"{path}: the user functions may run more than FUNCTION LOAD, PING and ROLE")
    check("function|load" in {r[1:].lower() for r in loader if r.startswith("+")},
          f"{path}: the user functions may not FUNCTION LOAD")
    check(not any(r.startswith(("~", "%", "&", ">", "#")) or r in ("allkeys", "nopass") for r in loader),
          f"{path}: the user functions has keys, channels or a password in the shared rules")


def main():
    for tool, why in (("kubectl", "renders the overlays (kubectl kustomize; kustomize v5)"),
                      ("node", "runs the schema validator (tools/k8s-schemas)")):
        if shutil.which(tool) is None:
            print(f"FAIL: {tool} is not on this machine; it {why}")
            return 1
    if not os.path.isdir(os.path.join(os.path.dirname(VALIDATOR), "node_modules")):
        print(f"FAIL: {os.path.dirname(VALIDATOR)}/node_modules is missing: run tools/setup.sh (npm ci there)")
        return 1
    base = load_docs(sorted(glob.glob(os.path.join(ROOT, "base", "*.yaml"))))
    check_pods([d for d in base if d.get("kind") != "Kustomization"], "base", expect_auth=True)
    check_redis_auth(base, "base")
    check_seal_key(base, "base")
    rendered = {}
    for overlay, auth, namespace in (("dev", False, "arbiter-dev"), ("prod", True, "arbiter")):
        text, docs = render(os.path.join("overlays", overlay))
        rendered[f"overlays/{overlay}"] = text
        check_pods(docs, overlay, expect_auth=auth)
        check_redis_auth(docs, overlay)
        check_seal_key(docs, overlay)
        check_restricted(docs, overlay)
        check_namespaces(docs, overlay, namespace)
        check_apply_size(docs, overlay)
        if overlay == "prod":
            check_network_policies(docs, overlay)
            check_autoscaling(docs, overlay)
            check_connection_age(docs, overlay)
            check_secure_defaults(docs, overlay)
            check_secure_defaults_rejects(docs)
            included = yaml.safe_load(open(os.path.join(ROOT, "overlays", "prod", "kustomization.yaml")))
            for name in COMPONENTS:
                check(f"../../components/{name}" in included.get("components", []),
                      f"prod does not include components/{name}")
            check_validator_rejects(docs)
    for name in COMPONENTS:
        text, docs = render(component_alone(name))
        rendered[f"components/{name}"] = text
        check_restricted(docs, f"components/{name}")
    # Offline schema validation of everything rendered (tools/k8s-schemas/validate.js).
    rc, out = validate(rendered)
    check(rc == 0, f"schema validation:\n{out.strip()}")
    print(out.strip().splitlines()[-1] if out.strip() else "schema validation printed nothing")
    with open(STORE_CONF) as a, open(os.path.join(ROOT, "base", "redis.conf")) as b:
        check(a.read() == b.read(), "k8s/base/redis.conf differs from libs/store/redis.conf (copy it again)")
    with open(STORE_ACL) as a, open(os.path.join(ROOT, "base", "redis-users.acl")) as b:
        check(a.read() == b.read(), "k8s/base/redis-users.acl differs from libs/store/redis-users.acl (copy it again)")
    with open(STORE_FUNCTIONS) as a, open(os.path.join(ROOT, "base", "redis_functions.lua")) as b:
        check(a.read() == b.read(),
              "k8s/base/redis_functions.lua differs from libs/store/redis_functions.lua (copy it again)")
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
