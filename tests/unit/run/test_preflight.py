"""The preflight: each check makes its mistake and must refuse it in one line naming the key or
file (and where the value came from), before any job; what is right passes.

Checks run in-process on a run built as the command line builds it (``--configfile`` files and
``--config`` entries) over a data tree in the paper's layout (``rehearsal-data``); the workflow's
own start and the ``check`` command are tested in tests/workflow/test_preflight.py.
"""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from evidence_ledger.run.checks import data_files, machine, plan
from evidence_ledger.run import preflight
from evidence_ledger.run.checks.context import FAIL, NOTE, OK
from evidence_ledger.run.preflight import command_line_run, run_checks
from evidence_ledger.datasets.rehearsal_data import write_rehearsal_data

from support.hub_cache import paper_hub_models, snapshot_dir, stand_in_hub_cache, stand_in_model_dir
from support.paths import REPO_ROOT

PAPER = str(REPO_ROOT / "config" / "paper.yaml")
REHEARSAL = str(REPO_ROOT / "config" / "rehearsal.yaml")
VERIFIER_DIR = "models/deberta-large-mnli"


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return write_rehearsal_data_tree(tmp_path_factory.mktemp("tree") / "data")


def write_rehearsal_data_tree(root: Path) -> Path:
    write_rehearsal_data(root, force=True)
    return root


@pytest.fixture
def data(tree, tmp_path) -> Path:
    """A copy of the tree this test may break."""
    return Path(shutil.copytree(tree, tmp_path / "data"))


@pytest.fixture
def hub(tmp_path, monkeypatch) -> Path:
    """An empty Hugging Face cache, used by every offline lookup of this test."""
    import huggingface_hub.constants

    cache = tmp_path / "hf-cache"
    cache.mkdir()
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    return cache


def checks(*entries: str, files=(PAPER, REHEARSAL), run_dir=None, gpus_granted=None) -> list:
    ctx = command_line_run(list(files), list(entries), run_dir or REPO_ROOT, gpus_granted=gpus_granted)
    return run_checks(ctx)


def failures(result) -> list[str]:
    return [c.text for c in result if c.status == FAIL]


def only_failure(result) -> str:
    failed = failures(result)
    assert len(failed) == 1, [c.line() for c in result if c.status != OK]
    assert "\n" not in failed[0]
    return failed[0]


def paper_ready(data: Path, hub: Path) -> Path:
    """``data`` plus what the paper configuration loads besides it: its Hub models in the cache
    and the converted verifier base in data_root (stand-in files)."""
    from evidence_ledger.config.layers import layered_config

    stand_in_hub_cache(hub, paper_hub_models(layered_config(REPO_ROOT, [PAPER])))
    stand_in_model_dir(data / VERIFIER_DIR, "deberta")
    return data


# --- the runs the repository ships pass -------------------------------------------------------


def test_rehearsal_over_the_rehearsal_tree_passes_every_check(tree):
    result = checks(f"data_root={tree}")
    assert not failures(result), [c.line() for c in result]
    assert {c.area for c in result} >= {"config", "paths", "data", "models", "machine"}
    data_lines = [c.text for c in result if c.area == "data"]
    assert any(t.startswith("data.fever.wiki: fever/wiki-pages (*.jsonl files") for t in data_lines)


def test_paper_over_the_rehearsal_tree_passes_once_its_models_are_there(data, hub):
    result = checks(f"data_root={paper_ready(data, hub)}", files=(PAPER,))
    assert not failures(result), [c.line() for c in result if c.status != OK]
    assert [c for c in result if c.area == "plan"]  # vLLM: max_model_len checked


def test_paper_over_the_rehearsal_tree_names_the_one_command_for_each_missing_model(data, hub):
    """What rehearsal-data cannot write (the paper's models) is named with the command that makes it."""
    (data / VERIFIER_DIR).mkdir(parents=True)
    failed = failures(checks(f"data_root={data}", files=(PAPER,)))
    assert all(not f.startswith("data") for f in failed)
    models = [f for f in failed if "hf download" in f]
    assert len(models) == len(paper_hub_models(command_line_run([PAPER], []).config))
    assert any(f.startswith("models.qwen3 (") and "Qwen/Qwen3-8B@b968826" in f
               and "hf download Qwen/Qwen3-8B --revision b968826d9c46dd6066d109eabc6255188de91218" in f for f in failed)
    verifier = [f for f in failed if f.startswith("verifier.base_model.local_dir")]
    assert len(verifier) == 1 and "no config.json" in verifier[0]
    assert f"python -m evidence_ledger convert-weights microsoft/deberta-large-mnli --revision " \
           f"7296194b9009373def4f7c5dad292651e4b5cf4e --out {data / VERIFIER_DIR}" in verifier[0]


