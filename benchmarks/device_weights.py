"""Host memory of putting a cross-encoder's weights on a device (writes benchmarks/results/device_weights_cpu.json).

Builds a randomly initialised cross-encoder of bge-reranker-base's shape (``benchmarks/reranker.py
--size base --build-into``: 278M parameters, 1,061 MiB of fp32 safetensors) and, each in a
fresh process, loads it through FlagReranker (weights mapped, unread) and puts its weights in
float16 on a target device in one of two ways:

  mapped   ``Module.to(device, float16)``: reads the mapped weights, whose file pages stay in
           the process until the last weight has moved;
  chunks   ``device_weights.move_weights``: reads each weight from the file in 64 MiB chunks
           (what ``load_reranker`` does on a GPU).

Without a GPU the target device is the host itself, so the float16 weights the device would
hold (530 MiB) are in the measured peak; ``host_mib`` subtracts them: the host memory the
load holds besides them, as on a GPU (CUDA's own host libraries not counted). Peak RSS is the
process's own ``VmHWM``.
Run:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/device_weights.py
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
METHODS = ("mapped", "chunks")


def measure(model_dir: Path, method: str) -> dict:
    """In this process: load ``model_dir`` through FlagReranker, put its weights in float16 on
    the host by ``method``; the process's peak RSS and the float16 weights' MiB."""
    import torch
    from FlagEmbedding import FlagReranker

    from evidence_ledger.models.device_weights import move_weights
    from evidence_ledger.memory.peak_rss import own_peak_rss_kib

    reranker = FlagReranker(str(model_dir), use_fp16=False, devices=["cpu"], trust_remote_code=False)
    loaded_mib = own_peak_rss_kib() / 1024
    if method == "mapped":
        reranker.model.to(device="cpu", dtype=torch.float16)
    else:
        move_weights(reranker.model, sorted(model_dir.glob("*.safetensors")), "cpu", torch.float16)
    weights_mib = sum(t.numel() * t.element_size() for t in reranker.model.state_dict().values()) / 2**20
    peak_mib = own_peak_rss_kib() / 1024
    return {"method": method, "loaded_peak_rss_mib": round(loaded_mib, 1), "peak_rss_mib": round(peak_mib, 1),
            "device_weights_mib": round(weights_mib, 1), "host_mib": round(peak_mib - weights_mib, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "device_weights_cpu.json")
    ap.add_argument("--measure", nargs=2, metavar=("MODEL_DIR", "METHOD"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure:
        print(json.dumps(measure(Path(args.measure[0]), args.measure[1])))
        return
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"),
               PYTHONPATH=os.pathsep.join([str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")]))
    with tempfile.TemporaryDirectory() as tmp:
        model_dir = Path(tmp) / "reranker"
        subprocess.run([sys.executable, str(HERE / "reranker.py"), "--size", "base", "--build-into", str(model_dir)],
                       check=True, env=env)
        file_mib = sum(f.stat().st_size for f in model_dir.glob("*.safetensors")) / 2**20
        runs = {}
        for method in METHODS:
            proc = subprocess.run([sys.executable, __file__, "--measure", str(model_dir), method], check=True,
                                  env=env, capture_output=True, text=True)
            runs[method] = json.loads(proc.stdout.strip().splitlines()[-1])
    result = {"what": "host memory of putting bge-reranker-base-shaped weights (fp32 safetensors) on a device "
                      "in float16, measured with the host as the device: host_mib = peak RSS - the float16 "
                      "weights (benchmarks/device_weights.py)",
              "weights_file_mib": round(file_mib, 1), "runs": runs,
              "machine": platform.machine(), "omp_num_threads": env["OMP_NUM_THREADS"]}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
