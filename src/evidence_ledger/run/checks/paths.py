"""The ``paths`` area: where relative paths resolve (the run directory, never the installed
package; the workflow's own layers' files in the workflow's directory), every ``data_root`` path
inside it.

In:  a :class:`~evidence_ledger.run.checks.context.RunContext`.
Out: ``paths`` :class:`~evidence_ledger.run.checks.context.Check` rows; :func:`inside_data_root`.

Also checked here: every real tokenizer directory a stand-in is built over
(``generation.demo_models.tokenizers.<family>``) exists and holds ``tokenizer.json`` and a chat
template (:func:`demo_tokenizer_checks`), one line naming the key.
"""
from __future__ import annotations

from pathlib import Path

from ...config.layers import config_value, path_keys
from ...models.tokenizer_folder import tokenizer_folder_problem
from .context import FAIL, OK, Check, RunContext

DEMO_TOKENIZERS = "generation.demo_models.tokenizers"


def path_checks(ctx: RunContext) -> list[Check]:
    """Where relative paths resolve, and every data path inside data_root."""
    out = []
    shipped = sorted({".".join(p) for p, kind in path_keys(ctx.config, ctx.schema)
                      if kind == "input" and ctx.run.from_workflow(p) and not Path(config_value(ctx.config, p)).is_absolute()})
    root = ctx.data_root()
    text = f"relative paths resolve against the run directory {ctx.run_dir}"
    if root is not None:
        text += f"; data_root -> {root}"
    if shipped:
        text += f"; the workflow's own files ({', '.join(shipped)}) against the workflow's directory {ctx.workflow_dir}"
    out.append(Check("paths", OK, text))
    out += demo_tokenizer_checks(ctx)
    if root is None:
        return out
    resolved_root = root.resolve()
    for path, kind in path_keys(ctx.config, ctx.schema):
        if kind != "data_root":
            continue
        key = ".".join(path)
        target = (resolved_root / config_value(ctx.config, path)).resolve()
        if target != resolved_root and resolved_root not in target.parents:
            out.append(Check("paths", FAIL, f"{ctx.named(key)}: resolves to {target}, outside data_root "
                                            f"{resolved_root}; data paths stay inside data_root"))
    return out


def demo_tokenizer_checks(ctx: RunContext) -> list[Check]:
    """A FAIL line per ``generation.demo_models.tokenizers.<family>`` directory a stand-in cannot
    be built over (``models.tokenizer_folder.tokenizer_folder_problem``)."""
    out = []
    for family, value in sorted((config_value(ctx.config, DEMO_TOKENIZERS) or {}).items()):
        if not value:
            continue
        key = f"{DEMO_TOKENIZERS}.{family}"
        problem = tokenizer_folder_problem(ctx.path(key, "input"))
        if problem:
            out.append(Check("paths", FAIL, f"{ctx.named(key)}: {problem}; a stand-in is built over a real "
                                            f"tokenizer directory (tokenizer.json and its chat template)"))
    return out


def inside_data_root(ctx: RunContext, relpath: str) -> Path:
    """A data path resolved inside data_root (symlinks followed)."""
    return (ctx.data_root().resolve() / relpath).resolve()
