"""How a run's config is built: defaults, then the demo only when no file is named, then the named
files and the command line; a paper run never sees a demo-only key."""
import os
import re
from pathlib import Path

import pytest
import yaml

from evidence_ledger.config.layers import (ConfigError, layered_config, load_schema, merge_layer,
                                           parse_config_entries, path_keys, read_layer, resolve_path, run_config,
                                           snakemake_run_config)

from support.paths import REPO_ROOT
from support.snakemake_runs import run_snakemake

PAPER = REPO_ROOT / "config" / "paper.yaml"
REHEARSAL = REPO_ROOT / "config" / "rehearsal.yaml"
PUBLIC = REPO_ROOT / "config" / "public.yaml"


def _keys(node, prefix=""):
    out = set()
    for k, v in node.items():
        out.add(prefix + k)
        if isinstance(v, dict):
            out |= _keys(v, prefix + k + ".")
    return out


def test_merge_layer_merges_mappings_and_replaces_lists():
    base = {"a": {"x": 1, "y": [1, 2]}, "b": 1}
    merge_layer(base, {"a": {"y": [3], "z": 2}})
    assert base == {"a": {"x": 1, "y": [3], "z": 2}, "b": 1}


def test_no_named_file_means_the_demo():
    demo = layered_config(REPO_ROOT)
    assert demo["data_root"] == "resources/demo"
    assert demo["generation"]["backend"] == "transformers"


def test_paper_run_sees_no_key_that_only_the_demo_sets():
    demo_only = _keys(yaml.safe_load((REPO_ROOT / "config" / "demo.yaml").read_text())) - _keys(
        layered_config(REPO_ROOT, [PAPER]))
    paper = layered_config(REPO_ROOT, [PAPER])
    assert not demo_only & _keys(paper)
    # the keys that leaked when the paper file was merged over the demo's
    assert "train" not in paper["data"]["fever"]["claims"]
    assert "train" not in paper["data"]["scifact"]["claims"]
    assert paper["retrieval"]["extra_claim_splits"] == {}
    assert set(paper["external"]["feverous"]["providers"]["sources"]) == {"dcuf", "unifee"}
    assert set(paper["external"]["feverous"]) == {"providers"}  # the demo's example system stays in the demo
    assert paper["data_root"] is None


def test_snakemake_command_line_layers_win_and_skip_the_demo():
    cfg = snakemake_run_config(REPO_ROOT, [str(PAPER)], ["data_root=/data", "sampling={fever: {n: 5}}"]).config
    assert cfg["data_root"] == "/data"
    assert cfg["sampling"]["fever"] == {"split": "dev", "method": "hash", "salt": "evidence-ledger-paper-fever", "n": 5}
    assert "train" not in cfg["data"]["fever"]["claims"]
    demo = snakemake_run_config(REPO_ROOT, [], ["data_root=elsewhere"]).config
    assert demo["data_root"] == "elsewhere" and "train" in demo["data"]["fever"]["claims"]


@pytest.mark.parametrize("entry, key, value", [
    ("sampling={fever: {n: 100}}", ("sampling", "fever", "n"), 100),           # config/README.md's example
    ("models={llama3_70b: {quantization: null}}", ("models", "llama3_70b", "quantization"), None),
    ("device_memory_gb=80.5", ("device_memory_gb",), 80.5),
    ("studies={diffgr: false}", ("studies", "diffgr"), False),
    ("slurm_gpu_partition=", ("slurm_gpu_partition",), None),
    ("data_root=/data/x", ("data_root",), "/data/x"),
])
def test_config_values_are_typed_as_a_user_means_them(entry, key, value):
    """--config values are read as YAML, as a config file's values are: numbers, booleans, null and
    nested mappings, not the strings Snakemake's own parser leaves below the top level."""
    node = parse_config_entries([entry])
    for part in key:
        node = node[part]
    assert node == value and type(node) is type(value)


