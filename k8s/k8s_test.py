#!/usr/bin/env python3
"""Checks the Kubernetes manifests: every overlay renders (kubectl kustomize), every pod is hardened
(non-root, read-only root filesystem, all capabilities dropped, no privilege escalation, requests
and limits), every arbiterd is probed through the gRPC health service, everything carries
app.kubernetes.io labels, and base/redis.conf is the configuration the store's tests run with
(libs/store/redis.conf).

The services apart (prod): one Deployment per service, each running only its own (--services),
ready on its own health status, with its own Service, HPA, PodDisruptionBudget and ServiceMonitor;
search-analysis behind a headless Service that arbitration's --analysis_target names; the dev
overlay keeps the all-in-one. One address: the GRPCRoute has a rule for every `service` the protos
(proto/arbiter/v1/*.proto) declare, leading to the Deployment that runs it. Network policies per
edge: what each workload may receive and send, worked out from the rendered policies, is exactly
the expected edges (platform -> each; arbitration -> search-analysis and Redis; clock-authority ->
Redis; rules-validation and search-analysis -> nothing).

Redis: base/redis-users.acl is libs/store/redis-users.acl (the default user off, the
store's user limited to the store's commands, none of FLUSHALL, CONFIG, KEYS, EVAL, SCRIPT,
FUNCTION, ...: it FCALLs the functions of base/redis_functions.lua, which is
libs/store/redis_functions.lua and which the redis container loads at start as the ACL user
`functions`, whose Secret no arbiterd mounts); Redis runs with protected mode on, that ACL file
(made from the Secret's password) and a maxmemory below its memory limit with noeviction; its
readiness probe authenticates; the store's clients name the ACL user in --store and read the
password with --store_password_file from the same Secret, mounted; the services that keep no state
have neither, and only arbitration has the sealed moves' key.

Operations: every rendered overlay (dev, prod, and the base and the all-in-one with each component
of components/ on its own) is validated offline against the Kubernetes API schemas and the
prometheus-operator CRDs (tools/k8s-schemas/validate.js: unknown kinds, unknown fields, wrong types)
and the Gateway API objects structurally (GATEWAY_API below: the npm packages have no schema for
them), and each validator is shown to reject broken manifests; every container of every pod
template meets the restricted Pod Security Standard, which both namespaces enforce; prod denies all
traffic by default; each HPA owns its Deployment's replica count (no spec.replicas to fight it)
and a PodDisruptionBudget leaves it serving; prod recycles gRPC connections
(--grpc_max_connection_age) so clients rebalance; the kubelet's gRPC probes reach a plaintext port.

Secure defaults: every prod arbiterd runs with --jwt_audience and --jwt_issuer (non-empty,
through the ConfigMap arbiterd-auth) and --rate_limit_qps (1 to 10000 calls a second per caller),
and the check is shown to fail without each.

kubectl 1.27 or later (kustomize v5) and node, with tools/k8s-schemas/node_modules (tools/setup.sh
runs `npm ci` there), must be on the machine: the test fails, with the reason, when one is missing;
with an older kubectl it says so and counts as skipped (kubectl_version.py)."""
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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from k8s import kubectl_version  # noqa: E402 (the workspace root first)

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
# The protos whose services the GRPCRoute must route: the checkout's (the runfiles hold those
# k8s/BUILD.bazel lists; proto_services() fails on one it does not).
PROTOS = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "proto", "arbiter", "v1")
PROTOS_LISTED = os.path.join(_SOURCE, "..", "proto", "arbiter", "v1")
VALIDATOR = os.path.realpath(os.path.join(_SOURCE, "..", "tools", "k8s-schemas", "validate.js"))
# Components that replace another one rather than add to prod: rendered and validated alone.
ALTERNATIVES = {"redis-cluster": "redis-sentinel"}
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


# arbiterd's modules (--services, services/arbiterd/registry.cc), and those that use the store.
MODULES = ("rules_validation", "search_analysis", "clock_authority", "arbitration")
STORE_CLIENTS = {"clock_authority", "arbitration"}


