"""Provenance records what actually ran in each model slot, and the summary page says at the
top when a run is the demo or the rehearsal."""
import json
import re

from support.paths import REPO_ROOT
from support.summary_page import parse
from support.summary_tables import write_summary_inputs

from support.defaults import summary_settings

from evidence_ledger.config.layers import layered_config
from evidence_ledger.report.provenance import provenance_rows, run_kind, what_ran_rows, write_provenance_tsv
from evidence_ledger.report.stage import summary_page


def _config(*files):
    return layered_config(REPO_ROOT, [REPO_ROOT / f for f in files])


def test_the_demo_records_its_local_builds_not_the_hub_models():
    ran = dict((key, text) for _, key, text in what_ran_rows(_config(), "results/models/verifier_base"))
    assert ran["models.qwen3"].startswith("local build results/models/qwen3 (build settings sha256 ")
    assert ran["models.qwen3"].endswith("stand-in for Qwen/Qwen3-8B)")
    assert ran["retrieval.reranker"].startswith("local build results/models/reranker ")
    assert ran["verifier.base_model"].startswith("local build results/models/verifier_base ")
    assert not any("@" in text for text in ran.values())
    assert run_kind(_config(), REPO_ROOT)[0] == "demo"


def test_the_build_settings_hash_follows_the_build_settings():
    cfg = _config()
    before = dict((k, t) for _, k, t in what_ran_rows(cfg))["models.qwen3"]
    cfg["generation"]["demo_models"]["steps"] += 1
    assert dict((k, t) for _, k, t in what_ran_rows(cfg))["models.qwen3"] != before


def test_the_paper_run_records_hub_ids_at_revisions_and_a_converted_directory(tmp_path):
    cfg = _config("config/paper.yaml")
    model_dir = tmp_path / "deberta"
    model_dir.mkdir()
    (model_dir / "conversion.json").write_text(json.dumps({"source": "microsoft/deberta-large-mnli@abc123"}))
    ran = dict((key, text) for _, key, text in what_ran_rows(cfg, model_dir))
    assert ran["models.qwen3"] == f"Qwen/Qwen3-8B@{cfg['models']['qwen3']['revision']}"
    assert ran["verifier.base_model"] == ("local directory models/deberta-large-mnli; converted from "
                                          "microsoft/deberta-large-mnli@abc123")
    assert run_kind(cfg, REPO_ROOT)[0] == "paper"
    rehearsal = _config("config/paper.yaml", "config/rehearsal.yaml")
    assert run_kind(rehearsal, REPO_ROOT)[0] == "rehearsal"


def test_the_run_kind_follows_the_resolved_data_root_not_its_spelling(tmp_path):
    """Any spelling of the demo's own data directory is the demo; the same files copied
    elsewhere are not."""
    cfg = _config()
    for spelling in ("resources/demo", "./resources/demo", "resources/demo/", str(REPO_ROOT / "resources" / "demo"),
                     "resources/../resources/demo"):
        assert run_kind(dict(cfg, data_root=spelling), REPO_ROOT)[0] == "demo", spelling
    (tmp_path / "demo").mkdir()
    assert run_kind(dict(cfg, data_root=str(tmp_path / "demo")), REPO_ROOT)[0] == "rehearsal"


def test_a_slot_reusing_a_local_build_names_the_build_and_what_it_stands_in_for():
    """The rehearsal's judge runs the qwen3 stand-in's directory: its row says which build that
    is and which Hub model it stands in for, and no model row gives a Hub id or revision for a
    slot that ran a local directory."""
    cfg = _config("config/paper.yaml", "config/rehearsal.yaml")
    ran = dict((key, text) for _, key, text in what_ran_rows(cfg))
    assert ran["models.llama3_70b"] == ("local directory results/models/qwen3 (the local build of models.qwen3; "
                                        "stand-in for meta-llama/Meta-Llama-3-70B-Instruct)")
    model = {key for section, key, _ in provenance_rows(cfg, REPO_ROOT) if section == "model"}
    assert "models.qwen3.local_dir" in model and "models.llama3_70b.local_dir" in model
    assert not [k for k in model if k.endswith((".hub_id", ".revision")) and k.startswith("models.")]
    paper_model = {key for section, key, _ in provenance_rows(_config("config/paper.yaml"), REPO_ROOT)
                   if section == "model"}
    assert {"models.qwen3.hub_id", "models.qwen3.revision"} <= paper_model


