"""Every shell block of README.md and config/README.md runs as written.

A shell block is a fenced block whose info string is ``bash`` (or ``sh``/``shell``). Its
commands - one a line, a line ending in ``\\`` continued on the next - run one by one with bash,
in order, in a scratch directory that holds the repository's files (linked) and nothing of a
previous run, with the repository's environment active as the README says (``.venv/bin`` first
on PATH, ``VIRTUAL_ENV`` set) and the Makefile's thread and offline variables set. What would
take long runs as its dry run: ``snakemake ...`` (also ``.venv-slurm/bin/snakemake``) with
``--dry-run`` added, and without ``--report FILE`` (a report needs a finished run; the rest of
the command is still planned); ``make TARGET`` as ``make -n TARGET``. Words in capitals that
stand for the reader's own files are there under those names: ``DATA`` is a data tree in the
paper's layout (``python -m evidence_ledger rehearsal-data`` plus the converted-verifier
directory), the ``*_GOLD.jsonl`` files are the demo's gold files of that benchmark, the
``*_PRED.jsonl`` / ``FEVEROUS_BASELINE.jsonl`` files predictions in the official formats made
from them, and ``HYBRID.jsonl`` ... ``CLOSED_BOOK.jsonl`` the demo's DiffGR reader outputs; the paper's
Hub models are in the Hugging Face cache (``HF_HUB_CACHE``) as stand-ins, as a reader downloads
them before a paper run (README, "Reproducing the paper", step 2).

A block right after a line ``<!-- not run here: REASON -->`` is skipped with that reason; the
reasons allowed are :data:`SKIP_REASONS`. A block right after a line ``<!-- after the block
above -->`` reads what the shell block before it wrote (``items results/account-example`` after
the ``account ... --out results/account-example`` that writes it): that block's commands run
first, in the same scratch directory. A failure names the file, the block's line, the command's
line and the command as run.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.hang_guard import HANG_GUARD_S
from support.hub_cache import paper_hub_models, stand_in_hub_cache
from support.paths import REPO_ROOT
from support.rehearsal import paper_data_tree

pytestmark = pytest.mark.workflow

DOCUMENTS = ("README.md", "config/README.md")
SHELLS = ("bash", "sh", "shell")
SKIP_MARK = re.compile(r"^\s*<!--\s*not run here:\s*(.+?)\s*-->\s*$")
SKIP_REASONS = ("needs a GPU", "needs the real corpora", "needs the paper's models")
AFTER_MARK = re.compile(r"^\s*<!--\s*after the block above\s*-->\s*$")
# top-level entries of the repository that are a run's output or the developer's own, never linked
NOT_LINKED = {".git", "results", "logs", ".snakemake", "rehearsal-data", "report.html", ".pytest_cache"}
MAKEFILE_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                "TOKENIZERS_PARALLELISM": "false", "VLLM_ENABLE_V1_MULTIPROCESSING": "0", "VLLM_CPU_KVCACHE_SPACE": "1",
                "HF_HUB_OFFLINE": "1"}


@dataclass(frozen=True)
class Command:
    line: int   # of its first line in the document
    text: str   # as written, continuation lines joined


@dataclass(frozen=True)
class Block:
    document: str
    line: int   # of the opening fence
    commands: tuple[Command, ...]
    skip: str | None  # the reason of a "not run here" mark right before it
    after: "Block | None" = None  # the shell block before it, where an "after the block above" mark says so

    @property
    def where(self) -> str:
        return f"{self.document}:{self.line}"


def shell_blocks(document: str) -> list[Block]:
    """The shell blocks of ``document`` (relative to the repository), in order."""
    lines = (REPO_ROOT / document).read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        opening = re.match(r"^(\s*)```\s*(\S*)\s*$", lines[i])
        if not opening:
            i += 1
            continue
        indent, info = len(opening.group(1)), opening.group(2)
        end = next((j for j in range(i + 1, len(lines)) if re.match(r"^\s*```", lines[j])), None)
        assert end is not None, f"{document}:{i + 1}: a fenced block that is never closed"
        assert re.match(r"^\s*```\s*$", lines[end]), f"{document}:{end + 1}: text after a closing fence"
        if info in SHELLS:
            previous = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            mark = SKIP_MARK.match(previous)
            if AFTER_MARK.match(previous):
                assert blocks, f"{document}:{i + 1}: 'after the block above' with no shell block above"
            blocks.append(Block(document, i + 1, tuple(block_commands(lines[i + 1:end], i + 2, indent)),
                                mark.group(1) if mark else None,
                                blocks[-1] if AFTER_MARK.match(previous) else None))
        i = end + 1
    return blocks


def block_commands(body: list[str], first_line: int, indent: int) -> list[Command]:
    """The commands of a block's lines (``first_line``: the document line of ``body[0]``)."""
    commands, pending, start = [], [], None
    for offset, raw in enumerate(body):
        text = raw[indent:] if raw[:indent].strip() == "" else raw.lstrip()
        if not pending and (not text.strip() or text.lstrip().startswith("#")):
            continue
        if not pending:
            start = first_line + offset
        if text.rstrip().endswith("\\"):
            pending.append(text.rstrip()[:-1].rstrip())
            continue
        pending.append(text.strip())
        commands.append(Command(start, " ".join(part.strip() for part in pending)))
        pending = []
    assert not pending, f"line {start}: a continuation line ends the block"
    return commands