# --- config ---------------------------------------------------------------------------------


def test_a_schema_error_is_one_line_and_stops_the_other_areas(tree):
    result = checks(f"data_root={tree}", "generation={max_new_tokens: sixteen}")
    assert [c.area for c in result] == ["config", "config"]
    assert result[0].line() == ("FAIL config  generation.max_new_tokens = 'sixteen' (--config): expected an integer")
    assert result[1].status == NOTE


def test_a_cross_key_error_names_both_keys_and_where_each_was_set(tree):
    text = only_failure(checks(f"data_root={tree}", "generation={budgets: [short, huge]}"))
    assert text.startswith("generation.budgets names ['huge'], which evidence.budgets does not define")
    assert "generation.budgets: --config" in text and "evidence.budgets: config/defaults.yaml:" in text


def test_a_generation_model_outside_the_budget_tokenizers_is_refused(tree):
    text = only_failure(checks(f"data_root={tree}", "evidence={budget_tokenizers: [qwen3]}"))
    assert text.startswith("evidence.budget_tokenizers = ['qwen3'] leaves out generation.models ['llama31']")


def test_an_unset_data_root_is_named_with_the_command_line_to_give(tree):
    text = only_failure(checks())
    assert text.startswith("data_root is not set: give the directory holding the benchmark files on the command line")


# --- paths ----------------------------------------------------------------------------------


def test_a_data_path_escaping_data_root_is_refused_naming_the_key(tree):
    result = checks(f"data_root={tree}", "data={scifact: {corpus: ../../corpus.jsonl}}")
    text = [t for t in failures(result) if t.startswith("data.scifact.corpus")]
    assert text and "outside data_root" in text[0] and "(--config)" in text[0]


def test_relative_paths_resolve_against_the_run_directory(tree, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "mydata").symlink_to(tree)
    result = checks("data_root=mydata", run_dir=run_dir)
    assert not failures(result)
    paths = next(c.text for c in result if c.area == "paths")
    assert f"against the run directory {run_dir}; data_root -> {run_dir / 'mydata'}" in paths


# --- data -----------------------------------------------------------------------------------


def test_a_data_root_that_does_not_exist_is_named_as_such_not_as_a_missing_conversion(tmp_path, hub):
    result = checks(f"data_root={tmp_path / 'nowhere'}", files=(PAPER,))
    data = [c for c in result if c.area == "data" and c.text.startswith("data_root")]
    assert len(data) == 1 and data[0].status == FAIL
    assert data[0].text.startswith(f"data_root = '{tmp_path / 'nowhere'}' (--config): {tmp_path / 'nowhere'} does not exist")
    assert not any("convert-weights" in t for t in failures(result))
    assert any(c.status == NOTE and c.text.startswith("verifier.base_model.local_dir") for c in result)


