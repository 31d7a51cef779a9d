#!/bin/bash
# Installs the Debian packages Arbiter builds and tests with, when any is missing (apt, as root or
# through sudo). Safe to run again: it does nothing when everything is there.
set -euo pipefail
packages=(
  bazel-bootstrap bazel-rules-java pkg-config g++ clang libclang-rt-14-dev clang-format
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev
  libhiredis-dev prometheus-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libjwt-dev libssl-dev redis-server stockfish iproute2 util-linux python3
  python3-yaml openssl libgoogle-perftools-dev
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