def commands_to_run(block: Block) -> list[tuple[Block, Command]]:
    """The commands a block's test runs, in order: those of the blocks it comes after, then its own."""
    earlier = commands_to_run(block.after) if block.after else []
    return earlier + [(block, command) for command in block.commands]


def as_run(command: str) -> str:
    """The command as the test runs it: a dry run where the real one is long (module docstring)."""
    first, _, rest = command.partition(" ")
    if first == "snakemake" or first.endswith("/snakemake"):
        rest = re.sub(r"(^|\s)--report(\s+[^\s-]\S*)?", " ", rest)
        return f"{first} --dry-run {rest}".rstrip()
    if first == "make":
        return f"make -n {rest}"
    return command


ALL_BLOCKS = [b for document in DOCUMENTS for b in shell_blocks(document)]


# --- the reader's files, under the names the README gives them ---


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write_jsonl(path: Path, records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def fever_predictions(gold: list[dict]) -> list[dict]:
    """A prediction per claim with the gold label and the gold pages and lines of its first evidence group."""
    return [{"id": c["id"], "predicted_label": c["label"],
             "predicted_evidence": [] if c["label"] == "NOT ENOUGH INFO"
             else [[page, line] for _, _, page, line in c["evidence"][0]]} for c in gold]


def feverous_predictions(gold: list[dict]) -> list[dict]:
    """A prediction per claim (the header record skipped) with its gold label and first evidence set."""
    return [{"id": c["id"], "predicted_label": c["label"],
             "predicted_evidence": list(c["evidence"][0]["content"]) if c["evidence"] else []}
            for c in gold if c.get("claim")]


def scifact_predictions(gold: list[dict]) -> list[dict]:
    """A prediction per claim with, per gold abstract, its first rationale's sentences and label."""
    return [{"id": c["id"], "evidence": {doc: {"sentences": rationales[0]["sentences"], "label": rationales[0]["label"]}
                                         for doc, rationales in c["evidence"].items()}} for c in gold]


def write_reader_files(scratch: Path, data_tree: Path) -> None:
    demo = REPO_ROOT / "resources" / "demo"
    (scratch / "DATA").symlink_to(data_tree, target_is_directory=True)
    shutil.copy(demo / "fever" / "paper_dev.jsonl", scratch / "FEVER_GOLD.jsonl")
    _write_jsonl(scratch / "FEVER_PRED.jsonl", fever_predictions(_jsonl(demo / "fever" / "paper_dev.jsonl")))
    feverous_gold = _jsonl(demo / "feverous" / "dev.jsonl")
    shutil.copy(demo / "feverous" / "dev.jsonl", scratch / "FEVEROUS_GOLD.jsonl")
    predictions = feverous_predictions(feverous_gold)
    _write_jsonl(scratch / "FEVEROUS_PRED.jsonl", predictions)
    by_id = {p["id"]: p for p in predictions}
    _write_jsonl(scratch / "FEVEROUS_BASELINE.jsonl", [{**c, **by_id[c["id"]]} for c in feverous_gold if c.get("claim")])
    shutil.copy(demo / "scifact" / "claims_dev.jsonl", scratch / "SCIFACT_GOLD.jsonl")
    _write_jsonl(scratch / "SCIFACT_PRED.jsonl", scifact_predictions(_jsonl(demo / "scifact" / "claims_dev.jsonl")))
    runs = demo / "conflict_qa" / "reader_runs"
    for name, part in (("HYBRID", "hybrid"), ("GENERATED", "generated_only"), ("RETRIEVED", "retrieved_only"),
                       ("CLOSED_BOOK", "closed_book")):
        shutil.copy(runs / f"{part}.jsonl", scratch / f"{name}.jsonl")


def scratch_checkout(scratch: Path) -> Path:
    """``scratch`` holding links to the repository's files (not its run outputs)."""
    scratch.mkdir(parents=True, exist_ok=True)
    for entry in sorted(os.listdir(REPO_ROOT)):
        if entry not in NOT_LINKED:
            (scratch / entry).symlink_to(REPO_ROOT / entry)
    return scratch


def activated_env(hub_cache: Path) -> dict[str, str]:
    venv = Path(sys.executable).parent.parent
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env.update(MAKEFILE_ENV, VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               HF_HUB_CACHE=str(hub_cache))
    return env


@pytest.fixture(scope="module")
def hub_cache(tmp_path_factory) -> Path:
    """The Hugging Face cache holding stand-ins of every Hub model the paper config loads."""
    from evidence_ledger.config.layers import layered_config

    paper = layered_config(REPO_ROOT, [REPO_ROOT / "config" / "paper.yaml"])
    return stand_in_hub_cache(tmp_path_factory.mktemp("readme_hf_cache"), paper_hub_models(paper))


@pytest.fixture(scope="module")
def paper_tree(tmp_path_factory) -> Path:
    """``DATA``: the paper's layout, with the converted-verifier directory the paper config names."""
    return paper_data_tree(tmp_path_factory.mktemp("readme_data"))


@pytest.fixture
def scratch(tmp_path, paper_tree) -> Path:
    work = scratch_checkout(tmp_path / "checkout")
    write_reader_files(work, paper_tree)
    return work


# --- tests ---


def test_every_document_has_shell_blocks_and_only_known_skip_reasons():
    for document in DOCUMENTS[:1]:
        assert shell_blocks(document), f"{document}: no shell block found"
    for block in ALL_BLOCKS:
        assert block.commands, f"{block.where}: an empty shell block"
        assert block.skip is None or block.skip in SKIP_REASONS, (
            f"{block.where}: 'not run here: {block.skip}' is not one of {SKIP_REASONS}")
        assert block.after is None or not block.after.skip, (
            f"{block.where}: runs after {block.after.where}, which is not run here")


def test_the_readme_sets_up_with_make_demo_and_make_test_first():
    """The Quick start block is the README's two set-up commands; activation comes after it."""
    first, second = shell_blocks("README.md")[:2]
    assert [c.text.split("#")[0].split() for c in first.commands] == [["make", "demo"], ["make", "test"]]
    assert second.commands[0].text == "source .venv/bin/activate"


def test_the_dry_run_forms():
    assert as_run("snakemake --cores 2 --until x") == "snakemake --dry-run --cores 2 --until x"
    assert as_run("snakemake --configfile a.yaml --config data_root=DATA --report report.html") == (
        "snakemake --dry-run --configfile a.yaml --config data_root=DATA")
    assert as_run(".venv-slurm/bin/snakemake --profile p --unlock") == ".venv-slurm/bin/snakemake --dry-run --profile p --unlock"
    assert as_run("make demo   # comment") == "make -n demo   # comment"
    assert as_run("python -m evidence_ledger plan") == "python -m evidence_ledger plan"
    assert block_commands(["  a \\", "    --b c", "", "  # note", "  d"], 10, 2) == [Command(10, "a --b c"),
                                                                                    Command(14, "d")]


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=[b.where for b in ALL_BLOCKS])
def test_shell_block_runs_as_written(block, scratch, hub_cache):
    if block.skip:
        pytest.skip(f"{block.where}: not run here: {block.skip}")
    env = activated_env(hub_cache)
    for owner, command in commands_to_run(block):
        run = as_run(command.text)
        proc = subprocess.run(["bash", "-o", "pipefail", "-c", run], cwd=scratch, env=env, capture_output=True,
                              text=True, timeout=HANG_GUARD_S)
        assert proc.returncode == 0, (
            f"{owner.document}:{command.line} (block at line {owner.line}) failed with exit {proc.returncode}:\n"
            f"  as written: {command.text}\n  as run:     {run}\n--- output (tail)\n"
            f"{(proc.stdout + proc.stderr)[-4000:]}")


def test_the_items_examples_run_after_the_account_commands_that_write_their_directory():
    """A block marked "after the block above" runs the block before it first, in the same directory."""
    readers = [b for b in ALL_BLOCKS if any(" items results/" in c.text for c in b.commands)]
    assert len(readers) >= 2, "the README's account and account kilt examples show the items command"
    for block in readers:
        directory = next(c.text.split()[4] for c in block.commands if " items results/" in c.text)
        assert block.after is not None, f"{block.where}: reads {directory} but runs in a fresh directory"
        assert any(f"--out {directory}" in c.text for c in block.after.commands), (
            f"{block.where}: the block above does not write {directory}")
        assert [c for _, c in commands_to_run(block)] == [*block.after.commands, *block.commands]
