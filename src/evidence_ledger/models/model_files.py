"""The one rule for loading model weights: which files, from where, and whether they may load.

In:  a model location - a local directory, or a Hub id + revision resolved offline from the
     Hugging Face cache (``snapshot_download(..., local_files_only=True)``; never a network
     call) - whether pickle weights are allowed, and the config key that allows them
     (``verifier.base_model.allow_pickle_weights``, ``retrieval.reranker.allow_pickle_weights``,
     ``models.<name>.allow_pickle_weights``), named in the refusal.
Out: :class:`ModelFiles`: the resolved directory, the weight files transformers will actually
     load from it, their format (``safetensors`` or ``pickle``) and sha256 identities over
     exactly those files (plus the config and tokenizer files, as the generation cache keys
     have always hashed them).

Precedence is transformers' own for a local directory: ``model.safetensors``, then
``model.safetensors.index.json`` (+ the shards it names), then ``pytorch_model.bin``, then
``pytorch_model.bin.index.json`` (+ shards). Any other ``*.safetensors`` file (e.g.
``foo.safetensors`` next to ``pytorch_model.bin``) is not loaded, so it neither makes a
directory "safetensors" nor enters an identity. Loaders pass :func:`load_kwargs` to every
``from_pretrained`` (``local_files_only=True`` whatever ``HF_HUB_OFFLINE`` says, and
``use_safetensors`` matching the files chosen here) and save tokenizers with
:func:`save_tokenizer`, so saved ``tokenizer_config.json`` bytes do not depend on the
environment. See ``config/README.md`` (the ``allow_pickle_weights`` and ``local_dir`` keys) and
``docs/footguns.md`` (pickle-only Hub models, ``convert-weights``).

Nothing is read from outside the model directory (:mod:`evidence_ledger.files.safe_files`' rule):
:func:`model_directory`, which every loader resolves its directory with, refuses a link leading
out of it and a file name a config gives (``vocab_file``, ...) that leaves it, and
:func:`shard_files` refuses a weight-index entry that is absolute, climbs out with ``..`` or is a
link out, each naming the file and the entry. A Hub snapshot's inside is its cache folder
(``models--org--name``), whose ``blobs/`` its files link to.

No heavy imports at module level: ``huggingface_hub`` is imported only to resolve a Hub id.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ExpectedError, InputError
from ..files.safe_files import check_no_links_out, named_path

MODEL_CONFIG = "config.json"
SAFE_WEIGHTS = "model.safetensors"
SAFE_INDEX = "model.safetensors.index.json"
PICKLE_WEIGHTS = "pytorch_model.bin"
PICKLE_INDEX = "pytorch_model.bin.index.json"
INDEX_NAMES = (SAFE_INDEX, PICKLE_INDEX)
# config, tokenizer and chat-template files that go into a directory's identity with the weights
COMPANION_SUFFIXES = (".json", ".jinja", ".txt", ".model")
# files that hold tensors; only the ones transformers loads enter an identity
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".h5", ".msgpack")


class PickleWeightsRefused(ExpectedError, ValueError):
    """The files transformers would load are pickle weights and the config does not allow them."""


class ModelNotCached(ExpectedError, FileNotFoundError):
    """A Hub id + revision that is not in the local Hugging Face cache (runs never download)."""


class ShardMissing(ExpectedError, FileNotFoundError):
    """A weight index names a shard file its directory does not hold."""


# the config files of a model directory whose keys may name other files of it
# (``vocab_file``, ``tokenizer_file``, ``fast_tokenizer_files``, ...): each named file must be inside
NAMING_CONFIGS = ("config.json", "tokenizer_config.json", "special_tokens_map.json", "generation_config.json",
                  "preprocessor_config.json", "processor_config.json")


@dataclass(frozen=True)
class ModelFiles:
    """A model resolved to a local directory and the exact weight files a load reads."""

    directory: Path
    weights: tuple[Path, ...]  # the files transformers loads (an index file first, then its shards)
    format: str  # "safetensors" | "pickle"
    source: str  # the local directory as given, or "hub_id@revision"

    @property
    def safetensors(self) -> bool:
        return self.format == "safetensors"

    def tensor_files(self) -> list[Path]:
        """The loaded files that hold tensors (the weights less a shard index), in load order."""
        return [w for w in self.weights if w.name not in INDEX_NAMES]

    def weights_sha256(self) -> str:
        """sha256 over the bytes of the loaded tensor files only, in load order (the reranker identity)."""
        return bytes_sha256(self.tensor_files())


def containment_root(directory) -> Path:
    """The directory whose inside a model directory's files must resolve to: the directory
    itself, or for a Hugging Face cache snapshot (``models--org--name/snapshots/<commit>``,
    whose files are links to ``../../blobs/``) the repository folder holding both."""
    directory = Path(directory).resolve()
    if directory.parent.name == "snapshots" and (directory.parent.parent / "blobs").is_dir():
        return directory.parent.parent
    return directory


def read_model_json(path: Path):
    """A model directory's JSON file, decoded; malformed JSON is an :class:`InputError` naming
    the file and line."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise InputError(path, err.lineno, None, f"not valid JSON: {err.msg}") from None
    except UnicodeDecodeError as err:
        raise InputError(path, None, None, f"not UTF-8 text ({err.reason})") from None


