#!/usr/bin/env python3
"""Checks Arbiter's monitoring without a cluster:

- `promtool check rules` on k8s/monitoring/arbiter.rules.yaml and `promtool test rules` on its unit
  tests (arbiter.rules_test.yaml), where every alert must be tested firing;
- every alert has a severity, a `for:` duration, a summary, a description and a runbook_url that
  is docs/runbooks/<alert>.md, which exists and says what it means, how to confirm, what to do;
- the PrometheusRule of k8s/components/monitoring holds exactly the rules file's groups (no drift);
- the dashboards (k8s/dashboards/*.json, written by k8s/dashboards/generate.py, which they must
  match) are Grafana dashboards on the ${datasource} variable, read the standard gRPC families (never a `service` label, which Prometheus's own target labels use);
- the component renders with kubectl kustomize on its own and inside an overlay on base, and its
  ConfigMap holds the dashboards, labelled grafana_dashboard: "1"; with it, components/service-monitor
  scrapes the server's Service (one ServiceMonitor per Deployment: prod's services each have one);
- the dashboards and alerts work per service (`job`, the Service's name: one per Deployment in
  prod) and show arbitration's calls to search-analysis (the grpc_client_* families).

promtool comes with Debian's `prometheus` package (tools/setup.sh); the test fails, saying so, when
it is missing. kubectl is used when installed and new enough (1.27, as //k8s:k8s_test): with an
older one the render is skipped, saying so."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from k8s import kubectl_version  # noqa: E402 (the workspace root first)

HERE = os.path.dirname(os.path.abspath(__file__))
K8S = os.path.dirname(HERE)
REPO = os.path.dirname(K8S)
RULES = os.path.join(HERE, "arbiter.rules.yaml")
RULES_TEST = os.path.join(HERE, "arbiter.rules_test.yaml")
COMPONENT = os.path.join(K8S, "components", "monitoring")
DASHBOARDS = sorted(glob.glob(os.path.join(K8S, "dashboards", "*.json")))
RUNBOOKS = os.path.join(REPO, "docs", "runbooks")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def find_promtool():
    for path in (shutil.which("promtool"), "/usr/bin/promtool"):
        if path and os.path.exists(path):
            return path
    return None


def alerts_of(groups):
    return [r for g in groups for r in g["rules"] if "alert" in r]


def test_promtool():
    promtool = find_promtool()
    if promtool is None:
        failures.append("promtool is missing: install Debian's `prometheus` package (tools/setup.sh)")
        return
    for args in (["check", "rules", RULES], ["test", "rules", RULES_TEST]):
        # The rules test names its rule file relative to itself.
        run = subprocess.run([promtool] + args, cwd=HERE, capture_output=True, text=True)
        check(run.returncode == 0,
              f"promtool {' '.join(args[:2])} failed:\n{run.stdout}\n{run.stderr}")


def test_alerts():
    groups = yaml.safe_load(open(RULES))["groups"]
    alerts = alerts_of(groups)
    check(len(alerts) >= 8, f"expected at least 8 alerts, found {len(alerts)}")
    names = [a["alert"] for a in alerts]
    check(len(names) == len(set(names)), f"duplicate alert names: {names}")
    for want in ("ArbiterFlagDetectionDelayHigh", "ArbiterStoreErrors", "ArbiterSchedulerErrors",
                 "ArbiterEngineRestarts", "ArbiterInsecureDevMode", "ArbiterTimeUncertaintyHigh",
                 "ArbiterRedisFailoverInProgress", "ArbiterGrpcServerErrors", "ArbiterAnalysisCallsFailing"):
        check(want in names, f"missing alert {want}")
    tested = set()
    for test in yaml.safe_load(open(RULES_TEST))["tests"]:
        for case in test.get("alert_rule_test", []):
            if case.get("exp_alerts"):
                tested.add(case["alertname"])
    for a in alerts:
        name = a["alert"]
        check(a.get("labels", {}).get("severity") in ("warning", "critical"),
              f"{name}: severity must be warning or critical")
        check(re.fullmatch(r"[0-9]+[smh]", str(a.get("for", ""))) is not None,
              f"{name}: needs a for: duration")
        ann = a.get("annotations", {})
        check(ann.get("summary") and ann.get("description"), f"{name}: summary and description")
        check(ann.get("runbook_url") == f"docs/runbooks/{name}.md",
              f"{name}: runbook_url must be docs/runbooks/{name}.md, not {ann.get('runbook_url')}")
        runbook = os.path.join(RUNBOOKS, f"{name}.md")
        check(os.path.exists(runbook), f"{name}: no runbook {runbook}")
        if os.path.exists(runbook):
            text = open(runbook).read()
            for section in ("## What it means", "## How to confirm", "## What to do"):
                check(section in text, f"{runbook}: no section '{section}'")
        check(name in tested, f"{name}: no promtool unit test expects it to fire")
    # The outage procedure: the arbiter pauses every clock of the event (6.13) and resumes.
    outage = open(os.path.join(RUNBOOKS, "event-outage.md")).read()
    for needle in ("6.13", "clock pause --game", "clock resume --game", "clock adjust --game"):
        check(needle in outage, f"event-outage.md does not mention {needle!r}")
    for name in ("ArbiterStoreErrors", "ArbiterRedisFailoverInProgress", "ArbiterGrpcServerErrors"):
        check("event-outage.md" in open(os.path.join(RUNBOOKS, f"{name}.md")).read(),
              f"{name}.md does not point to the outage procedure")


def test_prometheus_rule_matches_rules_file():
    groups = yaml.safe_load(open(RULES))["groups"]
    rule = yaml.safe_load(open(os.path.join(COMPONENT, "prometheus-rule.yaml")))
    check(rule["apiVersion"] == "monitoring.coreos.com/v1" and rule["kind"] == "PrometheusRule",
          "prometheus-rule.yaml is not a monitoring.coreos.com/v1 PrometheusRule")
    check(rule["spec"]["groups"] == groups,
          "the PrometheusRule's groups differ from k8s/monitoring/arbiter.rules.yaml: copy them")


def exprs_of(board):
    for panel in board.get("panels", []):
        for inner in [panel] + panel.get("panels", []):
            for target in inner.get("targets", []):
                if "expr" in target:
                    yield inner, target["expr"]


def test_dashboards():
    check(len(DASHBOARDS) >= 4, f"expected 4 dashboards, found {DASHBOARDS}")
    generated = subprocess.run(
        [sys.executable, os.path.join(K8S, "dashboards", "generate.py"), "--check"],
        capture_output=True, text=True)
    check(generated.returncode == 0, f"dashboards differ from generate.py: {generated.stderr}")
    uids = set()
    for path in DASHBOARDS:
        name = os.path.basename(path)
        board = json.load(open(path))
        check(board.get("uid") and board["uid"] not in uids, f"{name}: missing or repeated uid")
        uids.add(board.get("uid"))
        variables = {v["name"]: v for v in board["templating"]["list"]}
        check(variables.get("datasource", {}).get("type") == "datasource",
              f"{name}: no datasource template variable")
        exprs = list(exprs_of(board))
        check(len(exprs) >= 5, f"{name}: only {len(exprs)} queries")
        for panel, expr in exprs:
            what = f"{name} panel {panel.get('title')!r}"
            check(panel.get("datasource", {}).get("uid") == "${datasource}",
                  f"{what}: datasource must be ${{datasource}}")
            check(re.search(r"[{,]\s*service\s*(=|!=|=~|!~)", expr) is None,
                  f"{what}: matches a label `service` (use grpc_service): {expr}")
            check("arbiter_grpc_" not in expr,
                  f"{what}: reads arbiter_grpc_* (use the standard grpc_server_* families)")
        for var in variables.values():
            check("service=" not in var.get("definition", "").replace("grpc_service=", ""),
                  f"{name}: variable {var['name']} matches a label `service`")
    text = " ".join(open(p).read() for p in DASHBOARDS)
    for needle in ("grpc_server_handled_total", "grpc_server_handling_seconds_bucket",
                   "grpc_server_msg_sent_total", "arbiter_arbitration_live_games",
                   "arbiter_arbitration_claims_total", "arbiter_arbitration_awaiting_ruling",
                   "arbiter_clock_flag_detection_delay_seconds_bucket",
                   "arbiter_clock_time_uncertainty_seconds", "arbiter_clock_store_latency_seconds",
                   "arbiter_clock_store_errors_total", "arbiter_analysis_duration_seconds_bucket",
                   "arbiter_analysis_undetermined_ratio", "arbiter_engine_pool_engines",
                   "arbiter_engine_pool_restarts_total", "arbiter_store_failover_in_progress",
                   # Arbitration's calls to search-analysis, by method and code.
                   "grpc_client_handled_total", "grpc_client_handling_seconds_bucket",
                   "sum by (grpc_service, grpc_method, grpc_code) (rate(grpc_client_handled_total",
                   # The services apart: each Deployment is its own job.
                   "sum by (job) (rate(grpc_server_handled_total"):
        check(needle in text, f"no dashboard reads {needle}")


def kustomize(directory):
    run = subprocess.run(["kubectl", "kustomize", directory], capture_output=True, text=True)
    check(run.returncode == 0, f"kubectl kustomize {directory} failed:\n{run.stderr}")
    return [d for d in yaml.safe_load_all(run.stdout) if d] if run.returncode == 0 else []


def test_component_renders():
    if shutil.which("kubectl") is None:
        print("kubectl not installed: the component's render is not checked", file=sys.stderr)
        return
    old = kubectl_version.too_old()
    if old:
        print(f"SKIPPED: the component's render: {old}", file=sys.stderr)
        return
    # Bazel's runfiles are symlinks, which kustomize's load restrictor refuses: a real copy.
    root = os.path.join(tempfile.mkdtemp(), "k8s")
    for part in ("base", "arbiterd", "dashboards", os.path.join("components", "monitoring"),
                 os.path.join("components", "service-monitor")):
        shutil.copytree(os.path.join(K8S, part), os.path.join(root, part), symlinks=False)
    overlay = os.path.join(root, "overlays", "check")
    os.makedirs(overlay)
    with open(os.path.join(overlay, "kustomization.yaml"), "w") as f:
        f.write("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
                "namespace: arbiter\nresources:\n  - ../../base\n  - ../../arbiterd\n"
                "components:\n  - ../../components/monitoring\n  - ../../components/service-monitor\n")
    standalone = kustomize(os.path.join(root, "components", "monitoring"))
    kinds = sorted(d["kind"] for d in standalone)
    check(kinds == ["ConfigMap", "PrometheusRule"], f"the component renders {kinds}")
    docs = kustomize(overlay)
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    monitors = by_kind.get("ServiceMonitor", [])
    check(len(monitors) == 1, "no ServiceMonitor in the overlay")
    services = [s for s in by_kind.get("Service", []) if s["metadata"]["name"] == "arbiterd"]
    if monitors and services:
        sm, svc = monitors[0], services[0]
        check(sm["metadata"].get("namespace") == "arbiter", "the ServiceMonitor is not namespaced")
        selector = sm["spec"]["selector"]["matchLabels"]
        check(all(svc["metadata"]["labels"].get(k) == v for k, v in selector.items()),
              f"the ServiceMonitor's selector {selector} does not select the arbiterd Service")
        ports = {p["name"]: p for p in svc["spec"]["ports"]}
        endpoint = sm["spec"]["endpoints"][0]
        check(endpoint["port"] in ports and ports[endpoint["port"]]["port"] == 9090,
              "the ServiceMonitor does not scrape the Service's metrics port 9090")
        check(endpoint.get("path") == "/metrics", "the ServiceMonitor's path is not /metrics")
    maps = [c for c in by_kind.get("ConfigMap", [])
            if c["metadata"]["name"] == "arbiter-grafana-dashboards"]
    check(len(maps) == 1, "no dashboards ConfigMap in the overlay")
    if maps:
        check(maps[0]["metadata"].get("labels", {}).get("grafana_dashboard") == "1",
              "the dashboards ConfigMap lacks the label grafana_dashboard: \"1\"")
        for path in DASHBOARDS:
            check(maps[0]["data"].get(os.path.basename(path)) == open(path).read(),
                  f"the ConfigMap's {os.path.basename(path)} is not the file")
    rules = by_kind.get("PrometheusRule", [])
    check(len(rules) == 1 and rules[0]["spec"]["groups"] == yaml.safe_load(open(RULES))["groups"],
          "the rendered PrometheusRule differs from the rules file")


def main():
    for test in (test_promtool, test_alerts, test_prometheus_rule_matches_rules_file,
                 test_dashboards, test_component_renders):
        test()
    if failures:
        for f in failures:
            print("FAIL:", f, file=sys.stderr)
        sys.exit(1)
    print("monitoring: ok")


if __name__ == "__main__":
    main()