def test_a_local_directory_that_is_no_build_says_what_it_replaces():
    cfg = _config("config/paper.yaml")
    cfg["models"]["qwen3"]["local_dir"] = "/models/qwen3-8b"
    text = dict((key, t) for _, key, t in what_ran_rows(cfg))["models.qwen3"]
    assert text == f"local directory /models/qwen3-8b (in place of Qwen/Qwen3-8B@{cfg['models']['qwen3']['revision']})"


def test_the_public_route_names_each_author_held_input_and_what_ran_instead():
    """config/public.yaml: one substitute row per author-held input; the paper run and its
    rehearsal read every author-held input (no row), and the demo, whose files are the
    project's own, has none either."""
    public = _config("config/paper.yaml", "config/rehearsal.yaml", "config/public.yaml")
    rows = {key: value for section, key, value in provenance_rows(public, REPO_ROOT) if section == "substitute"}
    assert list(rows) == [
        "the Study 2 FEVEROUS candidate pool (data.feverous.claims.pool)",
        "the reserved FEVEROUS claim ids (their families are left out of the Study 2 sample) "
        "(data.feverous.reserved_ids)",
        "the DCUF evidence submission (Study 1 evidence source 0) (external.feverous.providers.sources.dcuf)",
        "the UnifEE evidence submission (Study 1 evidence source 1) (external.feverous.providers.sources.unifee)",
        "human judgements of model responses (judge agreement) (data.wikicontradict.human_judgements)",
    ]
    values = list(rows.values())
    assert values[0] == ("the Study 2 FEVEROUS sample is 24 claims drawn by hash sampling (salt "
                         "evidence-ledger-paper-feverous) from the public dev split")
    assert values[2] == ("source 0 is retrieval_bm25: the pipeline's own bm25 ordering, exported as a submission "
                         "(external.feverous.retrieval.sources.retrieval_bm25)")
    assert values[3].startswith("source 1 is retrieval_bge: the pipeline's own bge ordering")
    for files in (("config/paper.yaml",), ("config/paper.yaml", "config/rehearsal.yaml"), ()):
        assert not [r for r in provenance_rows(_config(*files), REPO_ROOT) if r[0] == "substitute"], files


def _page(tmp_path, rows):
    paths = write_summary_inputs(tmp_path)
    write_provenance_tsv(rows, paths["provenance"])
    out = tmp_path / "summary.html"
    summary_page(study1_estimates=paths["study1_estimates"], study1_intervals=paths["study1_intervals"],
                 provenance=paths["provenance"], html_out=out, decomposition_out=tmp_path / "d.png",
                 **summary_settings())
    return parse(out)


def test_the_summary_page_opens_with_the_demo_banner(tmp_path):
    rows = [r for r in provenance_rows(_config(), REPO_ROOT, "results/models/verifier_base")
            if r[0] in ("run", "ran")]
    parsed = _page(tmp_path, rows)
    assert parsed.headings[0] == "Not a paper run: the demo"
    assert parsed.paragraphs[1].startswith("This is the embedded demo run, not a reproduction of the paper: "
                                           "data_root is resources/demo")
    assert "no failed reproduction" in parsed.paragraphs[1]
    slots = {row[0]["text"]: row[1]["text"] for table in parsed.tables for row in table[1:]
             if table[0][0]["text"] == "Model slot"}
    assert re.match(r"local build results/models/qwen3 \(build settings sha256 [0-9a-f]{12}; stand-in for "
                    r"Qwen/Qwen3-8B\)$", slots["models.qwen3"])


def test_a_paper_run_has_no_banner_and_keeps_its_departure_line(tmp_path):
    rows = [("run", "kind", "paper"), ("run", "kind_reason", "released data and the configured Hub models"),
            ("departure", "models.llama3_70b.quantization", "quantization fp8 on models.llama3_70b: the paper ran bfloat16")]
    parsed = _page(tmp_path, rows)
    assert not any(h.startswith("Not a paper run") for h in parsed.headings)
    assert ("Departure from the paper: quantization fp8 on models.llama3_70b: the paper ran bfloat16."
            in parsed.paragraphs)


