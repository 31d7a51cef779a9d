#!/bin/sh
# A UCI engine that reports one line and then never answers "stop" (tests: a hung engine).
while read -r line; do
  case "$line" in
    uci) echo "id name hung"; echo "uciok" ;;
    isready) echo "readyok" ;;
    go*) echo "info depth 1 multipv 1 score cp 12 nodes 7 pv e2e4"; exec sleep 600 ;;
    quit) exit 0 ;;
  esac
done