def index_weight_map(index_path: Path) -> dict[str, str]:
    """The ``weight_map`` (tensor name -> shard file name) of a weight index, checked to be an
    object of strings; anything else is an :class:`InputError` naming the index."""
    index = read_model_json(index_path)
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict) or not weight_map:
        raise InputError(index_path, None, "weight_map", "missing, empty or not an object of tensor name -> shard file")
    for tensor, name in weight_map.items():
        if not isinstance(name, str):
            raise InputError(index_path, None, "weight_map", f"entry {tensor!r} names {name!r}, not a file name")
    return weight_map


def shard_files(index_path: Path) -> tuple[Path, ...]:
    """The shard files an ``*.index.json`` names in its ``weight_map``, sorted, as paths beside it.

    Every entry must name a file inside the model directory (no absolute path, no ``..``, no
    link leading out: :class:`~evidence_ledger.files.safe_files.PathOutside` naming the entry), and
    the file must exist (:class:`ShardMissing`)."""
    index_path = Path(index_path)
    directory, root = index_path.parent, containment_root(index_path.parent)
    first_entry: dict[str, str] = {}
    for tensor, name in index_weight_map(index_path).items():
        first_entry.setdefault(name, tensor)
    shards = []
    for name in sorted(first_entry):
        what = f"{index_path}: weight_map entry {first_entry[name]!r}"
        shard = named_path(root, name, base=directory, what=what)
        if not shard.is_file():
            raise ShardMissing(f"{what} names {name!r}, which is not a file in {directory}")
        shards.append(shard)
    return tuple(shards)


def loaded_weight_files(directory) -> tuple[str, tuple[Path, ...]]:
    """``(format, files)`` transformers loads from a local model directory (its precedence, no variant).

    Raises ``FileNotFoundError`` when the directory holds none of the four file names.
    """
    directory = Path(directory)
    if (directory / SAFE_WEIGHTS).is_file():
        return "safetensors", (directory / SAFE_WEIGHTS,)
    if (directory / SAFE_INDEX).is_file():
        return "safetensors", (directory / SAFE_INDEX,) + shard_files(directory / SAFE_INDEX)
    if (directory / PICKLE_WEIGHTS).is_file():
        return "pickle", (directory / PICKLE_WEIGHTS,)
    if (directory / PICKLE_INDEX).is_file():
        return "pickle", (directory / PICKLE_INDEX,) + shard_files(directory / PICKLE_INDEX)
    raise FileNotFoundError(f"model directory {directory} holds no weights transformers loads "
                            f"({SAFE_WEIGHTS}, {SAFE_INDEX}, {PICKLE_WEIGHTS} or {PICKLE_INDEX})")


