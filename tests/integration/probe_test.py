#!/usr/bin/env python3
"""The prod overlay's probes, rendered, against a real TLS-serving arbiterd.

`kubectl kustomize k8s/overlays/prod` gives the arbiterd container's readiness and liveness probes
(`grpc: {port, service}`) and its args. arbiterd runs with those args (addresses moved to free
loopback ports, the test's certificate, keys and a redis-server it starts), and each probe is
made as the kubelet makes it: plaintext gRPC grpc.health.v1.Health/Check to 127.0.0.1 on the port
that --health_address gives for the probe's port, with the probe's service name
(//tools/grpc_probe). Both must be SERVING. The same plaintext call to the TLS port fails (the
bug: the pods never became ready). With Redis stopped, readiness turns NOT_SERVING and liveness
stays SERVING; with Redis back, readiness is SERVING again.

Needs kubectl and redis-server on the machine (tools/setup.sh installs them)."""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from k8s import kubectl_version  # noqa: E402 (the workspace root first)

SRC = os.path.join(os.environ.get("TEST_SRCDIR", ""), "arbiter")
TMP = os.environ.get("TEST_TMPDIR") or tempfile.mkdtemp()
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def runfile(rel):
    path = os.path.join(SRC, rel)
    if not os.path.exists(path):
        sys.exit(f"probe_test: missing runfile {rel}")
    return path


def need(tool):
    path = shutil.which(tool) or (f"/usr/bin/{tool}" if os.path.exists(f"/usr/bin/{tool}") else None)
    if path is None:
        sys.exit(f"probe_test: {tool} is not installed (tools/setup.sh installs it)")
    return path


