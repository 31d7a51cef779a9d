#!/bin/bash
# The main job: builds Arbiter and runs a short demo a person can follow.
# (Today the demo is `arbiterctl demo` over the rules core; the all-in-one server joins it when the
# service issues land.)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
bazel build //tools/arbiterctl
echo
bazel-bin/tools/arbiterctl/arbiterctl demo
echo
echo "A scenario for the chess clock (arbiterctl clock simulate), 90 min + 30 s per move:"
scenario='{"time_control_human": "90+30", "edition": "fide2001", "events": [{"at_ms": 0, "type": "start"}, {"at_ms": 61234, "type": "press"}], "query_ms": 120000}'
echo "  in:  $scenario"
echo "  out: $(echo "$scenario" | bazel-bin/tools/arbiterctl/arbiterctl clock simulate)"
echo
echo "Position analysis (arbiterctl analyze):"
line='{"fen": "startpos", "moves": ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"]}'
echo "  in:  $line"
echo "  out: $(echo "$line" | bazel-bin/tools/arbiterctl/arbiterctl analyze | cut -c1-400)..."