def test_an_empty_data_root_is_refused(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    text = [t for t in failures(checks(f"data_root={empty}")) if t.startswith("data_root")]
    planned = len(data_files.planned_data_files(command_line_run([PAPER, REHEARSAL], []).config))
    assert text == [f"data_root = '{empty}' (--config): {empty} is an empty directory; give the directory holding "
                    f"the benchmark files (config/README.md, 'Paper data layout'); {planned} data files not checked"]


def _remove(path):
    path.unlink()


def _empty(path):
    path.write_bytes(b"")


def _garbage_first_line(path):
    path.write_text("this is not json\n" + path.read_text())


def _drop_field(field):
    def change(path):
        lines = path.read_text().splitlines()
        first = json.loads(lines[0])
        del first[field]
        path.write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    return change


def _csv_without(column):
    def change(path):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines[0] = lines[0].replace(f"{column},", "")
        path.write_text("".join(lines), encoding="utf-8")
    return change


def _rename_table(path):
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE wiki RENAME TO pages")


def _not_sqlite(path):
    path.write_text("SQLite? no.\n")


def _only_comments(path):
    path.write_text("# nothing reserved\n\n")


def _no_jsonl(path):
    for f in path.glob("*.jsonl"):
        f.rename(f.with_suffix(".json"))


@pytest.mark.parametrize("key, relpath, change, message", [
    ("data.fever.claims.dev", "fever/shared_task_dev.jsonl", _remove, "does not exist"),
    ("data.scifact.corpus", "scifact/corpus.jsonl", _empty, "is empty"),
    ("data.feverous.claims.pool", "feverous/pool.jsonl", _garbage_first_line, "line 1: not a JSON object"),
    ("data.nqcc.records", "conflict_qa/nqcc.jsonl", _drop_field("answer"), "line 1: the first record lacks answer"),
    ("data.wikicontradict.rag_qa_csv", "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv",
     _csv_without("contradictType"), "line 1: the CSV header lacks column(s) contradictType"),
    ("data.feverous.wiki", "feverous/feverous_wikiv1.db", _rename_table, "no table 'wiki' (tables: pages)"),
    ("data.feverous.wiki", "feverous/feverous_wikiv1.db", _not_sqlite, "not a readable SQLite database"),
    ("data.feverous.reserved_ids", "feverous/reserved_ids.txt", _only_comments, "holds no record"),
    ("data.fever.wiki", "fever/wiki-pages", _no_jsonl, "holds no *.jsonl file"),
    ("external.feverous.providers.sources.unifee.0", "feverous/providers/unifee.jsonl", _drop_field("predicted_evidence"),
     "the first record lacks predicted_evidence"),
])
def test_a_bad_data_file_is_named_by_its_key_and_path(data, key, relpath, change, message):
    change(data / relpath)
    text = only_failure(checks(f"data_root={data}"))
    assert text.startswith(f"{key} = ") and f"{(data / relpath).resolve()}" in text and message in text, text


def test_a_file_outside_data_root_the_jobs_read_is_checked_where_it_resolves(tree, tmp_path):
    """The judge's few-shot file: the workflow's own (set by its defaults) passes; one you name
    resolves against the run directory and is checked there."""
    ok = [c.text for c in checks(f"data_root={tree}") if c.text.startswith("wikicontradict.judge.fewshot_file")]
    assert ok == [f"wikicontradict.judge.fewshot_file: {REPO_ROOT / 'resources/prompts/wikicontradict_fewshot.jsonl'} "
                  f"(JSON line with question, response, judgement)"]
    text = only_failure(checks(f"data_root={tree}", "wikicontradict={judge: {fewshot_file: mine.jsonl}}",
                               run_dir=tmp_path))
    assert text == f"wikicontradict.judge.fewshot_file = 'mine.jsonl' (--config): {tmp_path / 'mine.jsonl'} does not exist"


def test_a_bad_wiki_file_among_many_is_named(data):
    page_file = sorted((data / "fever/wiki-pages").glob("*.jsonl"))[-1]
    page_file.write_text('{"id": "x"}\n')
    text = only_failure(checks(f"data_root={data}"))
    assert text.startswith("data.fever.wiki = ") and f"{page_file.name}: line 1: the first record lacks lines" in text


def test_data_checks_read_no_more_than_the_first_record(data):
    """A file whose second line is broken passes: the check reads the first record only."""
    claims = data / "fever" / "shared_task_dev.jsonl"
    lines = claims.read_text().splitlines()
    claims.write_text("\n".join([lines[0], "{ broken"] + lines[1:]) + "\n")
    assert not failures(checks(f"data_root={data}"))


# --- models ---------------------------------------------------------------------------------


def test_a_hub_model_not_in_the_cache_or_at_a_made_up_revision_is_refused(data, hub):
    paper_ready(data, hub)
    shutil.rmtree(snapshot_dir(hub, "meta-llama/Llama-3.1-8B-Instruct", "0e9e39f249a16976918f6564b8830bc894c89659"))
    made_up = "1234567890abcdef1234567890abcdef12345678"
    failed = failures(checks(f"data_root={data}", f"models={{qwen3: {{revision: {made_up}}}}}", files=(PAPER,)))
    assert len(failed) == 2, failed
    assert failed[0].startswith("models.qwen3 (--config): Qwen/Qwen3-8B@" + made_up + " is not in the local Hugging "
                                "Face cache")
    assert failed[1].startswith("models.llama31 (config/paper.yaml:")


def _drop(name):
    def change(directory):
        (directory / name).unlink()
    return change


def _truncate_weights(directory):
    path = directory / "model.safetensors"
    path.write_bytes(path.read_bytes()[:-4])


def _shard_index_with_a_missing_shard(directory):
    (directory / "model.safetensors").rename(directory / "model-00001-of-00002.safetensors")
    (directory / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}}))