def identity_files(directory, weights=()) -> list[Path]:
    """``weights`` plus the directory's config/tokenizer files (any depth), sorted by path.

    Weight-like files (``*.safetensors``, ``*.bin``, ...) and index files not in ``weights`` are
    left out. For a directory whose only tensor files are the loaded ones this is the file set
    the generation identity has always hashed.
    """
    directory = Path(directory)
    loaded = {Path(w) for w in weights}
    chosen = set(loaded)
    for f in directory.rglob("*"):
        if not f.is_file() or f in loaded or f.name in INDEX_NAMES or f.suffix in WEIGHT_SUFFIXES:
            continue
        if f.suffix in COMPANION_SUFFIXES:
            chosen.add(f)
    return sorted(chosen)


def files_sha256(directory, files) -> str:
    """sha256 over ``relative name + NUL + bytes`` of each file, in the order given."""
    directory = Path(directory)
    h = hashlib.sha256()
    for f in files:
        h.update(str(Path(f).relative_to(directory)).encode() + b"\0")
        _update_with_file(h, f)
    return h.hexdigest()


def bytes_sha256(files) -> str:
    """sha256 over the concatenated bytes of ``files``, in the order given."""
    h = hashlib.sha256()
    for f in files:
        _update_with_file(h, f)
    return h.hexdigest()


def file_sha256(path) -> str:
    """sha256 of one file's bytes."""
    return bytes_sha256([path])


def _update_with_file(h, path) -> None:
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)


