"""Whether a generating job's prompts fit its model's context, said before the engine loads.

In:  chat request rows (``messages`` and ``max_new_tokens``, as :mod:`.chat_rows` writes them),
     the model's ``models:`` entry, its backend and backend options.
Out: the context limit and the config key that sets it (:func:`context_limit`: vLLM's
     ``generation.vllm.max_model_len``, else the model's ``max_position_embeddings``), the
     prompt tokens of a request as the backends count them (:class:`PromptTokens`: the model's
     chat template with the generation prompt, no extra special tokens), and one line naming the
     longest request that does not fit with the key to change (:func:`overflow_line`).

vLLM refuses a prompt whose tokens plus ``max_new_tokens`` exceed ``max_model_len`` only when the
job sends it, after the engine has loaded; the WikiContradict and DiffGR jobs
(``chat_rows.generate_for_rows``) therefore count their prompts first and stop with that line,
and the preflight counts them at start where the rows' inputs already exist
(:mod:`evidence_ledger.run.checks.conflict_prompts`); Study 2's bound is the preflight's ``plan`` check,
which takes its limit from :func:`context_limit` too.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from ..errors import ExpectedError
from .backends.chat_tokenizer import ChatTokenizerMixin

#: the backend whose engine refuses a prompt longer than its context (the others are not checked)
CHECKED_BACKEND = "vllm"
MAX_MODEL_LEN_KEY = "generation.vllm.max_model_len"


class PromptTooLong(ExpectedError):
    """A request's prompt plus its output tokens exceed the model's context."""


def context_limit(max_model_len: int | None, model: str, model_cfg: Mapping[str, Any],
                  run_dir: Path | str = ".") -> tuple[int | None, str]:
    """The tokens one request may hold (prompt + output) and the key that sets them:
    ``max_model_len`` (:data:`MAX_MODEL_LEN_KEY`) when given, else the model's
    ``max_position_embeddings`` (vLLM's default ``max_model_len``; None when unknown)."""
    if max_model_len:
        return int(max_model_len), MAX_MODEL_LEN_KEY
    from ..models.gpu_fit import model_facts

    facts = model_facts(model_cfg.get("hub_id"), model_cfg.get("local_dir"), Path(run_dir), model_cfg.get("revision"))
    return facts.max_positions, f"the max_position_embeddings of models.{model}"


class PromptTokens(ChatTokenizerMixin):
    """Prompt tokens of a chat request, counted as the backends count them."""

    class _Spec:
        def __init__(self, chat_template_kwargs: Mapping[str, Any]):
            self.chat_template_kwargs = dict(chat_template_kwargs)

    def __init__(self, tokenizer, chat_template_kwargs: Mapping[str, Any]):
        self.tokenizer = tokenizer
        self.spec = self._Spec(chat_template_kwargs)

    @classmethod
    def of_model(cls, model_cfg: Mapping[str, Any], local_dir: str | None = None) -> "PromptTokens":
        """The counter of a ``models:`` entry: its tokenizer from ``local_dir`` (else the entry's
        ``local_dir``) when that directory exists, else from the Hub id at its revision."""
        from ..evidence.budget import load_tokenizer

        local = local_dir or model_cfg.get("local_dir")
        if local and Path(local).is_dir():
            tokenizer = load_tokenizer(str(local))
        else:
            tokenizer = load_tokenizer(model_cfg["hub_id"], model_cfg.get("revision"))
        return cls(tokenizer, model_cfg.get("chat_template_kwargs") or {})

    def __call__(self, chats: Sequence[Sequence[Mapping[str, str]]]) -> list[int]:
        """The prompt tokens of each chat (one batch through the fast tokenizer)."""
        if not chats:
            return []
        rendered = [self.render(messages) for messages in chats]
        return [len(ids) for ids in self.tokenizer(rendered, add_special_tokens=False)["input_ids"]]


def request_item(row: Mapping[str, Any], item_keys: Sequence[str]) -> str:
    """How a line names one request: its ``item_keys`` columns (``instance_id 7, template 5.1``),
    else its ``request_id``."""
    named = [f"{k} {row[k]}" for k in item_keys if k in row]
    return ", ".join(named) if named else f"request_id {row['request_id']}"


def overflow_line(what: str, rows: Sequence[Mapping[str, Any]], count: Callable[[Sequence], list[int]], limit: int,
                  key: str, item_keys: Sequence[str] = (), output_key: str = "max_new_tokens") -> str | None:
    """None when every request's prompt tokens (``count``: chats -> tokens) + ``max_new_tokens``
    fit ``limit``; else one line: ``what``, how many do not fit, the longest (named by
    :func:`request_item`) and the keys to change (``key``, or ``output_key``, the output tokens')."""
    over, longest = 0, None
    for row, tokens in zip(rows, count([r["messages"] for r in rows]), strict=True):
        need = tokens + int(row["max_new_tokens"])
        if need > limit:
            over += 1
            if longest is None or need > longest[0]:
                longest = (need, row)
    if not over:
        return None
    need, row = longest
    return (f"{what}: {over} of {len(rows)} prompts do not fit {key} = {limit:,} tokens; the longest, "
            f"{request_item(row, item_keys)}, needs {need - int(row['max_new_tokens']):,} prompt tokens + "
            f"{output_key} {int(row['max_new_tokens'])} = {need:,}: raise {key} (or lower {output_key}); vLLM "
            f"would refuse these prompts only when the job sends them")


def refuse_long_prompts(what: str, rows: Sequence[Mapping[str, Any]], model: str, model_cfg: Mapping[str, Any],
                        backend: str, backend_options: Mapping[str, Any], local_dir: str | None = None,
                        item_keys: Sequence[str] = (), output_key: str = "max_new_tokens") -> None:
    """Raise :class:`PromptTooLong` (:func:`overflow_line`) when a vLLM job's prompt does not fit
    its model's context; other backends, and a model whose limit is unknown, pass."""
    if backend != CHECKED_BACKEND or not rows:
        return
    limit, key = context_limit((backend_options or {}).get("max_model_len"), model,
                               {**model_cfg, "local_dir": local_dir or model_cfg.get("local_dir")})
    if not limit:
        return
    line = overflow_line(what, rows, PromptTokens.of_model(model_cfg, local_dir), limit, key, item_keys, output_key)
    if line:
        raise PromptTooLong(line)
