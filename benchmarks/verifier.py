"""Benchmark of verifier training and scoring (writes benchmarks/results/verifier.json).

CPU mode (default): the demo's tiny DeBERTa-v2 classifier (config ``verifier.demo_model``
sizes: hidden 128, 2 layers, 2 heads, WordPiece vocabulary trained on synthetic text) on
synthetic inputs of ``--seq-len`` tokens: training updates/s of
``verifier.train.train_checkpoint`` (AdamW, batch ``--batch-size``, fp32) and scoring
sequences/s of ``verifier.predict.predict_checkpoint`` (batch 64, eval mode). Both go through
the pipeline's own functions, so they include padding and table handling.

GPU mode (``--gpu``): a randomly initialised model with the shape of
``microsoft/deberta-large-mnli`` (DeBERTa v1 large: hidden 1024, 24 layers, 16 heads, FFN
4096, vocabulary 50,265, 512 positions, 3 labels; ~406M parameters), AdamW, bf16 autocast,
batch ``--gpu-batch`` x 512 tokens (the Study 1 setting: 16 sequences per update). Reports
the mean step time over ``--gpu-steps`` timed steps after warm-up and the model FLOPs
utilisation against the H200 dense bf16 peak (``--peak-tflops``, default 989):
FLOPs/update = 6 x non-embedding parameters x tokens + 3 x attention FLOPs, where the
attention FLOPs per layer and sequence are 2 x 2 x s^2 x h (scores and weighted sum) plus
2 x 2 x s^2 x h for DeBERTa's content-to-position and position-to-content terms
(target MFU >= 25%).

Run:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/verifier.py           (CPU)
      python benchmarks/verifier.py --gpu                                   (GPU machine)
The GPU result is merged into the same JSON under the key ``gpu``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import tempfile
import time
from pathlib import Path

import yaml

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

OUT = Path(__file__).resolve().parent / "results" / "verifier.json"
# a run's verifier settings (config/defaults.yaml)
VERIFIER = yaml.safe_load((Path(__file__).resolve().parents[1] / "config" / "defaults.yaml").read_text())["verifier"]
WORDS = [f"w{i}" for i in range(400)] + ["red", "blue", "house", "river", "painted", "not", "in", "the"]


def synthetic_inputs(n: int, seq_len: int, vocab: int, seed: int):
    """A VERIFIER_INPUTS table of ``n`` random sequences of exactly ``seq_len`` tokens."""
    from evidence_ledger.tables.verifier import VERIFIER_INPUTS

    rng = random.Random(seed)
    rows = []
    for i in range(n):
        ids = [2] + [rng.randrange(5, vocab) for _ in range(seq_len - 2)] + [3]
        rows.append({"dataset": "feverous", "split": "train", "source": "bench", "claim_id": str(i),
                     "gold_label": rng.choice(["SUPPORTS", "REFUTES"]), "in_source": True, "candidate_ids": [],
                     "used_unit_ids": [], "unresolved_ids": [], "provider_unresolved": 0, "claim_tokens": 0,
                     "unit_tokens": [], "total_tokens": seq_len, "sentinel": False, "claim_truncated": False,
                     "units_truncated": 0, "input_ids": ids})
    return VERIFIER_INPUTS.from_rows(rows)


def cpu_benchmark(args) -> dict:
    import torch

    from evidence_ledger.verifier.predict import predict_checkpoint
    from evidence_ledger.demo.tiny_verifier import TinyVerifierSpec, build_tiny_verifier
    from evidence_ledger.verifier.train import BaseModel, TrainingSettings, train_checkpoint

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    rng = random.Random(0)
    texts = [" ".join(rng.choice(WORDS) for _ in range(20)) for _ in range(2000)]
    spec = TinyVerifierSpec(hidden_size=128, num_hidden_layers=2, num_attention_heads=2, intermediate_size=256,
                            vocab_size=2000)
    with tempfile.TemporaryDirectory() as tmp:
        base_dir = Path(tmp) / "base"
        build_tiny_verifier(texts, base_dir, spec)
        inputs = synthetic_inputs(512, args.seq_len, 400, 1)
        settings = TrainingSettings(seed=1, final_update=args.steps, batch_size=args.batch_size, grad_accumulation=1,
                                    learning_rate=1e-3, warmup_ratio=0.1, label_set=("SUPPORTS", "REFUTES"),
                                    weight_decay=VERIFIER["weight_decay"], max_grad_norm=VERIFIER["max_grad_norm"],
                                    precision=VERIFIER["precision"])
        t0, c0 = time.perf_counter(), time.process_time()
        train_checkpoint(inputs, BaseModel(str(base_dir)), settings, Path(tmp) / "ckpt", checkpoint=1)
        train_wall, train_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0, c0 = time.perf_counter(), time.process_time()
        predict_checkpoint(Path(tmp) / "ckpt", inputs, checkpoint=1, system="bench", batch_size=64,
                           precision=VERIFIER["precision"])
        pred_wall, pred_cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "model": {"hidden_size": spec.hidden_size, "layers": spec.num_hidden_layers, "heads": spec.num_attention_heads,
                  "intermediate_size": spec.intermediate_size},
        "seq_len": args.seq_len, "batch_size": args.batch_size, "train_updates": args.steps,
        "train_updates_per_s_wall": round(args.steps / train_wall, 3),
        "train_updates_per_s_cpu": round(args.steps / train_cpu, 3),
        "train_wall_s_incl_load_and_save": round(train_wall, 3),
        "scored_sequences": inputs.num_rows,
        "score_sequences_per_s_wall": round(inputs.num_rows / pred_wall, 2),
        "score_sequences_per_s_cpu": round(inputs.num_rows / pred_cpu, 2),
        "threads": torch.get_num_threads(),
        "note": "wall includes model load/save; *_cpu uses process CPU time (less disturbed on a shared machine)",
    }


def deberta_large_flops_per_update(n_non_embedding: int, batch: int, seq: int, layers: int, hidden: int) -> float:
    tokens = batch * seq
    attention = layers * batch * (2 * 2 * seq * seq * hidden + 2 * 2 * seq * seq * hidden)
    return 6.0 * n_non_embedding * tokens + 3.0 * attention


def gpu_benchmark(args) -> dict:
    import torch
    from transformers import DebertaConfig, DebertaForSequenceClassification

    if not torch.cuda.is_available():
        raise SystemExit("--gpu: no CUDA device")
    dev = torch.device("cuda")
    config = DebertaConfig(vocab_size=50265, hidden_size=1024, num_hidden_layers=24, num_attention_heads=16,
                           intermediate_size=4096, max_position_embeddings=512, type_vocab_size=0,
                           relative_attention=True, max_relative_positions=-1, pos_att_type=["c2p", "p2c"],
                           position_biased_input=False,
                           num_labels=3)
    torch.manual_seed(0)
    model = DebertaForSequenceClassification(config).to(dev)
    model.train()
    n_total = sum(p.numel() for p in model.parameters())
    n_embed = sum(p.numel() for n, p in model.named_parameters() if "embeddings" in n)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    batch, seq = args.gpu_batch, 512
    ids = torch.randint(5, config.vocab_size, (batch, seq), device=dev)
    mask = torch.ones_like(ids)
    labels = torch.randint(0, 2, (batch,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(input_ids=ids, attention_mask=mask).logits
        loss = torch.nn.functional.cross_entropy(logits.float(), labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(args.gpu_warmup):
        step()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(args.gpu_steps):
        step()
    torch.cuda.synchronize()
    step_s = (time.perf_counter() - t0) / args.gpu_steps
    flops = deberta_large_flops_per_update(n_total - n_embed, batch, seq, config.num_hidden_layers, config.hidden_size)
    # inference throughput at the Study 1 prediction setting
    model.eval()
    with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
        for _ in range(3):
            model(input_ids=ids, attention_mask=mask)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(args.gpu_steps):
            model(input_ids=ids, attention_mask=mask)
        torch.cuda.synchronize()
    infer_s = (time.perf_counter() - t0) / args.gpu_steps
    return {
        "device": torch.cuda.get_device_name(0), "parameters": n_total, "non_embedding_parameters": n_total - n_embed,
        "batch_size": batch, "seq_len": seq, "precision": "bf16 autocast, fp32 master weights",
        "step_time_s": round(step_s, 4), "flops_per_update": flops,
        "achieved_tflops": round(flops / step_s / 1e12, 1), "peak_tflops": args.peak_tflops,
        "mfu": round(flops / step_s / (args.peak_tflops * 1e12), 4),
        "score_sequences_per_s": round(batch / infer_s, 1),
        "updates_1000_minutes": round(1000 * step_s / 60, 2),
        "torch": torch.__version__,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", action="store_true", help="DeBERTa-large-sized GPU benchmark (bf16, MFU)")
    ap.add_argument("--steps", type=int, default=60, help="CPU training updates")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--seq-len", type=int, default=128)
    ap.add_argument("--gpu-batch", type=int, default=16)
    ap.add_argument("--gpu-steps", type=int, default=20)
    ap.add_argument("--gpu-warmup", type=int, default=5)
    ap.add_argument("--peak-tflops", type=float, default=989.0, help="dense bf16 peak of the GPU (H200 SXM: 989)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    result = json.loads(args.out.read_text()) if args.out.exists() else {}
    import torch
    import transformers

    env = {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
           "machine": platform.machine(), "cpus": os.cpu_count()}
    if args.gpu:
        result["gpu"] = gpu_benchmark(args)
        result["gpu"]["environment"] = env
    else:
        result["cpu"] = cpu_benchmark(args)
        result["cpu"]["environment"] = env
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(json.dumps(result, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
