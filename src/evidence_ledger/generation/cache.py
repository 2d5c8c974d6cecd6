"""Response cache for any chat generation: Parquet shards keyed by a sha256 of the request.

In:  a backend (:mod:`.backends.base`) and generic :class:`ChatRequest` objects (messages +
     :class:`SamplingSpec` incl. seed and max_new_tokens) - the label task of Study 2 and the
     free-text generations of WikiContradict (<= 250 tokens) / DiffGR (<= 10 tokens) alike.
Out: one :class:`CachedGeneration` per request, in request order.

Cache key (:func:`cache_key`) = sha256 of the canonical JSON of
  * the backend identity: model name, Hub id + revision or the local weights hash, dtype,
    ``chat_template_kwargs``, backend name, chat-template hash and the tokenizer's special
    tokens (together they determine the rendered prompt), output-relevant backend settings
    (vLLM prefix caching);
  * the full messages;
  * the sampling parameters, the seed and max_new_tokens.
The rendered prompt is a pure function of the messages, the template, its kwargs and the
special tokens, so it is not hashed itself: a cache hit then needs no template rendering.
Library versions and the device are recorded with every entry but are not part of the key.

Storage: a directory of Parquet files (``CACHE_ENTRIES`` schema). :func:`generate_cached`
generates only keys missing from the directory, in fixed batches, and writes one new shard
file per batch atomically (temporary file + rename), so a killed run leaves only complete
shards; the next run reads them and resumes with the first missing request. A rerun with
nothing changed generates nothing. Identical requests in one call are generated once.
Shard file names contain the writer's tag and a hash of the keys they hold; reading
de-duplicates by key (first shard in name order wins), so a key is never returned twice
even if two writers raced on it. A shard that cannot be read as a cache table (cut short by a
full disk, damaged, another table) is set aside, moved into ``damaged/`` under the cache
directory (never deleted), with a warning naming it; its requests are then missing and are
generated again, and nothing else in the cache is touched. A shard that is a link leading out
of the cache directory is refused (``safe_files.PathOutside``). A resumed call writes other keys, hence other shard names,
than the call that was killed, so the temporary that killed write left
(``.{tag}-....parquet.tmp<pid>``) is not the one the resumed write replaces:
:func:`generate_cached` first removes its own tag's leftovers (:meth:`ResponseCache.remove_leftovers`).

Usage for a new task (e.g. free-text conflict generation)::

    backend = load_backend("vllm", model_spec_from_config(name, config["models"][name]), **backend_options)
    reqs = [ChatRequest.from_messages(msgs, SamplingSpec(0.0, 1.0, 0, 1.0, 250, seed)) for ...]
    outs = generate_cached(backend, reqs, ResponseCache("results/cache/generation/qwen3"), batch_size=256)
"""
from __future__ import annotations

import glob
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

import pyarrow as pa

from ..files.safe_files import check_inside, process_alive
from ..tables import DamagedTable, SchemaMismatch, read_table, write_table
from ..tables.generation import CACHE_ENTRIES
from .backends.base import Backend, ChatRequest, Generation, RequestFailed, canonical_json

log = logging.getLogger(__name__)


def cache_key(identity: dict, request: ChatRequest, identity_json: str | None = None) -> str:
    """sha256 hex of everything that determines the output of ``request`` on this backend.

    = sha256(canonical JSON of identity + "\n" + JSON of messages + "\n" + canonical JSON of
    sampling). ``identity_json`` may pass ``canonical_json(identity)`` precomputed (it is the
    same for every request of a backend, and encoding it per request dominated cache hits).
    """
    h = hashlib.sha256((identity_json or canonical_json(identity)).encode("utf-8"))
    h.update(b"\n")
    h.update(json.dumps([list(m) for m in request.messages], ensure_ascii=False).encode("utf-8"))
    h.update(b"\n")
    h.update(canonical_json(request.sampling.as_dict()).encode("utf-8"))
    return h.hexdigest()


@dataclass
class CachedGeneration:
    cache_key: str
    text: str
    n_prompt_tokens: int
    n_output_tokens: int
    finish_reason: str
    identity: dict
    from_cache: bool


DAMAGED_DIR = "damaged"  # under the cache directory: shards that could not be read, kept for inspection