def _pickle_weights(directory):
    (directory / "model.safetensors").unlink()
    (directory / "pytorch_model.bin").write_bytes(b"pickle")


def _remote_code(directory):
    cfg = json.loads((directory / "config.json").read_text())
    cfg["auto_map"] = {"AutoModel": "modeling_custom.CustomModel"}
    (directory / "config.json").write_text(json.dumps(cfg))


@pytest.mark.parametrize("change, message", [
    (_drop("config.json"), "no config.json"),
    (_drop("tokenizer.json"), "no tokenizer vocabulary"),
    (_truncate_weights, "model.safetensors: truncated"),
    (_shard_index_with_a_missing_shard, "weight_map entry 'b' names 'model-00002-of-00002.safetensors', "
                                        "which is not a file in"),
    (_pickle_weights, "its weights are pickle (pytorch_model.bin; no model.safetensors or model.safetensors.index."
                      "json), which load only with verifier.base_model.allow_pickle_weights: true"),
])
def test_an_incomplete_converted_verifier_is_refused_with_the_convert_command(data, hub, change, message):
    paper_ready(data, hub)
    change(data / VERIFIER_DIR)
    text = only_failure(checks(f"data_root={data}", files=(PAPER,)))
    assert text.startswith(f"verifier.base_model.local_dir -> {(data / VERIFIER_DIR).resolve()} (config/paper.yaml:")
    assert message in text and "convert it again: python -m evidence_ledger convert-weights" in text, text


def test_a_pickle_only_hub_model_is_refused_naming_the_conversion(data, hub):
    paper_ready(data, hub)
    revision = "7296194b9009373def4f7c5dad292651e4b5cf4e"
    _pickle_weights(stand_in_model_dir(snapshot_dir(hub, "microsoft/deberta-large-mnli", revision), "deberta"))
    text = only_failure(checks(f"data_root={data}", "verifier={base_model: {local_dir: null}}", files=(PAPER,)))
    assert text.startswith(f"verifier.base_model: microsoft/deberta-large-mnli@{revision} (config/paper.yaml:")
    assert "its weights are pickle" in text and text.endswith(
        f"or convert them once: python -m evidence_ledger convert-weights microsoft/deberta-large-mnli --revision "
        f"{revision} --out DIR, and set verifier.base_model.local_dir to DIR")


def test_a_model_asking_for_its_own_code_is_refused_unless_trusted(data, hub):
    paper_ready(data, hub)
    _remote_code(snapshot_dir(hub, "Qwen/Qwen3-8B", "b968826d9c46dd6066d109eabc6255188de91218"))
    text = only_failure(checks(f"data_root={data}", files=(PAPER,)))
    assert text.startswith("models.qwen3: Qwen/Qwen3-8B@b968826") and \
        "config.json has an auto_map (the model's own code), which loads only with models.qwen3.trust_remote_code: " \
        "true" in text
    assert not failures(checks(f"data_root={data}", "models={qwen3: {trust_remote_code: true}}", files=(PAPER,)))


def test_a_local_model_directory_that_is_not_there_is_refused(tree, tmp_path):
    text = only_failure(checks(f"data_root={tree}", f"models={{llama31: {{build: null, local_dir: {tmp_path}/l31}}}}"))
    assert text.startswith(f"models.llama31.local_dir -> {tmp_path}/l31 (--config): does not exist")


# --- machine --------------------------------------------------------------------------------


def _machine(*entries, files=(PAPER,), gpus_granted=None, visible=(0, "no nvidia-smi on PATH")):
    ctx = command_line_run(list(files), list(entries), REPO_ROOT, gpus_granted=gpus_granted)
    return machine.machine_checks(ctx, 0, plan.planned_rows(ctx), gpus=visible)


def test_a_population_known_only_after_ingest_is_said_in_the_disk_line_not_a_crash(tree):
    """A dataset whose claims are all sampled and whose size the planner is not told (a plugin's,
    say) cannot be counted before ingest: the disk line says so; the run is not refused for it."""
    ctx = command_line_run([PAPER, REHEARSAL], [f"data_root={tree}", "sampling={fever: {method: all, n: null}}"],
                           REPO_ROOT)
    del ctx.config["generation"]["planner"]["population"]["fever"]   # no layer can remove a key
    disk = [c for c in run_checks(ctx) if c.text.startswith("disk:")]
    assert len(disk) == 1 and disk[0].status == OK
    assert "not counted in it: no population size for fever: set sampling.fever.n or " \
           "generation.planner.population.fever" in disk[0].text