def servers(docs):
    """The arbiterd Deployments (label app.kubernetes.io/component=server): the all-in-one, or one
    per service."""
    return [d for d in docs if d.get("kind") == "Deployment"
            and d["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "server"]


def services_of(deployment):
    """The modules a Deployment's arbiterd runs (--services; "all" by default)."""
    args = deployment["spec"]["template"]["spec"]["containers"][0].get("args", [])
    spec = next((a.split("=", 1)[1] for a in args if a.startswith("--services=")), "all")
    names = {n.strip() for n in spec.split(",") if n.strip()}
    return set(MODULES) if "all" in names else names


def module_of(proto_service):
    """arbiter.v1.ClockAuthority -> clock_authority: the module that serves a proto service."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", proto_service.rsplit(".", 1)[-1]).lower()


def proto_services():
    """Every `service` the protos declare, by full name (package.Service)."""
    found = []
    listed = {os.path.basename(p) for p in glob.glob(os.path.join(PROTOS_LISTED, "*.proto"))}
    for path in sorted(glob.glob(os.path.join(PROTOS, "*.proto"))):
        check(os.path.basename(path) in listed, f"{path} is not in //k8s:k8s_test's data (k8s/BUILD.bazel): a "
              "change to it would not run the test again")
        with open(path) as f:
            text = f.read()
        package = re.search(r"^package\s+([\w.]+)\s*;", text, re.M)
        found += [f"{package.group(1)}.{name}" for name in re.findall(r"^service\s+(\w+)\s*\{", text, re.M)]
    return found


def check_apart(docs, where):
    """The services apart: one Deployment per module, each running only its own (--services), ready
    on its own health status, with a ServiceMonitor of its own (its own `job`); search-analysis
    behind a headless Service that arbitration's --analysis_target resolves."""
    deployments = servers(docs)
    ran = sorted(m for d in deployments for m in services_of(d))
    check(ran == sorted(MODULES), f"{where}: the Deployments run {ran}, want each of {sorted(MODULES)} once")
    services = [d for d in docs if d.get("kind") == "Service"]
    monitors = [d for d in docs if d.get("kind") == "ServiceMonitor"]
    for d in deployments:
        name, labels = d["metadata"]["name"], d["spec"]["template"]["metadata"]["labels"]
        check(len(services_of(d)) == 1, f"{where}: {name} runs {sorted(services_of(d))}, want one service")
        ready = d["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grpc"].get("service", "")
        check(module_of(ready) in services_of(d), f"{where}: {name} is ready on {ready!r}, not its own service")
        mine = [s for s in services if selects({"matchLabels": s["spec"].get("selector", {})}, labels)]
        check(len(mine) == 1, f"{where}: not one Service for {name}")
        scraped = [m for m in monitors for s in mine if selects(m["spec"]["selector"], s["metadata"].get("labels", {}))]
        check(len(scraped) == 1, f"{where}: not one ServiceMonitor for {name}'s Service")
    analysis = next((d for d in deployments if services_of(d) == {"search_analysis"}), None)
    arbitration = next((d for d in deployments if services_of(d) == {"arbitration"}), None)
    if analysis is None or arbitration is None:
        return
    # The engine pool and the searches: a core per engine (Stockfish, one thread each) and the
    # searches' memory bound (--analysis_memory_mb) below the pod's limit, with room for the rest.
    resources = analysis["spec"]["template"]["spec"]["containers"][0].get("resources", {})
    engines = int((flag_values(docs, analysis, "engine_pool_size") or ["1"])[-1])
    search_mb = int((flag_values(docs, analysis, "analysis_memory_mb") or ["384"])[-1])
    check(cpu_cores(resources.get("requests", {}).get("cpu", "0")) >= engines,
          f"{where}: search-analysis requests less than a core per engine ({engines} engines)")
    check(memory_bytes(resources.get("limits", {}).get("memory", "0")) >= (search_mb + 256) << 20,
          f"{where}: search-analysis's memory limit leaves no room beside --analysis_memory_mb={search_mb}")
    labels = analysis["spec"]["template"]["metadata"]["labels"]
    backend = next((s for s in services if selects({"matchLabels": s["spec"].get("selector", {})}, labels)), None)
    check(backend is not None and backend["spec"].get("clusterIP") == "None",
          f"{where}: search-analysis's Service is not headless (its client balances over the pods)")
    targets = flag_values(docs, arbitration, "analysis_target")
    grpc = [p["port"] for p in (backend or {}).get("spec", {}).get("ports", []) if p.get("name") == "grpc"]
    want = f"dns:///{backend['metadata']['name']}:{grpc[0]}" if backend and grpc else None
    check(targets == [want], f"{where}: arbitration's --analysis_target is {targets}, want [{want!r}]")
    # The engine pool lives only in search-analysis.
    check(flag_values(docs, arbitration, "arbitration_engine_path") == [""],
          f"{where}: arbitration may start an engine of its own (want --arbitration_engine_path= empty)")
    # The state cache (--arbitration_state_cache_games, every live game: any replica may be sent
    # any game's command) at 12 KB a game (a state at ply 80) below the pod's limit, with room
    # for the rest.
    games = int((flag_values(docs, arbitration, "arbitration_state_cache_games") or ["100000"])[-1])
    limit = arbitration["spec"]["template"]["spec"]["containers"][0].get("resources", {}).get("limits", {})
    check(memory_bytes(limit.get("memory", "0")) >= games * 12 * 1024 + (256 << 20),
          f"{where}: arbitration's memory limit leaves no room for --arbitration_state_cache_games={games}")


def check_apart_rejects(docs):
    """The check above is shown to fail on a ClusterIP in front of search-analysis, on arbitration
    asking the analysis in process, on a Deployment running every service, and on an arbitration
    pod whose memory limit cannot hold its state cache."""
    def deployment(copied, module):
        return next(d for d in servers(copied) if services_of(d) == {module})

    def clusterip(copied):
        next(d for d in copied if d.get("kind") == "Service" and d["spec"].get("clusterIP") == "None")["spec"].pop("clusterIP")

    def in_process(copied):
        c = deployment(copied, "arbitration")["spec"]["template"]["spec"]["containers"][0]
        c["args"] = [a for a in c["args"] if not a.startswith("--analysis_target=")]

    def everything(copied):
        args = deployment(copied, "rules_validation")["spec"]["template"]["spec"]["containers"][0]["args"]
        args[0] = "--services=all"

    def small(copied):
        deployment(copied, "arbitration")["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["memory"] = "1Gi"
    for mutate, what in ((clusterip, "search-analysis has a ClusterIP"), (in_process, "arbitration has no --analysis_target"),
                         (everything, "rules-validation runs every service"),
                         (small, "arbitration's limit cannot hold 100,000 states")):
        check(failures_of(check_apart, docs, mutate), f"check_apart passes when {what}")


def check_routes(docs, where):
    """One address for the platforms: the GRPCRoute has a rule for every service the protos declare,
    and it leads to the Service of the Deployment that runs it."""
    routes = [d for d in docs if d.get("kind") == "GRPCRoute"]
    gateways = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "Gateway"}
    services = {d["metadata"]["name"]: d for d in docs if d.get("kind") == "Service"}
    check(routes, f"{where}: no GRPCRoute")
    routed = {}
    for r in routes:
        for ref in r["spec"].get("parentRefs", []):
            listeners = [l["name"] for l in gateways.get(ref["name"], {}).get("spec", {}).get("listeners", [])]
            check(ref.get("sectionName", listeners[:1] and listeners[0]) in listeners,
                  f"{where}: GRPCRoute {r['metadata']['name']} is attached to no listener of a Gateway {ref['name']}")
        for rule in r["spec"].get("rules", []):
            for m in rule.get("matches", []):
                method = m.get("method", {})
                check(method.get("type", "Exact") == "Exact" and "method" not in method,
                      f"{where}: a GRPCRoute match that is not a whole service: {method}")
                routed.setdefault(method.get("service"), []).extend(rule.get("backendRefs", []))
    declared = proto_services()
    check(declared, f"{where}: no service declared in {PROTOS}")
    check(set(routed) <= set(declared), f"{where}: routes for services no proto declares: {sorted(set(routed) - set(declared), key=str)}")
    for proto in declared:
        check(routed.get(proto), f"{where}: no GRPCRoute rule for {proto}")
        for ref in routed.get(proto, []):
            svc = services.get(ref["name"])
            check(svc is not None and ref.get("port") in [p["port"] for p in svc["spec"]["ports"]],
                  f"{where}: {proto} is routed to {ref['name']}:{ref.get('port')}, which no Service has")
            if svc is None:
                continue
            behind = [d for d in servers(docs)
                      if selects({"matchLabels": svc["spec"].get("selector", {})}, d["spec"]["template"]["metadata"]["labels"])]
            check(behind and all(module_of(proto) in services_of(d) for d in behind),
                  f"{where}: {proto} is routed to {ref['name']}, whose pods do not run {module_of(proto)}")


def check_routes_reject(docs):
    """The route check is shown to fail on a service left without a rule and on one sent to the
    wrong Deployment."""
    def drop(copied):
        route = next(d for d in copied if d.get("kind") == "GRPCRoute")
        route["spec"]["rules"] = [r for r in route["spec"]["rules"]
                                  if r["matches"][0]["method"]["service"] != "arbiter.v1.SearchAnalysis"]

    def swap(copied):
        route = next(d for d in copied if d.get("kind") == "GRPCRoute")
        route["spec"]["rules"][0]["backendRefs"], route["spec"]["rules"][1]["backendRefs"] = (
            route["spec"]["rules"][1]["backendRefs"], route["spec"]["rules"][0]["backendRefs"])
    for mutate, what in ((drop, "a service has no rule"), (swap, "two services are routed to each other's pods")):
        check(failures_of(check_routes, docs, mutate), f"check_routes passes when {what}")


def render(directory):
    """The objects `kubectl kustomize` makes of a directory under ROOT."""
    out = subprocess.run(["kubectl", "kustomize", os.path.join(ROOT, directory)],
                         capture_output=True, text=True)
    check(out.returncode == 0, f"kubectl kustomize {directory}: {out.stderr.strip()}")
    return [d for d in yaml.safe_load_all(out.stdout) if d]


def component_alone(name):
    """A kustomization of the base with one component: each component must render (and validate)
    on its own, not only beside the others in prod."""
    directory = os.path.join("_checks", name)
    os.makedirs(os.path.join(ROOT, directory), exist_ok=True)
    with open(os.path.join(ROOT, directory, "kustomization.yaml"), "w") as f:
        yaml.safe_dump({"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
                        "namespace": "arbiter-check", "resources": ["../../base", "../../arbiterd"],
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


# The Gateway API objects (gateway.networking.k8s.io/v1, standard channel v1.4): the npm packages
# of tools/k8s-schemas have no schema for them, so they are checked here, structurally, against
# the fields these manifests may use: a key not listed is an unknown field, a key ending in "!" is
# required, a tuple is an enum. Less than the CRDs' OpenAPI schemas (no formats, no CEL rules);
# the same strictness on names and types.
_REF = {"group": str, "kind": str, "name!": str, "namespace": str}
_METADATA = {"name!": str, "namespace": str, "labels": dict, "annotations": dict}
GATEWAY_API = {
    "Gateway": {"gatewayClassName!": str, "listeners!": [{
        "name!": str, "protocol!": ("HTTP", "HTTPS", "TLS", "TCP", "UDP"), "port!": int, "hostname": str,
        "tls": {"mode": ("Terminate", "Passthrough"), "certificateRefs": [_REF], "options": dict},
        "allowedRoutes": {"namespaces": {"from": ("All", "Same", "Selector"), "selector": dict},
                          "kinds": [{"group": str, "kind!": str}]}}],
        "addresses": [{"type": str, "value!": str}], "infrastructure": dict},
    "GRPCRoute": {"parentRefs": [dict(_REF, sectionName=str, port=int)], "hostnames": [str], "rules": [{
        "name": str,
        "matches": [{"method": {"type": ("Exact", "RegularExpression"), "service": str, "method": str},
                     "headers": [{"type": ("Exact", "RegularExpression"), "name!": str, "value!": str}]}],
        "filters": [dict], "backendRefs": [dict(_REF, port=int, weight=int, filters=[dict])]}]},
    "BackendTLSPolicy": {"targetRefs!": [dict(_REF, **{"group!": str, "kind!": str, "sectionName": str})],
                         "validation!": {"caCertificateRefs": [dict(_REF, **{"group!": str, "kind!": str})],
                                         "wellKnownCACertificates": ("System",), "hostname!": str,
                                         "subjectAltNames": [dict]},
                         "options": dict},
}


def gateway_api(doc):
    return str(doc.get("apiVersion", "")).startswith("gateway.networking.k8s.io/")


def structure(value, schema, at):
    """The problems of `value` against a structural schema (see GATEWAY_API)."""
    if isinstance(schema, tuple):
        return [] if value in schema else [f"{at}: {value!r} is not one of {list(schema)}"]
    if isinstance(schema, list):
        if not isinstance(value, list):
            return [f"{at}: must be a list"]
        return [p for i, v in enumerate(value) for p in structure(v, schema[0], f"{at}/{i}")]
    if isinstance(schema, type):
        ok = isinstance(value, schema) and not (schema is int and isinstance(value, bool))
        return [] if ok else [f"{at}: must be {schema.__name__}"]
    if not isinstance(value, dict):
        return [f"{at}: must be an object"]
    fields = {k.rstrip("!"): v for k, v in schema.items()}
    problems = [f"{at}/{k}: unknown field" for k in value if k not in fields]
    problems += [f"{at}/{k[:-1]}: required" for k in schema if k.endswith("!") and k[:-1] not in value]
    return problems + [p for k, v in value.items() if k in fields for p in structure(v, fields[k], f"{at}/{k}")]


def check_gateway_api(docs, where):
    for d in filter(gateway_api, docs):
        schema = GATEWAY_API.get(d.get("kind"))
        at = f"{where}: {d.get('kind')}/{d.get('metadata', {}).get('name')}"
        check(d.get("apiVersion") == "gateway.networking.k8s.io/v1" and schema is not None,
              f"{at}: no schema for {d.get('apiVersion')} {d.get('kind')}")
        if schema is not None:
            for problem in structure(d, {"apiVersion!": str, "kind!": str, "metadata!": _METADATA, "spec!": schema}, ""):
                failures.append(f"{at}: {problem}")


def check_gateway_api_rejects(docs):
    """The structural check is shown to reject a misspelt field, a wrong type and an unknown enum."""
    def route(copied):
        return next(d for d in copied if d.get("kind") == "GRPCRoute")
    for mutate, what in (
            (lambda c: route(c)["spec"]["rules"][0].update(backendRef=[]), "an unknown field"),
            (lambda c: route(c)["spec"]["rules"][0]["backendRefs"][0].update(port="7070"), "a port as a string"),
            (lambda c: route(c)["spec"]["rules"][0]["matches"][0]["method"].update(type="Prefix"), "a match type")):
        check(failures_of(check_gateway_api, docs, mutate), f"check_gateway_api accepts {what}")


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


def selects(selector, labels):
    """Whether a label selector (matchLabels, matchExpressions) selects these labels."""
    if any(labels.get(k) != v for k, v in selector.get("matchLabels", {}).items()):
        return False
    for e in selector.get("matchExpressions", []):
        value, op = labels.get(e["key"]), e["operator"]
        if not {"In": value in e.get("values", []), "NotIn": value not in e.get("values", []),
                "Exists": value is not None, "DoesNotExist": value is None}[op]:
            return False
    return True


def workloads(docs):
    """{app.kubernetes.io/name: pod labels} of every Deployment and StatefulSet."""
    return {d["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"]: d["spec"]["template"]["metadata"]["labels"]
            for d in docs if d.get("kind") in ("Deployment", "StatefulSet")}


def peers(peer, pods):
    """What a NetworkPolicy peer admits, by name: the workloads of this namespace it selects, or the
    outside it names (platform, monitoring, dns, nodes); anything else is spelled out, and so
    matches no expected edge."""
    ns = peer.get("namespaceSelector", {}).get("matchLabels")
    pod = peer.get("podSelector", {}).get("matchLabels", {})
    if "ipBlock" in peer:
        return {"nodes"}
    if ns == {"arbiter.dev/platform": "true"} and "podSelector" not in peer:
        return {"platform"}
    if ns == {"kubernetes.io/metadata.name": "monitoring"} and "podSelector" not in peer:
        return {"monitoring"}
    if ns == {"kubernetes.io/metadata.name": "kube-system"} and pod == {"k8s-app": "kube-dns"}:
        return {"dns"}
    if "namespaceSelector" in peer or "podSelector" not in peer:
        return {json.dumps(peer, sort_keys=True)}
    return {name for name, labels in pods.items() if selects(peer["podSelector"], labels)}


def edges(docs):
    """{workload: {"Ingress": {(peer, protocol, port)}, "Egress": ...}}: what the NetworkPolicies
    let each workload receive and send (policies add up; a rule without peers or ports admits
    "anywhere" or "any")."""
    pods = workloads(docs)
    allowed = {name: {"Ingress": set(), "Egress": set()} for name in pods}
    for p in (d for d in docs if d.get("kind") == "NetworkPolicy"):
        targets = [name for name, labels in pods.items() if selects(p["spec"]["podSelector"], labels)]
        for direction, side in (("Ingress", "from"), ("Egress", "to")):
            if direction not in p["spec"].get("policyTypes", []):
                continue
            for rule in p["spec"].get(direction.lower(), []):
                names = set().union(*[peers(q, pods) for q in rule.get(side, [])]) if rule.get(side) else {"anywhere"}
                ports = {(q.get("protocol", "TCP"), q.get("port", "any")) for q in rule.get("ports", [])} or {("any", "any")}
                for name in targets:
                    allowed[name][direction] |= {(n, proto, port) for n in names for proto, port in ports}
    return allowed


def expected_edges(pods):
    """Each workload's traffic, per edge: the platform (through the Gateway), Prometheus and the
    kubelet reach every arbiterd; the store's clients reach Redis and its Sentinels (and the DNS
    that names them); arbitration reaches search-analysis; rules-validation and search-analysis
    send nothing."""
    front = {("platform", "TCP", 7070), ("monitoring", "TCP", 9090), ("nodes", "TCP", 8081)}
    redis = {"redis", "redis-sentinel"}
    store_ports = {("TCP", 6379), ("TCP", 26379)}
    dns = {("dns", "UDP", 53), ("dns", "TCP", 53)}
    clients = {n for n in pods if n in ("arbiterd", "arbiterd-clock-authority", "arbiterd-arbitration")}
    to_store = {(r, proto, port) for r in redis for proto, port in store_ports} | dns
    want = {"arbiterd-rules-validation": (front, set()),
            "arbiterd-clock-authority": (front, to_store),
            "arbiterd-arbitration": (front, to_store | {("arbiterd-search-analysis", "TCP", 7070)}),
            "arbiterd-search-analysis": (front | {("arbiterd-arbitration", "TCP", 7070)}, set()),
            "arbiterd": (front, to_store)}
    for r in redis:
        want[r] = ({(c, proto, port) for c in clients | redis for proto, port in store_ports},
                   {(o, proto, port) for o in redis for proto, port in store_ports} | dns)
    return {name: {"Ingress": want[name][0], "Egress": want[name][1]} for name in pods if name in want}


def check_network_policies(docs, where):
    """Default deny, then per edge only what each workload needs: the traffic the policies allow is
    worked out per workload and compared with the expected edges, both ways."""
    policies = [d for d in docs if d.get("kind") == "NetworkPolicy"]
    deny = [p for p in policies if p["spec"]["podSelector"] == {} and not p["spec"].get("ingress")
            and not p["spec"].get("egress")]
    check(any(set(p["spec"].get("policyTypes", [])) == {"Ingress", "Egress"} for p in deny),
          f"{where}: no default-deny NetworkPolicy for ingress and egress")
    pods = workloads(docs)
    want = expected_edges(pods)
    check(set(want) == set(pods), f"{where}: workloads without an expected edge list: {sorted(set(pods) - set(want))}")
    for name, allowed in edges(docs).items():
        for direction in ("Ingress", "Egress"):
            extra = allowed[direction] - want.get(name, {}).get(direction, set())
            missing = want.get(name, {}).get(direction, set()) - allowed[direction]
            check(not extra, f"{where}: {name} {direction.lower()} allows more than it needs: {sorted(map(str, extra))}")
            check(not missing, f"{where}: {name} {direction.lower()} lacks {sorted(map(str, missing))}")


def check_network_policies_reject(docs):
    """The edge check is shown to fail on a stateless service given the store, and on arbitration
    cut off from search-analysis."""
    def widen(copied):
        p = next(d for d in copied if d.get("kind") == "NetworkPolicy" and d["metadata"]["name"] == "arbiterd-store")
        p["spec"]["podSelector"]["matchExpressions"][0]["values"].append("arbiterd-rules-validation")

    def cut(copied):
        copied[:] = [d for d in copied if not (d.get("kind") == "NetworkPolicy"
                                                and d["metadata"]["name"] == "arbiterd-arbitration")]
    for mutate, what in ((widen, "rules-validation may reach Redis"), (cut, "arbitration cannot reach search-analysis")):
        check(failures_of(check_network_policies, docs, mutate), f"check_network_policies passes when {what}")


def failures_of(checker, docs, mutate):
    """The failures `checker` finds in a mutated copy of docs (kept out of the test's own)."""
    global failures
    copied = copy.deepcopy(docs)
    mutate(copied)
    kept, failures = failures, []
    checker(copied, "mutant")
    found, failures = failures, kept
    return found


def check_autoscaling(docs, where):
    """Each service's HPA owns its replicas: a replica count in the Deployment would be set back by
    every `kubectl apply`, fighting it; a PodDisruptionBudget lets drains take one pod at a time."""
    for deployment in servers(docs):
        name = deployment["metadata"]["name"]
        label = deployment["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"]
        hpas = [d for d in docs if d.get("kind") == "HorizontalPodAutoscaler"
                and d["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}]
        pdbs = [d for d in docs if d.get("kind") == "PodDisruptionBudget"
                and d["spec"]["selector"].get("matchLabels", {}).get("app.kubernetes.io/name") == label]
        check(len(hpas) == 1, f"{where}: not one HorizontalPodAutoscaler for {name}")
        check("replicas" not in deployment["spec"], f"{where}: {name} has spec.replicas beside its HPA")
        check(len(pdbs) == 1, f"{where}: not one PodDisruptionBudget for {name}")
        if len(hpas) == 1 and len(pdbs) == 1:
            h, budget = hpas[0]["spec"], pdbs[0]["spec"]
            check(2 <= h["minReplicas"] <= h["maxReplicas"], f"{where}: {name}'s HPA min {h['minReplicas']} max {h['maxReplicas']}")
            # A budget as large as the smallest deployment would block every node drain.
            check(budget.get("maxUnavailable", 0) >= 1 or budget.get("minAvailable", h["minReplicas"]) < h["minReplicas"],
                  f"{where}: {name}'s PodDisruptionBudget allows no disruption at minReplicas")


def duration_seconds(text):
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|s|m|h)", text)
    if not parts or "".join(a + b for a, b in parts) != text:
        return None
    return sum(float(a) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[b] for a, b in parts)


def check_connection_age(docs, where):
    """Long-lived HTTP/2 connections stay on one pod: the server must close them now and then
    (GRPC_ARG_MAX_CONNECTION_AGE_MS) for clients to rebalance over new pods."""
    for d in servers(docs):
        ages = flag_values(docs, d, "grpc_max_connection_age")
        check(len(ages) == 1, f"{where}: {d['metadata']['name']} has {len(ages)} --grpc_max_connection_age flags, "
              "want 1 (prod's kustomization.yaml adds it with a JSON patch: drop that patch if arbiterd/arbiterd.yaml "
              "has the flag)")
        for age in ages:
            seconds = duration_seconds(age)
            check(seconds is not None and 60 <= seconds <= 3600,
                  f"{where}: --grpc_max_connection_age={age} is not a duration of 1 minute to 1 hour")


def flag_values(docs, deployment, name):
    """A Deployment's arbiterd's values of --name, each with a $(VAR) resolved as the kubelet does:
    from the container's env, a literal or a ConfigMap's key (None where it resolves to nothing)."""
    c = deployment["spec"]["template"]["spec"]["containers"][0]
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
    """Production turns on what the server leaves off by default, in every service: tokens bound to
    this deployment's audience and issuer (a token minted for another service is refused), and a
    rate limit per caller (one token cannot take the server's capacity)."""
    check(servers(docs), f"{where}: no arbiterd Deployment")
    for d in servers(docs):
        at = f"{where}: {d['metadata']['name']}"
        for name in ("jwt_audience", "jwt_issuer"):
            values = flag_values(docs, d, name)
            check(len(values) == 1, f"{at} has {len(values)} --{name} flags, want 1")
            check(all(v and v.strip() == v for v in values),
                  f"{at}: --{name} is empty or names a ConfigMap key or variable that is not there: {values}")
        qps = flag_values(docs, d, "rate_limit_qps")
        check(len(qps) == 1, f"{at} has {len(qps)} --rate_limit_qps flags, want 1")
        for v in qps:
            try:
                rate = float(v)
            except (TypeError, ValueError):
                rate = None
            check(rate is not None and 1 <= rate <= 10000,
                  f"{at}: --rate_limit_qps={v} is not a limit of 1 to 10000 calls a second")
            for b in flag_values(docs, d, "rate_limit_burst"):
                check(rate is not None and b is not None and re.fullmatch(r"\d+(\.\d+)?", b) and float(b) >= rate,
                      f"{at}: --rate_limit_burst={b} is below --rate_limit_qps={v}")


def check_secure_defaults_rejects(docs):
    """The check above is shown to fail on prod with one service without each flag, and on an
    audience whose ConfigMap key is missing."""
    def mutant(mutate):
        return failures_of(check_secure_defaults, docs, lambda copied: mutate(
            servers(copied)[-1]["spec"]["template"]["spec"]["containers"][0], copied))
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
        if d in servers(docs):
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


def cpu_cores(quantity):
    q = str(quantity)
    return int(q[:-1]) / 1000 if q.endswith("m") else float(q)


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
    """Redis requires AUTH as the store's ACL user; the store's clients (the arbiterd Deployments
    that run the clock authority or arbitration) authenticate as it; the others have no store."""
    redis = next((d for d in docs if d.get("kind") == "StatefulSet" and d["metadata"]["name"] == "redis"), None)
    check(redis is not None and servers(docs), f"{where}: redis or arbiterd missing")
    if redis is None:
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
    probe = " ".join(map(str, rc.get("readinessProbe", {}).get("exec", {}).get("command", [])))
    check("REDISCLI_AUTH" in probe and "--user arbiter" in probe and "PONG" in probe,
          f"{where}: the redis probe does not authenticate as the store's user (or ignores the reply)")
    for d in servers(docs):
        check_store_client(d, f"{where}: {d['metadata']['name']}", redis_secret)


def check_store_client(arbiterd, where, redis_secret):
    """A client of the store names the ACL user and reads its password from the Secret Redis's ACL
    is made from; a service that keeps no state has no --store and mounts no store Secret. No
    arbiterd mounts the functions loader's Secret."""
    spec = arbiterd["spec"]["template"]["spec"]
    secrets = [v.get("secret", {}).get("secretName", "") for v in spec.get("volumes", [])]
    check(not any(n.startswith("redis-functions") for n in secrets), f"{where} mounts the functions loader's Secret")
    ac = spec["containers"][0]
    aargs = ac.get("args", [])
    store = next((a for a in aargs if a.startswith("--store=")), "")
    if not services_of(arbiterd) & STORE_CLIENTS:
        check(store == "" and not any(n.startswith("redis-auth") for n in secrets),
              f"{where} keeps no state but has the store ({store or 'the Secret redis-auth'})")
        return
    # Redis itself, or its Sentinels (components/redis-sentinel): as the ACL user either way.
    check(store.startswith(("--store=redis://arbiter@", "--store=redis+sentinel://arbiter@")),
          f"{where}: --store names no ACL user: {store}")
    userinfo = store.split("//", 1)[-1].split("@")[0] if "@" in store else ""
    check(":" not in userinfo, f"{where}: a password in --store")
    pwfile = next((a.split("=", 1)[1] for a in aargs if a.startswith("--store_password_file=")), "")
    check(pwfile != "", f"{where} without --store_password_file")
    if pwfile:
        secret = secret_path(spec, ac, pwfile)
        check(secret is not None, f"{where}: the password file is not in a mounted Secret")
        check(secret == redis_secret, f"{where} reads Secret {secret}, redis {redis_secret}")


def check_seal_key(docs, where):
    """Appendix A: arbitration reads the sealed moves' master key from a Secret mounted read-only;
    no other service has it."""
    check(any("arbitration" in services_of(d) for d in servers(docs)), f"{where}: no arbiterd runs arbitration")
    for d in servers(docs):
        at = f"{where}: {d['metadata']['name']}"
        spec = d["spec"]["template"]["spec"]
        c = spec["containers"][0]
        path = next((a.split("=", 1)[1] for a in c.get("args", []) if a.startswith("--seal_key_file=")), "")
        secrets = [v.get("secret", {}).get("secretName", "") for v in spec.get("volumes", [])]
        if "arbitration" not in services_of(d):
            check(path == "" and not any(n.startswith("arbiter-seal-key") for n in secrets),
                  f"{at} does not seal moves but has the seal key")
            continue
        check(path != "", f"{at} without --seal_key_file (adjourned games cannot be sealed)")
        if not path:
            continue
        # A generated Secret (the dev overlay's) carries kustomize's hash suffix.
        secret = secret_path(spec, c, path) or ""
        check(secret == "arbiter-seal-key" or secret.startswith("arbiter-seal-key-"),
              f"{at}: --seal_key_file {path} is not in the mounted Secret arbiter-seal-key")
        mount = next((m for m in c.get("volumeMounts", []) if path.startswith(m["mountPath"].rstrip("/") + "/")), {})
        check(mount.get("readOnly") is True, f"{at}: the seal key's mount is not read-only")


def check_record_key(docs, where):
    """Signed records (docs/RECORDS.md): arbitration signs with the key of the Secret
    arbiter-record-key, mounted read-only, and publishes the keys rotated out from the ConfigMap
    arbiter-record-keys; no other service has either."""
    for d in servers(docs):
        at = f"{where}: {d['metadata']['name']}"
        spec = d["spec"]["template"]["spec"]
        c = spec["containers"][0]
        args = c.get("args", [])
        path = next((a.split("=", 1)[1] for a in args if a.startswith("--record_signing_key=")), "")
        rotated = next((a.split("=", 1)[1] for a in args if a.startswith("--record_public_keys=")), "")
        secrets = [v.get("secret", {}).get("secretName", "") for v in spec.get("volumes", [])]
        maps = [v.get("configMap", {}).get("name", "") for v in spec.get("volumes", [])]
        if "arbitration" not in services_of(d):
            check(path == "" and rotated == "" and not any(n.startswith("arbiter-record-key") for n in secrets)
                  and not any(n.startswith("arbiter-record-keys") for n in maps),
                  f"{at} does not sign records but has the record keys")
            continue
        check(path != "", f"{at} without --record_signing_key (records are not signed)")
        check(rotated != "", f"{at} without --record_public_keys (rotated keys are not published)")
        if path:
            secret = secret_path(spec, c, path) or ""
            check(secret == "arbiter-record-key" or secret.startswith("arbiter-record-key-"),
                  f"{at}: --record_signing_key {path} is not in the mounted Secret arbiter-record-key")
        for p in (path, rotated):
            mount = next((m for m in c.get("volumeMounts", []) if p and p.startswith(m["mountPath"].rstrip("/") + "/")), None)
            check(mount is not None and mount.get("readOnly") is True, f"{at}: {p} is not on a read-only mount")


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


def components_of(directory):
    """The components a kustomization under ROOT includes, itself or through the kustomizations it
    lists as resources (prod's services/*), by name."""
    with open(os.path.join(ROOT, directory, "kustomization.yaml")) as f:
        k = yaml.safe_load(f)
    found = {os.path.basename(c) for c in k.get("components", [])}
    for r in k.get("resources", []):
        sub = os.path.normpath(os.path.join(directory, r))
        if os.path.isfile(os.path.join(ROOT, sub, "kustomization.yaml")):
            found |= components_of(sub)
    return found


def main():
    for tool, why in (("kubectl", "renders the overlays (kubectl kustomize; kustomize v5)"),
                      ("node", "runs the schema validator (tools/k8s-schemas)")):
        if shutil.which(tool) is None:
            print(f"FAIL: {tool} is not on this machine; it {why}")
            return 1
    old = kubectl_version.too_old()
    if old:
        kubectl_version.skip("k8s_test", old)
    if not os.path.isdir(os.path.join(os.path.dirname(VALIDATOR), "node_modules")):
        print(f"FAIL: {os.path.dirname(VALIDATOR)}/node_modules is missing: run tools/setup.sh (npm ci there)")
        return 1
    # The manifests as written (the all-in-one server and Redis), before any overlay.
    base = load_docs(sorted(glob.glob(os.path.join(ROOT, "base", "*.yaml")) + glob.glob(os.path.join(ROOT, "arbiterd", "*.yaml"))))
    base = [d for d in base if d.get("kind") != "Kustomization"]
    check_pods(base, "base", expect_auth=True)
    check_redis_auth(base, "base")
    check_seal_key(base, "base")
    check_record_key(base, "base")
    rendered = {}
    for overlay, auth, namespace in (("dev", False, "arbiter-dev"), ("prod", True, "arbiter")):
        docs = render(os.path.join("overlays", overlay))
        rendered[f"overlays/{overlay}"] = docs
        check_pods(docs, overlay, expect_auth=auth)
        check_redis_auth(docs, overlay)
        check_seal_key(docs, overlay)
        check_record_key(docs, overlay)
        check_restricted(docs, overlay)
        check_namespaces(docs, overlay, namespace)
        check_apply_size(docs, overlay)
        check_gateway_api(docs, overlay)
        if overlay == "dev":
            check([services_of(d) for d in servers(docs)] == [set(MODULES)],
                  "dev: not the all-in-one (one arbiterd running every service)")
        if overlay == "prod":
            check_apart(docs, overlay)
            check_apart_rejects(docs)
            check_routes(docs, overlay)
            check_routes_reject(docs)
            check_gateway_api_rejects(docs)
            check_network_policies(docs, overlay)
            check_network_policies_reject(docs)
            check_autoscaling(docs, overlay)
            check_connection_age(docs, overlay)
            check_secure_defaults(docs, overlay)
            check_secure_defaults_rejects(docs)
            included = components_of(os.path.join("overlays", "prod"))
            for name in COMPONENTS:
                if name in ALTERNATIVES:
                    check(name not in included, f"prod includes components/{name}, an alternative to "
                          f"components/{ALTERNATIVES[name]}")
                    continue
                check(name in included, f"prod (or a service it runs) does not include components/{name}")
            check_validator_rejects(docs)
    for name in COMPONENTS:
        docs = render(component_alone(name))
        rendered[f"components/{name}"] = docs
        check_restricted(docs, f"components/{name}")
        check_gateway_api(docs, f"components/{name}")
    # Offline schema validation of everything rendered (tools/k8s-schemas/validate.js), but for the
    # Gateway API's objects, which it has no schema for (check_gateway_api above).
    rc, out = validate({label: yaml.safe_dump_all([d for d in docs if not gateway_api(d)])
                        for label, docs in rendered.items()})
    check(rc == 0, f"schema validation:\n{out.strip()}")
    print(out.strip().splitlines()[-1] if out.strip() else "schema validation printed nothing")
    # The store's files, which kustomize can only read from under k8s/.
    for store_file, copy_name in ((STORE_CONF, "redis.conf"), (STORE_ACL, "redis-users.acl"),
                                  (STORE_FUNCTIONS, "redis_functions.lua")):
        with open(store_file) as a, open(os.path.join(ROOT, "base", copy_name)) as b:
            check(a.read() == b.read(), f"k8s/base/{copy_name} differs from libs/store/{copy_name} (copy it again)")
    check_acl(STORE_ACL)
    with open(STORE_CONF) as f:
        conf = dict(line.split(None, 1) for line in f if line.strip() and not line.startswith("#"))
    check(conf.get("protected-mode", "").strip() == "yes", "redis.conf: protected-mode is not yes")
    check(conf.get("maxmemory-policy", "").strip() == "noeviction", "redis.conf: maxmemory-policy is not noeviction")
    print("\n".join([f"FAIL: {f}" for f in failures] + [f"k8s manifests: {len(failures)} problems"]))
    return int(bool(failures))


if __name__ == "__main__":
    sys.exit(main())
