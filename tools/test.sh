#!/bin/bash
# The whole test suite: installs what is missing, builds and tests everything with no network
# (under `unshare -n` where the kernel allows it, proving the build is offline), checks formatting,
# checks the layers, runs the fuzzers briefly, and ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0

# 1. Build and test offline. The Bazel server must live inside the namespace, so stop any other.
bazel shutdown >/dev/null 2>&1 || true
offline="unshare -n"
if ! unshare -n true 2>/dev/null; then
  echo "test: unshare -n not permitted here; building with the network present" >&2
  offline=""
fi
rm -rf bazel-testlogs/ 2>/dev/null
# The output base outlives a clone at the same path, and with it the test.xml of targets that no
# longer exist: count only the tests the tree has now.
test_targets=$(mktemp)
trap 'rm -f "$test_targets"' EXIT
TEST_TARGETS="$test_targets" $offline bash -c 'ip link set lo up 2>/dev/null; bazel test //... ; rc=$?;
  bazel query "tests(//...)" --output=label > "$TEST_TARGETS" 2>/dev/null; bazel shutdown; exit $rc'
bazel_rc=$?
echo "bazel test exit code: $bazel_rc"

# 2. Count test cases from the gtest XML Bazel leaves per target (a crashed test has errors=1).
read -r p f < <(python3 tools/test_summary.py bazel-testlogs "$test_targets")
passed=$((passed + p))
failed=$((failed + f))
# Tests that skip themselves where a tool is too old (the manifests' tests under a kubectl older
# than 1.27) write a test.xml whose case is skipped: counted neither passed nor failed, named here.
grep -rl --include=test.xml '<skipped' bazel-testlogs/ 2>/dev/null | sed 's|^bazel-testlogs/\(.*\)/\([^/]*\)/test.xml$|test: skipped (see its test.log): //\1:\2|'
# Bazel exits 0 when all passed and 3 when tests failed (counted above); anything else is a build
# or infrastructure failure that the XML cannot show.
if [ "$bazel_rc" != 0 ] && [ "$bazel_rc" != 3 ]; then
  echo "FAIL: the build failed (bazel exit $bazel_rc)"
  failed=$((failed + 1))
fi

# 3. Formatting (clang-format, Google based, .clang-format).
unformatted=$(git ls-files '*.cc' '*.h' | xargs clang-format --dry-run -Werror 2>&1 | grep -c "error:" || true)
if [ "$unformatted" = 0 ]; then
  passed=$((passed + 1))
else
  echo "FAIL: clang-format: $unformatted places differ (run: git ls-files '*.cc' '*.h' | xargs clang-format -i)"
  failed=$((failed + 1))
fi

# 4. The error catalogue: every stable code declared once in its layer's errors.json,
# no ERR_ literal outside the catalogues, docs/ERRORS.md current.
if python3 tools/check_error_catalogue.py; then
  passed=$((passed + 1))
else
  echo "FAIL: the error catalogue (tools/check_error_catalogue.py)"
  failed=$((failed + 1))
fi

# 5. The layers (docs/ARCHITECTURE.md): every #include goes to its own layer or one above it.
if python3 tools/check_layers.py; then
  passed=$((passed + 1))
else
  echo "FAIL: the layers (tools/check_layers.py)"
  failed=$((failed + 1))
fi

# 6. Fuzzers, briefly: no crash, no sanitizer report.
if FUZZ_SECONDS="${FUZZ_SECONDS:-15}" tests/fuzz/run_fuzzers.sh; then
  passed=$((passed + 1))
else
  echo "FAIL: fuzzers"
  failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
