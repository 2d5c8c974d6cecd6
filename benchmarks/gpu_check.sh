#!/usr/bin/env bash
# One short GPU check of the three GPU paths, with throughput numbers written to $OUT
# (default benchmarks/results/gpu_check/):
#   1. generation: the transformers backend (and vLLM when importable) on a tiny model,
#      requests/s and prompt tokens/s, plus the response-cache rerun speed-up;
#   2. reranking: a bge-reranker-base-sized random cross-encoder through FlagReranker (fp16);
#   3. verifier: a DeBERTa-large-sized random-init training burst (bf16), step time and MFU.
# On a machine without an NVIDIA GPU it runs a reduced CPU mode (tiny sizes, seconds), which
# is what CI exercises. Usage: OUT=/some/dir bash benchmarks/gpu_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python}
OUT=${OUT:-benchmarks/results/gpu_check}
mkdir -p "$OUT"
export TOKENIZERS_PARALLELISM=false HF_HUB_OFFLINE=1 VLLM_ENABLE_V1_MULTIPROCESSING=${VLLM_ENABLE_V1_MULTIPROCESSING:-0}

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  MODE=gpu
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/gpu.csv"
else
  MODE=cpu
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
fi
echo "gpu_check mode=$MODE out=$OUT" | tee "$OUT/gpu_check.log"

if [ "$MODE" = gpu ]; then
  $PY benchmarks/generation.py --requests 2048 --batch-size 256 --out "$OUT/generation.json" 2>&1 | tee -a "$OUT/gpu_check.log"
  $PY benchmarks/reranker.py --size base --pairs 20000 --batch-size 256 --out "$OUT/reranker.json" 2>&1 | tee -a "$OUT/gpu_check.log"
  $PY benchmarks/verifier.py --gpu --out "$OUT/verifier.json" 2>&1 | tee -a "$OUT/gpu_check.log"
else
  $PY benchmarks/generation.py --requests 48 --batch-size 16 --out "$OUT/generation.json" >> "$OUT/gpu_check.log" 2>&1
  $PY benchmarks/reranker.py --size tiny --pairs 200 --out "$OUT/reranker.json" >> "$OUT/gpu_check.log" 2>&1
  $PY benchmarks/verifier.py --steps 5 --out "$OUT/verifier.json" >> "$OUT/gpu_check.log" 2>&1
fi
echo "gpu_check done: $(ls "$OUT")" | tee -a "$OUT/gpu_check.log"
