#!/bin/bash
# Soundness over every benchmark position with a small search limit (fast): no "winnable" line
# that fails to mate, no contradiction along a game. Speed is measured by the benchmark itself.
set -euo pipefail
bench="$1"
data="$2"
"$bench" "$data" --max-nodes 50000 2>/dev/null