def test_gpu_jobs_granted_a_gpu_on_a_machine_without_one_are_refused(tree):
    text = only_failure(_machine(f"data_root={tree}", gpus_granted=1))
    assert text.startswith("the run grants 1 GPU(s) (--resources gpu=1) to its GPU jobs (generate, ")
    assert "but none is visible here (no nvidia-smi on PATH)" in text and "--config gpu_jobs=cpu" in text
    # no run-wide grant (SLURM places the jobs): said, not refused; asking for CPU: nothing to say
    assert [c.status for c in _machine(f"data_root={tree}") if "GPU" in c.text and "fit" not in c.text] == [NOTE]
    assert not failures(_machine(f"data_root={tree}", "gpu_jobs=cpu", gpus_granted=1))
    assert not failures(_machine(f"data_root={tree}", gpus_granted=1, visible=(1, "nvidia-smi lists 1")))


def test_a_job_that_does_not_fit_the_granted_gpus_is_refused_naming_rule_and_key(tree):
    failed = failures(_machine(f"data_root={tree}", "models={llama3_70b: {quantization: null, tensor_parallel_size: 2}}",
                               gpus_granted=1, visible=(1, "nvidia-smi lists 1")))
    assert failed and all(f.startswith("GPU fit: wikicontradict_judge") for f in failed)
    assert "models.llama3_70b needs 2 GPUs (tensor_parallel_size) but the run grants 1" in failed[0]


def test_too_little_disk_for_what_the_run_writes_is_refused(tree):
    failed = failures(_machine(f"data_root={tree}", "sampling={fever: {n: 100000000000}}", "gpu_jobs=cpu"))
    assert len(failed) == 1 and failed[0].startswith("disk: ") and "the run writes at most about" in failed[0]


# --- plan -----------------------------------------------------------------------------------


def test_max_model_len_below_the_longest_planned_prompt_is_refused_naming_rule_and_model(data, hub):
    paper_ready(data, hub)
    failed = failures(checks(f"data_root={data}", "generation={vllm: {max_model_len: 1000}}", files=(PAPER,)))
    assert [f.split(":")[0] for f in failed] == ["generate, models.qwen3", "generate, models.llama31"]
    assert "the longest planned prompt (1,144 tokens" in failed[0] and "+ generation.max_new_tokens 16 = 1,160 tokens " \
        "exceed generation.vllm.max_model_len = 1,000 (--config)" in failed[0]


def test_a_check_this_environment_cannot_run_is_said_not_skipped(tree, monkeypatch):
    """Where a package the planner needs is not installed (the SLURM submit host's environment,
    which the workflow hands the checks to the jobs' interpreter from), the plan checks say so."""
    def no_pyarrow(ctx):
        raise ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")

    monkeypatch.setattr(preflight, "planned_rows", no_pyarrow)
    monkeypatch.setattr(preflight, "plan_checks", no_pyarrow)
    result = checks(f"data_root={tree}", "generation={backend: vllm}", "gpu_jobs=cpu")
    notes = [c for c in result if c.status == NOTE and c.area == "plan"]
    assert len(notes) == 1 and "which has no pyarrow" in notes[0].text
    disk = next(c.text for c in result if c.text.startswith("disk:"))
    assert "not counted in it: not checked in this environment" in disk


def test_an_unknown_generation_backend_is_refused_naming_its_key(data):
    failed = only_failure(checks(f"data_root={data}", "generation={backend: vlm}"))
    assert failed.startswith("generation.backend: ") and "'vlm'" in failed


def test_a_served_model_without_its_api_key_variable_is_refused(data, monkeypatch):
    monkeypatch.delenv("EL_TEST_SERVER_KEY", raising=False)
    failed = only_failure(checks(f"data_root={data}", "models={qwen3: {backend: openai, server: "
                                                       "{base_url: 'http://127.0.0.1:9/v1', api_key_env: EL_TEST_SERVER_KEY}}}"))
    assert failed.startswith("models.qwen3.server.api_key_env: the environment variable EL_TEST_SERVER_KEY is not set")


def test_more_gpus_granted_than_cuda_visible_devices_lists_is_refused(data, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "3")
    result = checks(f"data_root={data}", gpus_granted=2)
    assert "--resources gpu=2 but CUDA_VISIBLE_DEVICES='3' names 1 device(s)" in " ".join(failures(result))