def test_config_entries_merge_like_snakemake_and_refuse_what_snakemake_refuses():
    assert parse_config_entries(["sampling={fever: {n: 1}}", "sampling={scifact: {n: 2}}"]) == {
        "sampling": {"fever": {"n": 1}, "scifact": {"n": 2}}}
    with pytest.raises(ConfigError, match=r"^--config 'sampling\.fever\.n=1': 'sampling\.fever\.n' is not a top-level key"):
        parse_config_entries(["sampling.fever.n=1"])
    with pytest.raises(ConfigError, match=r"^--config 'data_root': expected KEY=VALUE$"):
        parse_config_entries(["data_root"])
    with pytest.raises(ConfigError, match=r"^--config 'sampling=\{fever: \{n: 1\}' \(column \d+\): not valid YAML"):
        parse_config_entries(["sampling={fever: {n: 1}"])


def test_a_key_repeated_in_one_file_is_refused_naming_the_file_and_both_lines(tmp_path):
    layer = tmp_path / "mine.yaml"
    layer.write_text("sampling:\n  fever: {n: 10}\ndata_root: /a\nsampling:\n  fever: {n: 20}\n")
    with pytest.raises(ConfigError) as err:
        read_layer(layer)
    assert str(err.value).startswith(f"{layer}:4: key 'sampling' is repeated (first at line 1)")
    nested = tmp_path / "nested.yaml"
    nested.write_text("models:\n  qwen3:\n    dtype: float32\n    dtype: bfloat16\n")
    with pytest.raises(ConfigError, match=r"nested\.yaml:4: key 'dtype' is repeated \(first at line 3\)"):
        read_layer(nested)
    with pytest.raises(ConfigError, match=r"^--config 'sampling=\{fever: 1, fever: 2\}': key 'fever' is repeated"):
        parse_config_entries(["sampling={fever: 1, fever: 2}"])


@pytest.mark.parametrize("text", ["", "\n\n", "# nothing here yet\n", "---\n"])
def test_an_empty_layer_is_accepted(tmp_path, text):
    layer = tmp_path / "empty.yaml"
    layer.write_text(text)
    assert read_layer(layer) == {}
    run = run_config(REPO_ROOT, [PAPER, layer], ["data_root=/data"])
    assert run.config == layered_config(REPO_ROOT, [PAPER], {"data_root": "/data"})


@pytest.mark.parametrize("text, kind", [("- a\n- b\n", "list"), ("just words\n", "string"), ("42\n", "number")])
def test_a_layer_that_is_not_a_mapping_is_refused_naming_the_file(tmp_path, text, kind):
    layer = tmp_path / "odd.yaml"
    layer.write_text(text)
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(layer))}: a config file holds a mapping of keys at the top "
                                          rf"level, not a {kind}$"):
        read_layer(layer)


def test_a_yaml_alias_is_refused_naming_the_line(tmp_path):
    """Nested aliases make a few lines expand without bound (a 'billion laughs' file): refused."""
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                    "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(bomb))}:2: YAML alias \*a is not read in a config"):
        read_layer(bomb)


