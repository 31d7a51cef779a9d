#!/usr/bin/env python3
"""Writes Arbiter's Grafana dashboards (k8s/dashboards/*.json) from the panel lists below: edit here,
then run `python3 k8s/dashboards/generate.py`. `--check` only compares (//k8s:monitoring_test runs
it, so the JSON files never drift from this script). Every query selects `job=~"$job",
instance=~"$instance"`; the data source is the template variable ${datasource}; the gRPC board reads
the standard grpc_server_* families (libs/service/metrics.h)."""
import json, os, sys

OUT = os.path.dirname(os.path.abspath(__file__))
CHECK = "--check" in sys.argv
STALE = []
SEL = 'job=~"$job", instance=~"$instance"'
RI = "$__rate_interval"

def rate_of(metric, by="", sel=SEL):
    """The per-second rate of a counter, summed (by the labels `by`)."""
    return f'sum{f" by ({by})" if by else ""} (rate({metric}{{{sel}}}[{RI}]))'.replace("sum (", "sum(", 1)

def quantile(q, metric, by="", sel=SEL):
    """The q-quantile of a histogram (metric without _bucket), over the labels `by`."""
    return f'histogram_quantile({q}, sum by ({by + ", " if by else ""}le) (rate({metric}_bucket{{{sel}}}[{RI}])))'

def ds():
    return {"type": "prometheus", "uid": "${datasource}"}

def var_datasource():
    return {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
            "current": {}, "hide": 0, "refresh": 1, "regex": "", "options": []}