def hub_snapshot_dir(hub_id: str, revision: str | None) -> Path:
    """The cached snapshot directory of ``hub_id`` at ``revision`` (default branch when None);
    offline: raises :class:`ModelNotCached` when the cache lacks it."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError

    try:
        return Path(snapshot_download(repo_id=hub_id, revision=revision, local_files_only=True))
    except HFValidationError as err:
        raise ModelNotCached(f"{hub_id}: no such directory, and not a Hub id (organisation/name) either") from err
    except LocalEntryNotFoundError as err:
        raise ModelNotCached(
            f"{hub_id}@{revision or 'main'} is not in the local Hugging Face cache; runs never download: "
            f"fetch it once (e.g. `hf download {hub_id} --revision {revision or 'main'}`) or point the config "
            f"at a local directory") from err


def cached_snapshot(hub_id: str | None, revision: str | None) -> Path | None:
    """The cached snapshot directory of ``hub_id`` at ``revision`` (:func:`hub_snapshot_dir`,
    offline), or None when the cache lacks it, ``hub_id`` is unset or ``huggingface_hub`` is not
    installed (the SLURM submit host's environment): what may be read without a download."""
    if not hub_id:
        return None
    try:
        return hub_snapshot_dir(hub_id, revision)
    except (ModelNotCached, ImportError):
        return None


def fetch_weights_command(hub_id: str, revision: str | None) -> str:
    """The command that fetches a Hub model whole (its weights too) into the local cache."""
    return f"hf download {hub_id} --revision {revision or 'main'}"


def model_directory(location: str, revision: str | None = None) -> Path:
    """``location`` itself when it is an existing directory, else its cached Hub snapshot; either
    way checked by :func:`check_model_tree` before anything in it is read."""
    directory = Path(location) if Path(location).is_dir() else hub_snapshot_dir(location, revision)
    check_model_tree(directory)
    return directory


def check_model_tree(directory) -> None:
    """Refuse a model directory from which a load would read outside it: a link (at any depth)
    leading out of :func:`containment_root`, or a file name that one of its config files
    (:data:`NAMING_CONFIGS`, top-level keys ending in ``_file`` or ``_files``) gives and that is
    absolute, climbs out with ``..`` or leads out through a link
    (:class:`~evidence_ledger.files.safe_files.PathOutside`, naming the file and the key). Weight
    indexes are checked where their shards are listed (:func:`shard_files`)."""
    directory = Path(directory)
    root = containment_root(directory)
    check_no_links_out(root, directory, what=f"model directory {directory}")
    for config in NAMING_CONFIGS:
        path = directory / config
        if not path.is_file():
            continue
        data = read_model_json(path)
        for key, value in sorted(data.items()) if isinstance(data, dict) else ():
            if not key.endswith(("_file", "_files")):
                continue
            for name in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
                if isinstance(name, str):
                    named_path(root, name, base=directory, what=f"{path}: key {key!r}")


def resolve_model(location: str, revision: str | None = None, *, allow_pickle_weights: bool,
                  allow_key: str | None) -> ModelFiles:
    """Resolve a model offline and check its weights; pickle weights raise
    :class:`PickleWeightsRefused` naming ``allow_key`` (None: no key allows them) unless
    ``allow_pickle_weights``; weights without a ``config.json`` beside them raise
    ``FileNotFoundError`` naming the directory."""
    directory = model_directory(location, revision)
    fmt, weights = loaded_weight_files(directory)
    source = str(location) if Path(location).is_dir() else f"{location}@{revision or 'main'}"
    if not (directory / MODEL_CONFIG).is_file():
        raise FileNotFoundError(f"model {source}: {directory} has weights ({weights[0].name}) but no "
                                f"{MODEL_CONFIG}, so what architecture they are would be guessed; copy the "
                                f"model's {MODEL_CONFIG} beside them")
    if fmt == "pickle" and not allow_pickle_weights:
        raise PickleWeightsRefused(
            f"model {source}: transformers would load pickle weights ({weights[0].name}; no {SAFE_WEIGHTS} or "
            f"{SAFE_INDEX} in {directory}); pickle files can run code when loaded, so they "
            + (f"load only with {allow_key}: true" if allow_key else "are not loaded here")
            + f". Or convert them once: python -m evidence_ledger convert-weights {location}"
            + (f" --revision {revision}" if revision and not Path(location).is_dir() else "")
            + " --out DIR, and load DIR")
    return ModelFiles(directory=directory, weights=weights, format=fmt, source=source)


def load_kwargs(files: ModelFiles, trust_remote_code: bool = False) -> dict[str, Any]:
    """Keyword arguments for every model ``from_pretrained`` of ``files.directory``: offline
    always, remote code only when the config opts in, and the weight format chosen here."""
    return {"local_files_only": True, "trust_remote_code": bool(trust_remote_code),
            "use_safetensors": files.safetensors}


def tokenizer_kwargs(trust_remote_code: bool = False) -> dict[str, Any]:
    """Keyword arguments for every tokenizer ``from_pretrained``: offline always, no remote code
    unless the config opts in."""
    return {"local_files_only": True, "trust_remote_code": bool(trust_remote_code)}


# load-time options transformers records in ``init_kwargs``; they say how a tokenizer was
# loaded (and follow HF_HUB_OFFLINE), not what it is, so saved configs leave them out
LOAD_TIME_TOKENIZER_KEYS = ("local_files_only",)


def save_tokenizer(tokenizer, out_dir) -> None:
    """``tokenizer.save_pretrained(out_dir)`` without load-time options in ``tokenizer_config.json``."""
    saved = {k: tokenizer.init_kwargs.pop(k) for k in LOAD_TIME_TOKENIZER_KEYS if k in tokenizer.init_kwargs}
    try:
        tokenizer.save_pretrained(out_dir)
    finally:
        tokenizer.init_kwargs.update(saved)


# --- completeness, for the preflight (evidence_ledger.run.preflight) ------------------------------

# files that hold a tokenizer's vocabulary (one of them must be there; tokenizer_config.json alone is not)
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "spiece.model", "sentencepiece.bpe.model", "vocab.json",
                   "vocab.txt", "tiktoken.model")
SAFETENSORS_HEADER_LIMIT = 100 << 20  # a header longer than 100 MiB is not a safetensors header