def test_a_conversion_record_linked_from_outside_or_malformed_is_refused_naming_it(tmp_path):
    import pytest

    from evidence_ledger.errors import InputError
    from evidence_ledger.files.safe_files import PathOutside

    cfg = _config("config/paper.yaml")
    model_dir = tmp_path / "deberta"
    model_dir.mkdir()
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"source": "not this directory's"}))
    (model_dir / "conversion.json").symlink_to(elsewhere)
    with pytest.raises(PathOutside, match=rf"{model_dir}/conversion\.json leads to {elsewhere}"):
        what_ran_rows(cfg, model_dir)
    (model_dir / "conversion.json").unlink()
    (model_dir / "conversion.json").write_text('{"source": "x",\n')
    with pytest.raises(InputError, match=rf"{model_dir}/conversion\.json:2: not valid JSON"):
        what_ran_rows(cfg, model_dir)


def test_report_files_replace_a_link_at_their_path_and_never_write_through_it(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("not yours")
    paths = write_summary_inputs(tmp_path)
    out = tmp_path / "summary.html"
    out.symlink_to(outside)
    paths["provenance"].unlink()
    paths["provenance"].symlink_to(outside)
    write_provenance_tsv([("run", "kind", "demo")], paths["provenance"])
    summary_page(study1_estimates=paths["study1_estimates"], study1_intervals=paths["study1_intervals"],
                 provenance=paths["provenance"], html_out=out, decomposition_out=tmp_path / "d.png",
                 **summary_settings())
    assert outside.read_text() == "not yours"
    assert not out.is_symlink() and "<html" in out.read_text()
    assert paths["provenance"].read_text() == "section\tkey\tvalue\nrun\tkind\tdemo\n"
    assert not [p for p in tmp_path.rglob(".*.tmp*")]  # no temporaries left


def test_a_public_paper_run_opens_with_its_route_and_lists_the_substitutes_after_the_headline(tmp_path):
    """A paper run on public files: a banner saying so, the headline, then each author-held input
    with what ran instead (the provenance table's substitute rows)."""
    public = _config("config/paper.yaml", "config/public.yaml")
    rows = [r for r in provenance_rows(public, REPO_ROOT) if r[0] in ("run", "substitute")]
    parsed = _page(tmp_path, rows)
    assert parsed.headings[:3] == ["The paper's design on public files", "At a glance",
                                   "Public substitutes for author-held inputs"]
    listed = next(p for p in parsed.paragraphs if p.startswith("Author-held inputs and the public substitutes"))
    assert "the Study 2 FEVEROUS candidate pool (data.feverous.claims.pool) → the Study 2 FEVEROUS sample is " \
           "2000 claims drawn by hash sampling" in listed
    assert listed.count(" → ") == 5


def test_budget_tokenizers_are_named_with_the_sha256_of_their_tokenizer_json(tmp_path):
    """One ``budget_tokenizer`` row per model that bounded the budgets: where its tokenizer was
    read and the sha256 of its tokenizer.json, or that none could be read."""
    import hashlib

    local = tmp_path / "qwen3"
    local.mkdir()
    (local / "tokenizer.json").write_text('{"model": "a vocabulary"}')
    digest = hashlib.sha256(b'{"model": "a vocabulary"}').hexdigest()
    empty = tmp_path / "llama31"
    empty.mkdir()
    specs = {"qwen3": {"path": str(local), "revision": None}, "llama31": {"path": str(empty), "revision": None}}
    rows = [r for r in provenance_rows(_config(), REPO_ROOT, budget_tokenizers=specs) if r[0] == "budget_tokenizer"]
    assert rows == [("budget_tokenizer", "llama31", f"{empty} (no tokenizer.json readable here)"),
                    ("budget_tokenizer", "qwen3", f"{local} tokenizer.json sha256 {digest}")]
    assert not [r for r in provenance_rows(_config(), REPO_ROOT) if r[0] == "budget_tokenizer"]