class ResponseCache:
    """A directory of cache shards (``*.parquet``); hidden temporary files are ignored."""

    def __init__(self, directory: str | os.PathLike):
        self.directory = Path(directory)

    def shard_paths(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(p for p in self.directory.glob("*.parquet") if not p.name.startswith("."))

    def set_aside(self, path: Path, reason: str) -> Path | None:
        """Move the unreadable shard ``path`` into ``damaged/`` (a new name there, never replacing
        one), log a warning naming it, and return where it went (None when another process moved
        it first)."""
        aside = self.directory / DAMAGED_DIR
        aside.mkdir(exist_ok=True)
        for k in range(1000):
            dest = aside / (path.name if k == 0 else f"{path.stem}.{k}{path.suffix}")
            try:
                os.link(path, dest, follow_symlinks=False)  # fails rather than replace an earlier one
            except FileExistsError:
                continue
            except FileNotFoundError:
                return None
            path.unlink(missing_ok=True)
            log.warning("%s: damaged response-cache file set aside as %s (%s); its requests are generated again",
                        path, dest, reason)
            return dest
        raise FileExistsError(f"{aside}: 1000 set-aside copies of {path.name}; clear out {aside}")

    def load(self, keys: Iterable[str] | None = None) -> dict[str, dict]:
        """key -> entry row for every cached key (restricted to ``keys`` when given); a shard that
        cannot be read as a cache table is set aside (:meth:`set_aside`) and contributes nothing."""
        wanted = set(keys) if keys is not None else None
        found: dict[str, dict] = {}
        for path in self.shard_paths():
            check_inside(self.directory, path, what=f"response-cache file {path}")
            try:
                table = read_table(path, CACHE_ENTRIES)
            except DamagedTable as err:  # cut short by a full disk, damaged
                self.set_aside(path, f"not readable Parquet: {err.reason}")
                continue
            except SchemaMismatch as err:  # another table, or another version of this one
                self.set_aside(path, str(err).removeprefix(f"{path}: "))
                continue
            cols = {name: table.column(name).to_pylist() for name in table.column_names}
            for i, k in enumerate(cols["cache_key"]):
                if (wanted is None or k in wanted) and k not in found:
                    found[k] = {name: values[i] for name, values in cols.items()}
        for row in self.journal_rows():
            if (wanted is None or row["cache_key"] in wanted) and row["cache_key"] not in found:
                found[row["cache_key"]] = row
        return found

    def journal_paths(self, tag: str | None = None) -> list[Path]:
        """The journals of calls in flight or cut short (of ``tag`` when given), by name."""
        if not self.directory.is_dir():
            return []
        pattern = f"{glob.escape(tag)}-*.journal.jsonl" if tag else "*.journal.jsonl"
        return sorted(self.directory.glob(pattern))

    def journal_rows(self, paths: Sequence[Path] | None = None) -> list[dict]:
        """The complete lines of the journals (all, or ``paths``): a line a kill cut is skipped."""
        rows = []
        for path in self.journal_paths() if paths is None else paths:
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except FileNotFoundError:  # compacted by its writer meanwhile: its shard holds the rows
                continue
            for line in lines:
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if set(row) == set(CACHE_ENTRIES.schema.names):
                    rows.append(row)
        return rows

    def compact_journals(self, tag: str) -> list[Path]:
        """Turn the journals an earlier run of ``tag`` left into shards (written, then the journal
        removed: a kill in between leaves both, read once by key); returns the shards written."""
        written, kept = [], 0
        for path in self.journal_paths(tag):
            rows = self.journal_rows([path])
            if rows:
                written.append(self.append(rows, path.name[: -len(".journal.jsonl")]))
                kept += len(rows)
            path.unlink(missing_ok=True)
        if written:
            log.info("kept %d answers an interrupted run of %s received (journals -> %d shards)", kept, tag,
                     len(written))
        return written

    def journal(self, tag: str) -> "Journal":
        return Journal(self.directory / f"{tag}.journal.jsonl")

    def remove_leftovers(self, tag: str) -> list[Path]:
        """Delete the temporaries (``.{tag}-*.parquet.tmp<pid>``) that killed writes of shards
        of ``tag`` left, unless the writing process is still alive; returns those removed.
        One job writes a tag at a time (Snakemake runs a job once), so a leftover of a dead
        process is garbage; a live writer's temporary (another process) is never touched."""
        removed = []
        if not self.directory.is_dir():
            return removed
        for tmp in sorted(self.directory.glob(f".{glob.escape(tag)}-*.parquet.tmp*")):
            pid = tmp.name.rpartition(".tmp")[2]
            if pid.isdigit() and int(pid) != os.getpid() and process_alive(int(pid)):
                continue
            tmp.unlink(missing_ok=True)
            removed.append(tmp)
        if removed:
            log.info("removed %d temporary cache file(s) a killed run left: %s", len(removed),
                     [p.name for p in removed][:3])
        return removed

    def append(self, rows: Sequence[dict], tag: str) -> Path:
        """Write ``rows`` as one new shard, atomically. Returns the shard path."""
        digest = hashlib.sha256("\n".join(r["cache_key"] for r in rows).encode()).hexdigest()[:16]
        path = self.directory / f"{tag}-{digest}.parquet"
        write_table(pa.Table.from_pylist(list(rows), schema=CACHE_ENTRIES.schema), path, CACHE_ENTRIES)
        return path


class Journal:
    """The answers of one call in flight, one JSON cache row per line, each flushed as written;
    the file is created with the first row."""

    def __init__(self, path: Path):
        self.path = path
        self._file = None

    def write(self, row: dict) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "a", encoding="utf-8")
        self._file.write(json.dumps(row, ensure_ascii=False) + "\n")
        self._file.flush()

    def remove(self) -> None:
        """Close and delete the journal (its rows are in a shard now)."""
        if self._file is not None:
            self._file.close()
            self._file = None
        self.path.unlink(missing_ok=True)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def generate_cached(
    backend: Backend,
    requests: Sequence[ChatRequest],
    cache: ResponseCache,
    batch_size: int,
    tag: str = "run",
    progress: Callable[[int], None] | None = None,
    request_names: Sequence[str] | None = None,
) -> list[CachedGeneration]:
    """Answer ``requests`` from ``cache``, generating (and caching) only the missing ones.

    Missing unique keys are generated in their first-occurrence order (the caller's order:
    Study 2 sends a job's requests in shared-prefix order), ``batch_size`` per backend call
    (Study 2: ``generation.call_size``, thousands, so the engine schedules large batches), one
    shard written as each call completes, so a kill loses at most the call in flight (nothing,
    for a backend that hands answers over one by one: module docstring); the temporaries and
    journals an earlier run of the same ``tag`` left are dealt with first. ``progress(n)`` is
    called with the number of requests completed (per call, or per answer as it arrives).
    ``request_names`` (one per request, e.g. its ``request_id``) name a request that fails.
    """
    cache.remove_leftovers(tag)
    cache.compact_journals(tag)
    identity = backend.identity()
    provenance = backend.provenance_once()
    key_prefix = canonical_json(identity)
    keys = [cache_key(identity, r, key_prefix) for r in requests]
    cached = cache.load(keys)
    todo: list[int] = []
    seen = set(cached)
    for i, k in enumerate(keys):
        if k not in seen:
            seen.add(k)
            todo.append(i)
    log.info("%d requests, %d unique keys, %d cached, %d to generate",
             len(requests), len(set(keys)), len(set(keys) & set(cached)), len(todo))
    fresh: set[str] = set()
    identity_jsons: dict[tuple, str] = {}

    def row_of(i: int, g: Generation) -> dict:
        served = tuple(sorted(g.served.items()))
        if served not in identity_jsons:
            identity_jsons[served] = canonical_json({**identity, **provenance, **dict(served)})
        return {"cache_key": keys[i], "text": g.text, "n_prompt_tokens": int(g.n_prompt_tokens),
                "n_output_tokens": int(g.n_output_tokens), "finish_reason": g.finish_reason,
                "identity_json": identity_jsons[served]}

    for start in range(0, len(todo), batch_size):
        batch = todo[start:start + batch_size]
        call_tag = f"{tag}-{start // batch_size:06d}"
        journal = cache.journal(call_tag)
        done: dict[int, dict] = {}

        def keep(j: int, g: Generation) -> None:
            done[j] = row_of(batch[j], g)
            journal.write(done[j])
            if progress:
                progress(1)

        try:
            gens = backend.generate_chat([requests[i] for i in batch], on_result=keep)
        except RequestFailed as err:
            journal.close()
            i = batch[err.index]
            name = request_names[i] if request_names is not None else f"#{i}"
            raise RequestFailed(i, f"request {name} (cache key {keys[i][:16]}) of {tag} failed: {err.reason}; "
                                   f"the {len(done)} answers of this call received before are cached, and a "
                                   f"rerun sends only what is missing") from err
        rows = [done.get(j) or row_of(i, g) for j, (i, g) in enumerate(zip(batch, gens))]
        cache.append(rows, call_tag)
        journal.remove()
        for row in rows:
            cached[row["cache_key"]] = row
            fresh.add(row["cache_key"])
        if progress and not done:
            progress(len(batch))
    out = []
    identities: dict[str, dict] = {}  # identity_json is shared by every row of a run
    for k in keys:
        row = cached[k]
        if row["identity_json"] not in identities:
            identities[row["identity_json"]] = json.loads(row["identity_json"])
        out.append(CachedGeneration(
            cache_key=k,
            text=row["text"],
            n_prompt_tokens=row["n_prompt_tokens"],
            n_output_tokens=row["n_output_tokens"],
            finish_reason=row["finish_reason"],
            identity=identities[row["identity_json"]],
            from_cache=k not in fresh,
        ))
    return out
