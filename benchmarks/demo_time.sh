#!/usr/bin/env bash
# Time the demo from a clean results/ on this checkout (after `make install`) and write
# benchmarks/results/demo_time.json + demo_time.md (per-rule table). See benchmarks/demo_time.py.
#   benchmarks/demo_time.sh [--cores 2] [--workdir DIR] [--note TEXT]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MKL_NUM_THREADS=${MKL_NUM_THREADS:-1} \
       OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} TOKENIZERS_PARALLELISM=${TOKENIZERS_PARALLELISM:-false} \
       HF_HUB_OFFLINE=${HF_HUB_OFFLINE:-1}
exec "$PY" benchmarks/demo_time.py "$@"