def safetensors_header_problem(path) -> str | None:
    """Why ``path`` is not a whole safetensors file (None when it is), from its header alone:
    the 8-byte length, the JSON header, and every tensor's data inside the file (a truncated
    download ends early)."""
    path = Path(path)
    size = path.stat().st_size
    with open(path, "rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            return f"{path.name}: shorter than a safetensors header"
        n = int.from_bytes(head, "little")
        if n > min(size - 8, SAFETENSORS_HEADER_LIMIT):
            return f"{path.name}: not a safetensors file (header length {n} does not fit its {size} bytes)"
        try:
            header = json.loads(fh.read(n))
        except (ValueError, UnicodeDecodeError):
            return f"{path.name}: not a safetensors file (its header is not JSON)"
    if not isinstance(header, dict):
        return f"{path.name}: not a safetensors file (its header is not a JSON object)"
    ends = [info.get("data_offsets", [0, 0])[1] for name, info in header.items()
            if name != "__metadata__" and isinstance(info, dict)]
    if ends and max(ends) > size - 8 - n:
        return f"{path.name}: truncated ({size:,} bytes; its tensors need {8 + n + max(ends):,})"
    return None


def weights_absent(directory) -> bool:
    """Whether a model directory holds its ``config.json`` and a tokenizer vocabulary but none of
    the weight files transformers loads (nor an index): a download of the tokenizer files alone,
    enough to count tokens and to read the model's shape, not to load it."""
    directory = Path(directory)
    if not (directory / MODEL_CONFIG).is_file() or not any((directory / n).is_file() for n in TOKENIZER_FILES):
        return False
    return not any((directory / n).exists() for n in (SAFE_WEIGHTS, SAFE_INDEX, PICKLE_WEIGHTS, PICKLE_INDEX))


def model_dir_problems(directory, *, allow_pickle: bool = False, allow_key: str | None = None,
                       trust_remote_code: bool = False, trust_key: str | None = None) -> list[str]:
    """Why a model directory cannot be loaded as the run loads it (empty when it can), reading
    only small files and safetensors headers: nothing leading out of it (:func:`check_model_tree`),
    ``config.json`` (a JSON object; an ``auto_map``
    asks for the model's own code, which loads only with ``trust_key`` true), a tokenizer
    vocabulary (:data:`TOKENIZER_FILES`), the weights transformers loads
    (:func:`loaded_weight_files`) with every shard its index lists present and whole, and
    pickle weights only where ``allow_key`` allows them."""
    directory = Path(directory)
    if not directory.is_dir():
        return [f"{directory} is not a directory"]
    try:
        check_model_tree(directory)
    except ExpectedError as err:  # a link or a named file leading out: nothing else in it is read
        return [str(err)]
    problems = []
    config_path = directory / MODEL_CONFIG
    if not config_path.is_file():
        problems.append(f"no {MODEL_CONFIG}")
    else:
        try:
            cfg = json.loads(config_path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            cfg = None
            problems.append(f"{MODEL_CONFIG} is not JSON")
        if cfg is not None and not isinstance(cfg, dict):
            problems.append(f"{MODEL_CONFIG} is not a JSON object")
        elif cfg and cfg.get("auto_map") and not trust_remote_code:
            problems.append(f"{MODEL_CONFIG} has an auto_map (the model's own code), which loads only with "
                            + (f"{trust_key}: true (if you trust its code)" if trust_key
                               else "trust_remote_code, which no key of this model enables"))
    if not any((directory / name).is_file() for name in TOKENIZER_FILES):
        problems.append(f"no tokenizer vocabulary (one of {', '.join(TOKENIZER_FILES)})")
    try:
        fmt, weights = loaded_weight_files(directory)
    except ExpectedError as err:  # an index entry leading out, a shard missing, a malformed index: named
        return problems + [str(err)]
    except FileNotFoundError:
        return problems + [f"no weights transformers loads ({SAFE_WEIGHTS}, {SAFE_INDEX}, {PICKLE_WEIGHTS} "
                           f"or {PICKLE_INDEX})"]
    except (ValueError, KeyError, TypeError, AttributeError):
        return problems + ["its weight index is not a JSON object with a weight_map"]
    missing = [w.name for w in weights if not w.is_file() or w.stat().st_size == 0]
    if missing:
        problems.append(f"{len(missing)} of the weight files it loads are missing or empty ({', '.join(missing[:3])}"
                        + (", ..." if len(missing) > 3 else "") + ")")
    elif fmt == "safetensors":
        problems += [p for p in (safetensors_header_problem(w) for w in weights if w.name not in INDEX_NAMES) if p]
    if fmt == "pickle" and not allow_pickle:
        problems.append(f"its weights are pickle ({weights[0].name}; no {SAFE_WEIGHTS} or {SAFE_INDEX}), which "
                        + (f"load only with {allow_key}: true" if allow_key else "are not loaded here"))
    return problems