def test_invalid_yaml_and_missing_files_are_named(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("sampling:\n  fever: {n: 10\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(bad))}:\d+:\d+: not valid YAML"):
        read_layer(bad)
    with pytest.raises(ConfigError, match="config file .*nowhere.yaml not found"):
        run_config(REPO_ROOT, [tmp_path / "nowhere.yaml"])


def test_each_value_knows_the_file_and_line_or_command_line_that_set_it():
    run = run_config(REPO_ROOT, [PAPER], ["sampling={fever: {n: 7}}"])
    paper_lines = PAPER.read_text().splitlines()
    fever = next(i for i, line in enumerate(paper_lines, 1) if line.startswith("  fever: {split: dev"))
    assert run.origin("sampling.fever.n") == "--config"
    assert run.origin("sampling.fever.salt") == f"config/paper.yaml:{fever}"
    assert run.origin("generation.backend").startswith("config/defaults.yaml:")
    assert run.from_workflow("generation.backend") and not run.from_workflow("sampling.fever.salt")


def test_tilde_is_expanded_in_every_path_key_and_an_unknown_user_refused():
    """Every key the schema marks as a path (data_root, data files, model directories, the cache,
    job_env, the few-shot and reference files) gets ``~`` expanded the same way."""
    schema = load_schema(REPO_ROOT)
    home = os.path.expanduser("~")
    run = run_config(REPO_ROOT, [PAPER], ["data_root=~/data", "job_env=~/venv", "generation={cache_dir: ~/cache}",
                                          "models={qwen3: {local_dir: ~/models/qwen3}}",
                                          "data={fever: {wiki: ~/wiki-pages}}",
                                          "wikicontradict={judge: {fewshot_file: ~/fewshot.jsonl}}"])
    marked = dict(path_keys(run.config, schema))
    for path in [("data_root",), ("job_env",), ("generation", "cache_dir"), ("models", "qwen3", "local_dir"),
                 ("data", "fever", "wiki"), ("wikicontradict", "judge", "fewshot_file")]:
        assert path in marked, path
        node = run.config
        for part in path:
            node = node[part]
        assert node.startswith(home + "/") and "~" not in node, (path, node)
    with pytest.raises(ConfigError, match=r"^data_root = '~no-such-user-here/data' \(--config\): '~no-such-user-here' "
                                          r"names no user"):
        run_config(REPO_ROOT, [PAPER], ["data_root=~no-such-user-here/data"])


def test_relative_paths_resolve_against_the_run_directory_and_the_workflows_own_files_against_it(tmp_path):
    run = run_config(REPO_ROOT, [PAPER], ["data_root=data"])
    assert resolve_path(run, "data_root", tmp_path, REPO_ROOT, "input") == tmp_path / "data"
    assert resolve_path(run, "generation.cache_dir", tmp_path, REPO_ROOT, "run") == tmp_path / "results/cache/generation"
    # set by the workflow's own defaults: a file shipped with the workflow
    fewshot = resolve_path(run, "wikicontradict.judge.fewshot_file", tmp_path, REPO_ROOT, "input")
    assert fewshot == REPO_ROOT / "resources/prompts/wikicontradict_fewshot.jsonl"
    demo = run_config(REPO_ROOT)
    assert resolve_path(demo, "data_root", tmp_path, REPO_ROOT, "input") == REPO_ROOT / "resources/demo"
    mine = run_config(REPO_ROOT, [], ["wikicontradict={judge: {fewshot_file: my_fewshot.jsonl}}"])
    assert resolve_path(mine, "wikicontradict.judge.fewshot_file", tmp_path, REPO_ROOT, "input") == \
        tmp_path / "my_fewshot.jsonl"


def test_paper_file_holds_only_values_that_differ_from_the_defaults():
    defaults = layered_config(REPO_ROOT, [REPO_ROOT / "config" / "defaults.yaml"])

    def same(layer, base, prefix=""):
        out = []
        for k, v in layer.items():
            if isinstance(v, dict) and isinstance(base.get(k), dict):
                out += same(v, base[k], prefix + k + ".")
            elif k in base and base[k] == v:
                out.append(prefix + k)
        return out

    for path in (PAPER, REPO_ROOT / "config" / "demo.yaml", REHEARSAL, PUBLIC):
        layer = yaml.safe_load(path.read_text())
        base = defaults if path not in (REHEARSAL, PUBLIC) else layered_config(REPO_ROOT, [PAPER])
        repeated = [k for k in same(layer, base)
                    # a model entry is read whole: its fields stay together even where a default matches
                    if not k.startswith("models.")]
        assert not repeated, f"{path.name} repeats values of the layers below it: {repeated}"


def test_tracked_configs_never_set_data_root_for_the_paper():
    assert "data_root" not in yaml.safe_load(PAPER.read_text())
    assert "data_root" not in yaml.safe_load(REHEARSAL.read_text())
    assert "data_root" not in yaml.safe_load(PUBLIC.read_text())


@pytest.mark.workflow
@pytest.mark.parametrize("flags", [[], ["--replace-workflow-config"]])
def test_snakemake_paper_run_refuses_without_data_root_whatever_the_flags(tmp_path: Path, flags):
    proc = run_snakemake(tmp_path, "-n", "--configfile", PAPER, *flags)
    assert proc.returncode != 0
    assert "data_root is not set" in proc.stdout + proc.stderr
    assert "MissingInputException" not in proc.stdout + proc.stderr
