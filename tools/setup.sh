#!/bin/bash
# Installs the Debian packages Arbiter builds and tests with, when any is missing (apt, as root or
# through sudo). Safe to run again: it does nothing when everything is there.
set -euo pipefail
packages=(
  bazel-bootstrap bazel-rules-java pkg-config g++ clang libclang-rt-14-dev clang-format
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libhiredis-dev prometheus-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libjwt-dev libssl-dev redis-server redis-sentinel stockfish iproute2 util-linux python3
  python3-yaml python3-grpcio python3-protobuf openssl libgoogle-perftools-dev prometheus faketime
  chromium
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Only its binaries are wanted (promtool and prometheus for //k8s:monitoring_test and
  # //tests/integration:prometheus_test): the service it enables would hold port 9090, arbiterd's
  # default metrics port.
  if [[ " ${missing[*]} " == *" prometheus "* ]]; then
    if [ -d /run/systemd/system ]; then
      $sudo systemctl disable --now prometheus >/dev/null 2>&1 || true
    elif [ -x /etc/init.d/prometheus ]; then
      $sudo /etc/init.d/prometheus stop >/dev/null 2>&1 || true
      $sudo update-rc.d prometheus disable >/dev/null 2>&1 || true
    fi
  fi
fi
# The npm packages the tests run offline, pinned by each folder's package-lock.json and installed
# here: the Kubernetes API schemas //k8s:k8s_test validates the manifests against
# (tools/k8s-schemas), and puppeteer-core, which drives Debian's chromium in
# //services/console:console_browser_test (tools/console-test).
for folder in k8s-schemas console-test; do
  dir="$(dirname "$0")/$folder"
  if [ ! -d "$dir/node_modules" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    if ! command -v npm >/dev/null; then
      echo "setup: installing nodejs npm" >&2
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
    fi
    echo "setup: npm ci in $dir" >&2
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
done
# //k8s:k8s_test and //tests/integration:probe_test render the overlays with `kubectl kustomize`
# (Kustomize v5: components). Debian 12's archive has only kubectl 1.20 (kubernetes-client), too
# old for components, so it cannot be installed from here: say so before the tests fail on it.
if ! command -v kubectl >/dev/null; then
  echo "setup: WARNING: kubectl (1.27 or later) is not installed; //k8s:k8s_test and" \
    "//tests/integration:probe_test need it to render the manifests and will fail" >&2
fi
