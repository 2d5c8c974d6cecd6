#!/usr/bin/env bash
# What a new user waits for: clone this checkout's HEAD into a fresh directory, time
# `make install` there (pip's cache off, so every wheel is fetched as on a fresh machine), then
# time the demo N times in a row from an empty results/ (benchmarks/demo_time.sh, which keeps
# each run's work directory and per-rule table). Writes benchmarks/results/fresh_clone.md here
# (install seconds, each run's wall / process-tree CPU seconds and load averages) and copies
# the last run's demo_time.{json,md} next to it.
#   benchmarks/fresh_clone_time.sh [RUNS=3] [CLONE_DIR]
# Run it on an otherwise idle machine: wall times stretch with the load (the table records the
# load average before and after every run).
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
RUNS=${1:-3}
CLONE=${2:-$(mktemp -d /tmp/evidence_ledger_clone.XXXXXX)}
OUT="$REPO/benchmarks/results/fresh_clone.md"
COMMIT=$(git rev-parse HEAD)

git clone --quiet "$REPO" "$CLONE/repo"
cd "$CLONE/repo"
git checkout --quiet "$COMMIT"
start=$(date +%s.%N)
PIP_NO_CACHE_DIR=1 make install > "$CLONE/install.log" 2>&1
install_s=$(python3 -c "print(round($(date +%s.%N) - $start, 1))")

{
  echo "Fresh clone of commit $COMMIT in $CLONE/repo ($(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "make install (pip cache off): $install_s s wall"
  echo
  echo "| run | wall s | process-tree CPU s | load before | load after | work directory |"
  echo "|---|---|---|---|---|---|"
} > "$OUT"
for i in $(seq 1 "$RUNS"); do
  work="$CLONE/demo_run_$i"
  benchmarks/demo_time.sh --workdir "$work" --note "fresh clone $COMMIT, run $i of $RUNS" > "$CLONE/demo_time_$i.log" 2>&1
  .venv/bin/python - "$OUT" "$i" "$work" <<'EOF'
import json, sys
out, i, work = sys.argv[1], sys.argv[2], sys.argv[3]
run = json.load(open("benchmarks/results/demo_time.json"))["run"]
with open(out, "a") as handle:
    handle.write(f"| {i} | {run['wall_s']} | {run['cpu_s_process_tree']} | {run['load_average_before']} | "
                 f"{run['load_average_after']} | {work} |\n")
EOF
done
cp benchmarks/results/demo_time.json benchmarks/results/demo_time.md "$REPO/benchmarks/results/"
cat "$OUT"