def var_query(name, label, query, multi=True):
    return {"name": name, "label": label, "type": "query", "datasource": ds(),
            "definition": query, "query": {"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
            "refresh": 2, "includeAll": True, "allValue": ".+", "multi": multi, "sort": 1,
            "current": {"selected": True, "text": ["All"], "value": ["$__all"]}, "hide": 0, "options": [], "regex": ""}

def common_vars():
    return [var_datasource(),
            var_query("job", "Job", "label_values(arbiter_build_info, job)"),
            var_query("instance", "Instance", 'label_values(arbiter_build_info{job=~"$job"}, instance)')]

class Board:
    def __init__(self, uid, title, description, extra_vars=()):
        self.uid, self.title, self.description = uid, title, description
        self.vars = common_vars() + list(extra_vars)
        self.panels = []
        self.y = 0
        self.x = 0
        self.next_id = 1

    def row(self, title):
        if self.x:
            self.y += 8
            self.x = 0
        self.panels.append({"type": "row", "title": title, "id": self.next_id, "collapsed": False,
                            "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y}, "panels": []})
        self.next_id += 1
        self.y += 1

    def panel(self, title, targets, unit="short", description="", kind="timeseries", w=12, stack=False):
        if self.x + w > 24:
            self.y += 8
            self.x = 0
        p = {"type": kind, "title": title, "id": self.next_id, "datasource": ds(),
             "description": description,
             "gridPos": {"h": 8, "w": w, "x": self.x, "y": self.y},
             "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
             "options": {"legend": {"displayMode": "table", "placement": "bottom", "showLegend": True,
                                    "calcs": ["mean", "max", "lastNotNull"]},
                         "tooltip": {"mode": "multi", "sort": "desc"}},
             "targets": []}
        if kind == "stat":
            p["options"] = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                            "colorMode": "value", "graphMode": "area", "textMode": "auto"}
        if stack:
            p["fieldConfig"]["defaults"]["custom"] = {"stacking": {"mode": "normal", "group": "A"}, "fillOpacity": 30}
        for i, (expr, legend) in enumerate(targets):
            p["targets"].append({"datasource": ds(), "refId": chr(ord("A") + i), "expr": expr,
                                 "legendFormat": legend, "range": True, "instant": False})
        self.panels.append(p)
        self.next_id += 1
        self.x += w
        if self.x >= 24:
            self.x = 0
            self.y += 8

    def write(self, name):
        board = {"uid": self.uid, "title": self.title, "description": self.description,
                 "tags": ["arbiter"], "timezone": "utc", "schemaVersion": 38, "version": 1,
                 "editable": True, "graphTooltip": 1, "refresh": "30s",
                 "time": {"from": "now-1h", "to": "now"},
                 "__inputs": [], "annotations": {"list": []}, "links": [],
                 "templating": {"list": self.vars}, "panels": self.panels}
        text = json.dumps(board, indent=2) + "\n"
        path = os.path.join(OUT, name)
        if CHECK:
            if not os.path.exists(path) or open(path).read() != text:
                STALE.append(name)
            return
        with open(path, "w") as f:
            f.write(text)

# --- gRPC RED ------------------------------------------------------------------------------------
G = SEL + ', grpc_service=~"$grpc_service", grpc_method=~"$grpc_method"'
SERVER_ERRORS = 'grpc_code=~"Unknown|DeadlineExceeded|Unimplemented|Internal|Unavailable|DataLoss"'
# What a caller sees fail: the server's failures and, on the client's side, a server that was not
# there or too slow (Unavailable, DeadlineExceeded) or refused the load (ResourceExhausted).
CLIENT_ERRORS = 'grpc_code=~"Unknown|DeadlineExceeded|Unimplemented|Internal|Unavailable|DataLoss|ResourceExhausted"'
METHOD = "grpc_service, grpc_method"
BY_METHOD = "{{grpc_service}}/{{grpc_method}}"

def calls(b, family, sel, errors, what):
    """Errors and duration of unary calls, from the standard families of one side (grpc_server_* or
    grpc_client_*), labelled grpc_service, grpc_method, grpc_code."""
    handled = f"{family}_handled_total"
    b.panel(f"{what} error ratio by method", [
        (f"{rate_of(handled, METHOD, f'{sel}, {errors}')} / {rate_of(handled, METHOD, sel)}", BY_METHOD)],
        "percentunit", f"{errors.split('~', 1)[1]} over every answer.")
    b.panel(f"{what} answers per second by method and code", [
        (rate_of(handled, METHOD + ", grpc_code", sel), "{{grpc_method}} {{grpc_code}}")], "reqps",
        "Refusals the Laws or the caller caused (InvalidArgument, FailedPrecondition, NotFound, PermissionDenied, ...) "
        "are answers, not outages.", stack=True)
    for q in ("0.5", "0.99"):
        b.panel(f"{what} p{q[2:].ljust(2, '0')} latency by method", [
            (quantile(q, f"{family}_handling_seconds", METHOD, sel), BY_METHOD)], "s")

b = Board("arbiter-grpc", "Arbiter / gRPC",
          "Rate, errors and duration of every gRPC method (the standard grpc_server_* families: "
          "grpc_service, grpc_method, grpc_type, grpc_code), per service apart (`job`: one per "
          "Deployment in prod), and the calls arbitration makes to search-analysis (grpc_client_*). "
          "Latency is of unary calls only; streams show their messages.",
          [var_query("grpc_service", "Service", 'label_values(grpc_server_started_total{job=~"$job"}, grpc_service)'),
           var_query("grpc_method", "Method", 'label_values(grpc_server_started_total{job=~"$job", grpc_service=~"$grpc_service"}, grpc_method)')])
b.row("Rate")
b.panel("Requests per second by job (service)", [(rate_of("grpc_server_handled_total", "job", G), "{{job}}")], "reqps",
        "Each Deployment is its own job (the Service's name): apart, one per service; all-in-one, one.")
b.panel("Requests per second by method", [(rate_of("grpc_server_handled_total", METHOD, G), BY_METHOD)], "reqps")
b.row("Errors and duration (server, unary)")
calls(b, "grpc_server", G, SERVER_ERRORS, "Server")
# Arbitration's client (--analysis_target): every call it ended, by the code it got. Unavailable
# and DeadlineExceeded: the analysis was not there or too slow (the ruling that needed it waits for
# the arbiter's review). Empty all-in-one: no remote calls.
b.row("Arbitration -> search-analysis (client calls)")
calls(b, "grpc_client", SEL, CLIENT_ERRORS, "Client")
b.row("Streams and load")
b.panel("Stream messages per second", [
    (rate_of("grpc_server_msg_sent_total", METHOD, G + ', grpc_type!="unary"'), "sent {{grpc_method}}"),
    (rate_of("grpc_server_msg_received_total", METHOD, G + ', grpc_type!="unary"'), "received {{grpc_method}}")],
    "short")
b.panel("Calls in progress (open streams included)", [
    (f'sum by (grpc_service, grpc_method) (grpc_server_started_total{{{G}}}) - '
     f'sum by (grpc_service, grpc_method) (grpc_server_handled_total{{{G}}})', BY_METHOD)], "short")
b.panel("CPU by instance", [
    (f'rate(process_cpu_seconds_total{{{SEL}}}[{RI}])', "{{instance}}")], "percentunit")
b.panel("Resident memory by instance", [
    (f'process_resident_memory_bytes{{{SEL}}}', "{{instance}}")], "bytes")
b.panel("Calls refused as overloaded per second (--max_calls_in_flight)", [
    (f'sum by (instance) (rate(arbiter_calls_refused_overloaded_total{{{SEL}}}[{RI}]))',
     "{{instance}}")], "reqps")
b.write("arbiter-grpc.json")

# --- Games and arbitration -----------------------------------------------------------------------
b = Board("arbiter-games", "Arbiter / Games and arbitration",
          "Games of the arbitration service: live games, moves, draw offers, claims by kind and "
          "ruling, results by termination, claims waiting for an arbiter (10.2, Appendix D).")
b.row("Games")
b.panel("Live games", [(f'sum(arbiter_arbitration_live_games{{{SEL}}})', "live games")], "short",
        "Games created and not ended, as each replica last wrote them (summed over replicas).", kind="stat", w=6)
b.panel("Rulings waiting for an arbiter", [(f'sum(arbiter_arbitration_awaiting_ruling{{{SEL}}})', "waiting")], "short",
        "Games whose claim (10.2, D1) awaits an arbiter's ruling: someone must rule (arbiterctl game rule).", kind="stat", w=6)
b.panel("Moves per second", [
    (rate_of("arbiter_arbitration_moves_total"), "game moves"),
    (rate_of("arbiter_clock_presses_total", "result"), "clock presses {{result}}")], "ops")
b.panel("Live games by instance", [(f'sum by (instance) (arbiter_arbitration_live_games{{{SEL}}})', "{{instance}}")], "short")
b.panel("Draw offers per second (9.1)", [(rate_of("arbiter_arbitration_draw_offers_total"), "draw offers")], "ops")
b.row("Claims, rulings and results")
b.panel("Claims by kind and ruling", [
    (rate_of("arbiter_arbitration_claims_total", "kind, ruling"), "{{kind}} {{ruling}}")], "ops",
    "threefold, fifty, quickplay, time; correct, incorrect (9.5b penalty) or pending (an arbiter must rule).", stack=True)
b.panel("Arbiters' rulings by decision (10.2, D1)", [
    (rate_of("arbiter_arbitration_rulings_total", "decision"), "{{decision}}")], "ops",
    "Rulings on pending claims: draw, postpone (with or without two minutes added), reject.")
b.panel("Results by termination", [
    (rate_of("arbiter_arbitration_results_total", "termination"), "{{termination}}")], "ops", stack=True)
b.panel("Game commands by outcome", [
    (rate_of("arbiter_arbitration_commands_total", "command, code"), "{{command}} {{code}}")], "ops", w=24)
b.row("The service's own work")
b.panel("Flags and defaults the arbitration service recorded", [
    (rate_of("arbiter_arbitration_deadlines_fired_total"), "fired")], "ops")
b.panel("Dead-position searches on the move path", [
    (rate_of("arbiter_arbitration_analysis_calls_total"), "searches")], "ops")
b.panel("Lost compare-and-set races (retried)", [
    (rate_of("arbiter_arbitration_version_conflicts_total"), "conflicts")], "ops")
b.panel("Deadline timers and scheduler errors", [
    (f'sum by (instance) (arbiter_arbitration_tracked_deadlines{{{SEL}}})', "timers {{instance}}"),
    (rate_of("arbiter_arbitration_scheduler_errors_total", "instance"), "errors/s {{instance}}")], "short")
b.write("arbiter-games.json")

# --- Clocks and flags ----------------------------------------------------------------------------
b = Board("arbiter-clocks", "Arbiter / Clocks and flags",
          "The clock authority: flags fired by the server and how late they were noticed (goal: "
          "p99 <= 10 ms), the time base's uncertainty, clocks running, the scheduler.")
b.row("Flags")
b.panel("Flags fired per second", [
    (rate_of("arbiter_clock_flags_fired_total", "counts"), "counts={{counts}}"),
    (rate_of("arbiter_clock_defaults_total"), "defaults (6.7)")], "ops",
    "counts=false: rapid/blitz flags that only a claim turns into a result (B6).")
b.panel("Flag detection delay", [
    (quantile(0.5, "arbiter_clock_flag_detection_delay_seconds"), "p50"),
    (quantile(0.99, "arbiter_clock_flag_detection_delay_seconds"), "p99"),
    (quantile(0.999, "arbiter_clock_flag_detection_delay_seconds"), "p99.9")],
    "s", "When the fall was noticed minus when it fell, on the store's clock. Goal: p99 <= 10 ms (alert ArbiterFlagDetectionDelayHigh).")
b.row("Time base")
b.panel("Time uncertainty by instance", [
    (f'max by (instance) (arbiter_clock_time_uncertainty_seconds{{{SEL}}})', "{{instance}}")], "s",
    "Error bound of each replica's estimate of the store's clock (about 0.5 ms on a healthy network; alert above 5 ms).")
b.panel("Clocks running and deadlines pending", [
    (f'sum(arbiter_clock_running_clocks{{{SEL}}})', "running clocks (sum of replicas)"),
    (f'max(arbiter_clock_pending_deadlines{{{SEL}}})', "deadlines in the store's index"),
    (f'sum(arbiter_clock_tracked_deadlines{{{SEL}}})', "local flag timers")], "short")
b.row("Scheduler and commands")
b.panel("Scheduler errors and deadline claims", [
    (rate_of("arbiter_clock_scheduler_errors_total", "instance"), "errors {{instance}}"),
    (rate_of("arbiter_clock_deadline_claims_total", "instance"), "claims {{instance}}")], "ops")
b.panel("Sweep duration p99", [
    (quantile(0.99, "arbiter_clock_sweep_seconds", "instance"), "{{instance}}")], "s")
b.panel("Clock commands by outcome", [
    (rate_of("arbiter_clock_commands_total", "command, code"), "{{command}} {{code}}")], "ops")
b.panel("Lost compare-and-set races (retried)", [
    (rate_of("arbiter_clock_version_conflicts_total"), "conflicts")], "ops")
b.write("arbiter-clocks.json")

# --- Store and analysis --------------------------------------------------------------------------
b = Board("arbiter-store-analysis", "Arbiter / Store and analysis",
          "The game store (Redis) as the clock authority sees it, Sentinel failovers, and the "
          "search analyses with their engine pool.")
b.row("Store")
b.panel("Store latency p99 by operation", [
    (quantile(0.99, "arbiter_clock_store_latency_seconds", "op"), "{{op}}")], "s")
b.panel("Store errors per second by operation and code", [
    (rate_of("arbiter_clock_store_errors_total", "op, code"), "{{op}} {{code}}")], "ops",
    "Failed store calls; lost races and unknown games are answers and not counted. Empty while nothing ever failed.")
b.panel("Store calls per second by operation", [
    (rate_of("arbiter_clock_store_latency_seconds_count", "op"), "{{op}}")], "ops")
b.panel("Redis failover (Sentinel)", [
    (f'max by (instance) (arbiter_store_failover_in_progress{{{SEL}}})', "failover in progress {{instance}}"),
    (f'sum by (instance) (increase(arbiter_store_master_switches_total{{{SEL}}}[{RI}]))', "master switches {{instance}}"),
    (rate_of("arbiter_store_replica_ack_failures_total", "instance"), "replica ack failures/s {{instance}}")], "short",
    "Exported by the store when it runs through Sentinel: 1 while the store waits for a new master; master changes it followed; writes a replica did not acknowledge.")
b.row("Analysis")
b.panel("Analysis latency p99 by kind", [
    (quantile(0.99, "arbiter_analysis_duration_seconds", "kind"), "{{kind}}")], "s")
b.panel("Undetermined answers (a limit ran out) by kind", [
    (f'max by (kind) (arbiter_analysis_undetermined_ratio{{{SEL}}})', "{{kind}}")], "percentunit",
    "Share of answers since start that were undetermined.")
b.panel("Verdicts per second", [
    (rate_of("arbiter_analysis_verdicts_total", "kind, verdict"), "{{kind}} {{verdict}}")], "ops")
b.panel("Queue and workers", [
    (f'sum(arbiter_analysis_queue_length{{{SEL}}})', "queued"),
    (f'sum by (state) (arbiter_analysis_workers{{{SEL}}})', "workers {{state}}"),
    (quantile(0.99, "arbiter_analysis_queue_wait_seconds"), "queue wait p99 (s)")], "short")
b.row("Engine pool")
b.panel("Engine pool available", [(f'min by (instance) (arbiter_engine_pool_available{{{SEL}}})', "{{instance}}")], "short",
        "0: engine RPCs answer UNAVAILABLE on that instance.", w=8)
b.panel("Engines by state", [(f'sum by (state) (arbiter_engine_pool_engines{{{SEL}}})', "{{state}}")], "short", stack=True, w=8)
b.panel("Engine restarts", [(f'sum by (instance) (increase(arbiter_engine_pool_restarts_total{{{SEL}}}[{RI}]))', "{{instance}}")], "short",
        "Engines started to replace dead or hung ones (alert ArbiterEngineRestarts).", w=8)
b.write("arbiter-store-analysis.json")

if STALE:
    sys.exit("out of date, run python3 k8s/dashboards/generate.py: " + ", ".join(STALE))
