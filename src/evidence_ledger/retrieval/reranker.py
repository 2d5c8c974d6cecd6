"""Cross-encoder reranking of candidate pools through FlagEmbedding's ``FlagReranker``.

In:  POOLS rows, claim texts, unit passages, and a reranker location: a Hub id with a
     pinned revision (e.g. ``BAAI/bge-reranker-base``) or a local directory (the demo's
     locally built cross-encoder).
Out: ORDERING rows (source ``bge``): each pool sorted by the reranker's raw logit
     (score desc, then pool position, then unit id; see ``ordering.order_pool``).

Device: the first CUDA device with fp16 when a GPU is present and ``fp16`` is set, else
CPU in fp32 (FlagReranker itself refuses fp16 on CPU). Host memory: ``from_pretrained`` maps
the safetensors file, so loading reads nothing yet. On a GPU ``load_reranker`` then reads the
weights from the file a chunk at a time straight into their device tensors
(``device_weights``): the host holds one 64 MiB chunk, not the whole file that moving the
mapped model would hold (1,061 MiB for bge-reranker-base), nor the half-precision copy that
FlagReranker's own ``.half()`` at the first call would make on the host (after
``load_reranker`` its ``.half()`` and ``.to(device)`` are no-ops). On the CPU the fp32 weights
stay mapped and are paged in as they are used; a half-precision checkpoint is cast to fp32
there. Pairs are (claim, passage) with
passage = unit context + newline + unit text; they are scored in fixed chunks of claims, so
batches, and therefore scores, are the same on every run with the same settings.
``trust_remote_code`` is always False and nothing is downloaded: the model directory and the
weight files it loads come from ``model_files.resolve_model`` (a Hub id + revision from the
local Hugging Face cache). A directory whose loaded weights are pickle (``pytorch_model.bin``,
whatever other ``*.safetensors`` files lie beside it) is refused unless
``retrieval.reranker.allow_pickle_weights`` is set. ``FlagReranker`` takes no
``local_files_only``; it gets the resolved local directory, so there is nothing to fetch, and
its ``from_pretrained`` picks the same weight file by the same precedence.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from ..models.device_weights import move_weights
from ..models.model_files import ModelFiles, resolve_model
from .ordering import ordering_row

log = logging.getLogger(__name__)


@dataclass
class RerankerSpec:
    """Where the reranker comes from (``local_dir`` wins over ``hub_id``/``revision``) and how it
    scores: the settings of config ``retrieval.reranker`` (defaults in config/defaults.yaml only)."""

    batch_size: int
    fp16: bool
    max_length: int
    allow_pickle_weights: bool
    hub_id: str | None = None
    revision: str | None = None
    local_dir: str | None = None


ALLOW_KEY = "retrieval.reranker.allow_pickle_weights"


def reranker_files(spec: RerankerSpec) -> ModelFiles:
    """The reranker's directory and loaded weight files (``local_dir`` wins over ``hub_id``/``revision``)."""
    if spec.local_dir:
        if not Path(spec.local_dir).is_dir():
            raise FileNotFoundError(f"reranker directory {spec.local_dir} does not exist")
        return resolve_model(spec.local_dir, allow_pickle_weights=spec.allow_pickle_weights, allow_key=ALLOW_KEY)
    if not spec.hub_id or not spec.revision:
        raise ValueError("reranker: give local_dir, or hub_id together with a pinned revision")
    return resolve_model(spec.hub_id, spec.revision, allow_pickle_weights=spec.allow_pickle_weights,
                         allow_key=ALLOW_KEY)


def reranker_identity(spec: RerankerSpec, files: ModelFiles) -> str:
    """The identity string recorded with every ordering: a local directory by the sha256 of the
    weight file(s) the load reads, a Hub model by ``id@revision`` (its snapshot in the local cache)."""
    if spec.local_dir:
        return f"local:{files.directory.name} sha256:{files.weights_sha256()[:16]}"
    return f"{spec.hub_id}@{spec.revision}"


def load_reranker(spec: RerankerSpec):
    """A ``FlagReranker`` for ``spec`` on GPU (fp16 if asked) or CPU (fp32); returns (reranker, identity)."""
    import torch
    from FlagEmbedding import FlagReranker

    files = reranker_files(spec)
    identity = reranker_identity(spec, files)
    cuda = torch.cuda.is_available()
    device = "cuda:0" if cuda else "cpu"
    half = bool(spec.fp16 and cuda)
    reranker = FlagReranker(str(files.directory), use_fp16=half, devices=[device],
                            batch_size=spec.batch_size, max_length=spec.max_length,
                            trust_remote_code=False)
    place_weights(reranker.model, files, device, weight_dtype(half))
    reranker.model.eval()
    log.info("reranker %s on %s (fp16=%s)", identity, device, half)
    return reranker, identity


def place_weights(model, files: ModelFiles, device: str, dtype) -> None:
    """``model``'s weights on ``device`` in ``dtype``. On the CPU they stay mapped from the file
    (paged in as they are used; only a non-fp32 checkpoint is cast, into memory). On a GPU, from
    safetensors, they are read from the files a chunk at a time (``device_weights.move_weights``),
    so the host never holds the whole file; pickle weights, already in memory, are moved."""
    if device == "cpu" or not files.safetensors:
        model.to(device=device, dtype=dtype)
        return
    done = move_weights(model, files.tensor_files(), device, dtype)
    log.info("reranker weights on %s: %d read from the files in chunks, %d moved as loaded (%s)",
             device, len(done["read"]), len(done["moved"]), ", ".join(done["moved"]) or "none")


def weight_dtype(half: bool):
    """The reranker weights' dtype on their device: float16 when ``half`` (a GPU with ``fp16``), else float32."""
    import torch

    return torch.float16 if half else torch.float32


def score_pairs(reranker, pairs: list[tuple[str, str]]) -> list[float]:
    """Raw reranker logits for (query, passage) pairs; [] for no pairs."""
    if not pairs:
        return []
    scores = reranker.compute_score([list(p) for p in pairs], normalize=False)
    if isinstance(scores, float):
        scores = [scores]
    return [float(s) for s in scores]


def order_pools_reranker(pools: list[dict], claims: dict[str, str], passages: dict[str, str], reranker,
                         identity: str, claims_per_call: int, source: str = "bge",
                         show_progress: bool = False) -> list[dict]:
    """ORDERING rows for POOLS rows, scoring pools ``claims_per_call`` claims at a time."""
    rows = []
    for start in tqdm(range(0, len(pools), claims_per_call), desc=f"order {source}",
                      disable=not show_progress, mininterval=10):
        chunk = pools[start:start + claims_per_call]
        pairs = [(claims[p["claim_id"]], passages[u]) for p in chunk for u in p["unit_ids"]]
        scores = score_pairs(reranker, pairs)
        at = 0
        for p in chunk:
            uids = list(p["unit_ids"])
            rows.append(ordering_row(p["dataset"], p["claim_id"], source, uids, scores[at:at + len(uids)], identity))
            at += len(uids)
    return rows