def render_prod():
    # Bazel's runfiles are symlinks, which kustomize's load restrictor refuses: a real copy.
    root = os.path.join(tempfile.mkdtemp(dir=TMP), "k8s")
    shutil.copytree(os.path.join(SRC, "k8s"), root, symlinks=False)
    out = subprocess.run([need("kubectl"), "kustomize", os.path.join(root, "overlays", "prod")],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"probe_test: kubectl kustomize overlays/prod: {out.stderr.strip()}")
    for d in yaml.safe_load_all(out.stdout):
        if d and d.get("kind") == "Deployment" and d["metadata"]["name"] == "arbiterd-arbitration":
            for c in d["spec"]["template"]["spec"]["containers"]:
                if c["name"] == "arbiterd":
                    return c
    sys.exit("probe_test: no arbiterd container in the rendered prod overlay's arbitration")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(port, data_dir):
    proc = subprocess.Popen([need("redis-server"), "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no", "--dir", data_dir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    load_functions(s)
                    return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    sys.exit("probe_test: redis-server did not start")


def load_functions(conn):
    """The store's functions, as the Redis pod's postStart loads them (arbiterd refuses to start
    against a Redis without them): the manifests' copy of libs/store/redis_functions.lua."""
    with open(runfile("k8s/base/redis_functions.lua"), "rb") as f:
        library = f.read()
    args = [b"FUNCTION", b"LOAD", b"REPLACE", library]
    conn.sendall(b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args))
    reply = conn.recv(256)
    if not reply.startswith(b"$"):
        sys.exit(f"probe_test: FUNCTION LOAD: {reply!r}")


def probe(port, service):
    """(exit code, output) of one plaintext Check, as the kubelet makes it (1 s timeout)."""
    out = subprocess.run([runfile("tools/grpc_probe/grpc_probe"), f"--address=127.0.0.1:{port}",
                          f"--service={service}", "--timeout=1s"], capture_output=True, text=True)
    return out.returncode, out.stdout.strip()


def wait_for(port, service, code, seconds=15):
    deadline = time.time() + seconds
    while True:
        got = probe(port, service)
        if got[0] == code or time.time() > deadline:
            return got
        time.sleep(0.2)


def main():
    old = kubectl_version.too_old()
    if old:
        kubectl_version.skip("probe_test", old)
    container = render_prod()
    args = container.get("args", [])
    flags = dict(a[2:].split("=", 1) for a in args if a.startswith("--") and "=" in a)
    probes = {}
    for name in ("readinessProbe", "livenessProbe"):
        grpc = container.get(name, {}).get("grpc")
        check(grpc is not None, f"{name} is not a gRPC probe")
        if grpc is None:
            continue
        probes[name] = (int(grpc["port"]), grpc.get("service", ""))
    check("health_address" in flags, "arbiterd has no --health_address in prod")
    check("tls_cert" in flags, "arbiterd does not serve TLS in prod")
    health_port = int(flags.get("health_address", ":0").rsplit(":", 1)[1])
    grpc_port = int(flags.get("grpc_address", ":7070").rsplit(":", 1)[1])
    for name, (port, service) in probes.items():
        check(port == health_port, f"{name} probes port {port}, not --health_address's {health_port}")
        check(port != grpc_port, f"{name} probes the TLS port {port}")
    if failures:
        sys.exit(1)

    redis_port = free_port()
    redis = start_redis(redis_port, tempfile.mkdtemp(dir=TMP))
    testdata = os.path.join(SRC, "libs", "service", "testdata")
    # The Secret's seal key (Appendix A's sealed moves): 32 bytes of the test's.
    seal_key = os.path.join(TMP, "seal.key")
    with open(seal_key, "wb") as f:
        f.write(os.urandom(32))
    # The rendered args, with the pod's addresses, secrets and store replaced by the test's.
    replaced = {
        "grpc_address": "127.0.0.1:0",
        "health_address": "127.0.0.1:0",
        "metrics_address": "none",
        "store": f"redis://127.0.0.1:{redis_port}",
        "auth_keys": os.path.join(testdata, "keys.json"),
        "tls_cert": os.path.join(testdata, "server.pem"),
        "tls_key": os.path.join(testdata, "server.key.pem"),
        "shutdown_grace": "0s",
        "seal_key_file": seal_key,
    }
    # This test starts no search-analysis: arbitration answers the analysis in process; and it
    # signs no records (the Secret's signing key and the published keys are the pod's).
    dropped = {"store_password_file", "analysis_target", "analysis_token_key", "analysis_tls_ca",
               "record_signing_key", "record_public_keys"}
    server_args = [a for a in args
                   if not (a.startswith("--") and a[2:].split("=", 1)[0] in set(replaced) | dropped)]
    server_args += [f"--{k}={v}" for k, v in replaced.items()]
    log_path = os.path.join(TMP, "arbiterd.log")
    with open(log_path, "w") as log:
        server = subprocess.Popen([runfile("services/arbiterd/arbiterd")] + server_args,
                                  stdout=subprocess.DEVNULL, stderr=log)
    try:
        ports = None
        deadline = time.time() + 30
        while ports is None and time.time() < deadline and server.poll() is None:
            with open(log_path) as f:
                for line in f:
                    entry = json.loads(line) if line.startswith("{") else {}
                    if entry.get("msg") == "serving":
                        ports = (int(entry["grpc_port"]), int(entry["health_port"]))
            time.sleep(0.05)
        if ports is None:
            with open(log_path) as f:
                sys.exit(f"probe_test: arbiterd did not start:\n{f.read()}")
        tls_port, plain_port = ports
        check(plain_port != 0, "arbiterd reports no health port")

        # The kubelet's call on the probe's port (mapped to the test's free port).
        for name, (_, service) in probes.items():
            code, out = wait_for(plain_port, service, 0)
            check(code == 0 and out == "SERVING", f"{name} ({service!r}) answered {out!r}")
        # The same call on the TLS port: what the kubelet would meet without the health port.
        code, out = probe(tls_port, probes["readinessProbe"][1])
        check(code == 2, f"a plaintext Check on the TLS port answered {out!r}")

        # Readiness follows the store; liveness does not (a restart would not bring Redis back).
        redis.terminate()
        redis.wait()
        ready, live = probes["readinessProbe"][1], probes["livenessProbe"][1]
        code, out = wait_for(plain_port, ready, 1)
        check(out == "NOT_SERVING", f"readiness with Redis down answered {out!r}")
        code, out = probe(plain_port, live)
        check(out == "SERVING", f"liveness with Redis down answered {out!r}")
        redis = start_redis(redis_port, tempfile.mkdtemp(dir=TMP))
        code, out = wait_for(plain_port, ready, 0)
        check(out == "SERVING", f"readiness with Redis back answered {out!r}")
    finally:
        server.kill()
        server.wait()
        redis.kill()
        redis.wait()
    if failures:
        with open(log_path) as f:
            print(f.read())
        sys.exit(1)
    print("probe_test: the rendered prod probes pass against a TLS-serving arbiterd")


if __name__ == "__main__":
    main()
