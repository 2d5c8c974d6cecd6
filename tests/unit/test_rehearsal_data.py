"""``rehearsal-data``: the tree in the paper's file layout, written from the demo data.

The tree holds exactly the layout's files, two runs are byte-identical, every path
``config/paper.yaml`` names under ``data_root`` is in the layout and written, every file passes
the project's own readers, and the two provider submissions parse, cover the FEVEROUS train and
dev claims and differ as documented in ``evidence_ledger.rehearsal_data``.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from evidence_ledger.__main__ import main
from evidence_ledger.rehearsal_data import (
    CELL_LIKE_KINDS, FEVER_WIKI_DIR, PROVIDER_KINDS, PROVIDERS, dcuf_prediction, feverous_claims, layout_files,
    layout_paths, split_wiki, unresolved_id, within_caps, write_rehearsal_data)
from evidence_ledger.scoring.feverous import split_element_id
from support.paths import REPO_ROOT

DEMO_WIKI_PAGES = 95


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("rehearsal") / "data"
    write_rehearsal_data(out)
    return out


def files_under(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def config_data_paths(cfg: dict) -> list[str]:
    """Every path ``cfg`` reads below ``data_root``: strings holding a ``/`` anywhere in its
    ``data`` section (whatever the nesting), and each provider's ``file``."""
    def strings(node):
        if isinstance(node, dict):
            for value in node.values():
                yield from strings(value)
        elif isinstance(node, str) and "/" in node:
            yield node

    paths = list(strings(cfg["data"]))
    for systems in (cfg.get("external") or {}).values():
        paths += [f for spec in systems.values() if spec for files in spec["sources"].values() if isinstance(files, list)
                  for f in files]
    return paths


# --- pure functions -------------------------------------------------------------------------


def test_split_wiki_keeps_every_page_in_order_over_at_least_two_files():
    lines = [(f"P{k:02d}", f'{{"id": "P{k:02d}"}}') for k in range(7)]
    files = split_wiki(lines, per_file=3)
    assert list(files) == ["wiki-001.jsonl", "wiki-002.jsonl", "wiki-003.jsonl"]
    assert "".join(files.values()).splitlines() == [raw for _, raw in lines]
    few = split_wiki(lines[:3], per_file=40)
    assert [len(t.splitlines()) for t in few.values()] == [2, 1]


def test_within_caps_counts_sentences_and_cell_like_apart_and_keeps_forced_ids():
    ranked = [("s1", "sentence"), ("c1", "cell"), ("s2", "sentence"), ("i1", "item"), ("s3", "sentence")]
    assert within_caps(ranked, (1, 1)) == ["s1", "c1"]
    assert within_caps(ranked, (1, 1), keep={"s3"}) == ["c1", "s3"]
    assert within_caps(ranked, (2, 5)) == ["s1", "c1", "s2", "i1"]


def test_unresolved_id_is_well_formed_and_names_no_element():
    elements = {"Page A": [("Page A_sentence_0", "sentence", ""), ("Page A_sentence_1", "sentence", ""),
                           ("Page A_cell_0_0_1", "cell", ""), ("Page A_header_cell_1_0_0", "header_cell", "")]}
    ids = {unresolved_id({"id": k, "evidence": [{"content": ["Page A_sentence_0"]}]}, elements) for k in range(20)}
    assert ids == {"Page A_sentence_2", "Page A_cell_2_0_0"}
    assert all(split_element_id(i)[0] == "Page A" for i in ids)


# --- the written tree -------------------------------------------------------------------------


def test_the_tree_holds_exactly_the_layout(tree):
    assert files_under(tree) == layout_files(DEMO_WIKI_PAGES)
    wiki = sorted((tree / FEVER_WIKI_DIR).glob("wiki-*.jsonl"))
    assert len(wiki) >= 2
    assert "not the benchmarks" in (tree / "README.md").read_text()


def test_two_runs_are_byte_identical(tree, tmp_path):
    again = tmp_path / "again"
    write_rehearsal_data(again)
    assert files_under(again) == files_under(tree)
    for rel in files_under(tree):
        assert (again / rel).read_bytes() == (tree / rel).read_bytes(), rel


def test_every_path_of_the_paper_config_is_in_the_layout_and_written(tree):
    cfg = yaml.safe_load((REPO_ROOT / "config" / "paper.yaml").read_text())
    paths = config_data_paths(cfg)
    assert len(paths) >= 12
    missing = [p for p in paths if p not in layout_paths(DEMO_WIKI_PAGES)]
    assert not missing, f"config/paper.yaml names paths outside the rehearsal layout: {missing}"
    assert all((tree / p).exists() for p in paths)


def test_every_file_passes_the_project_readers(tree):
    from evidence_ledger.wikicontradict.metrics import load_human_labels
    from evidence_ledger.datasets.conflict_qa import read_conflict_qa
    from evidence_ledger.datasets.fever import ingest_fever
    from evidence_ledger.datasets.feverous import ingest_feverous, read_id_list
    from evidence_ledger.datasets.scifact import ingest_scifact
    from evidence_ledger.datasets.wikicontradict import read_wikicontradict

    claims, units, docs = ingest_fever({"dev": tree / "fever/shared_task_dev.jsonl", "train": tree / "fever/train.jsonl"},
                                       tree / FEVER_WIKI_DIR, "error")
    assert (claims["dev"].num_rows, claims["train"].num_rows, docs.num_rows) == (100, 150, DEMO_WIKI_PAGES)
    claims, units, docs = ingest_feverous({"dev": tree / "feverous/feverous_dev_challenges.jsonl",
                                           "train": tree / "feverous/feverous_train_challenges.jsonl",
                                           "pool": tree / "feverous/pool.jsonl"},
                                          tree / "feverous/feverous_wikiv1.db", "error")
    assert {s: t.num_rows for s, t in claims.items()} == {"dev": 100, "train": 764, "pool": 80}
    assert docs.num_rows == 40 and units.num_rows > 0
    reserved = read_id_list(tree / "feverous/reserved_ids.txt")
    assert len(reserved) == 4 and set(reserved) <= set(claims["pool"].column("claim_id").to_pylist())
    claims, units, docs = ingest_scifact({"dev": tree / "scifact/claims_dev.jsonl", "train": tree / "scifact/claims_train.jsonl"},
                                         tree / "scifact/corpus.jsonl", "error")
    assert (claims["dev"].num_rows, claims["train"].num_rows, docs.num_rows) == (40, 60, 150)
    assert read_wikicontradict(tree / "wikicontradict/WikiContradict_dataset_v1_rag_qa.csv").num_rows == 20
    assert len(load_human_labels(tree / "wikicontradict/human_judgements.jsonl")) == 30
    assert read_conflict_qa(tree / "conflict_qa/nqcc.jsonl", "nqcc").num_rows == 40
    assert read_conflict_qa(tree / "conflict_qa/tqacc.jsonl", "tqacc").num_rows == 25


# --- provider submissions ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def providers(tree):
    """(claims by id, unit ids of the wiki, provider name -> claim id -> submitted unit ids)."""
    from evidence_ledger.datasets.feverous import read_feverous_wiki
    from evidence_ledger.evidence.providers import read_submission

    claims = {str(c["id"]): c for rel in ("feverous/feverous_train_challenges.jsonl",
                                          "feverous/feverous_dev_challenges.jsonl")
              for c in feverous_claims(tree / rel)}
    units, _ = read_feverous_wiki(tree / "feverous/feverous_wikiv1.db")
    known = set(units.column("unit_id").to_pylist())
    subs = {name: read_submission(tree / rel, set(claims)) for name, rel in PROVIDERS.items()}
    return claims, known, subs


def test_provider_submissions_cover_the_train_and_dev_claims(providers):
    claims, _, subs = providers
    assert len(claims) == 864
    for name, sub in subs.items():
        assert set(sub) == set(claims) and all(sub.values()), name


def test_provider_ids_are_feverous_element_ids_of_the_gold_pages(providers):
    claims, _, subs = providers
    for name, sub in subs.items():
        for cid, ids in sub.items():
            pages = {split_element_id(g)[0] for ev in claims[cid]["evidence"] for g in ev["content"]}
            for unit_id in ids:
                page, kind, position = split_element_id(unit_id)
                assert page in pages and kind in PROVIDER_KINDS and position, (name, cid, unit_id)


def test_dcuf_keeps_every_gold_element_and_resolves(providers):
    from evidence_ledger.evidence.providers import resolve_ids

    claims, known, subs = providers
    for cid, ids in subs["dcuf"].items():
        gold = {g for ev in claims[cid]["evidence"] for g in ev["content"]}
        assert gold <= set(ids), cid
        assert resolve_ids(ids, known)[1] == 0
        extra = [u for u in ids if u not in gold]
        assert sum(split_element_id(u)[1] not in CELL_LIKE_KINDS for u in extra) <= 5
        assert sum(split_element_id(u)[1] in CELL_LIKE_KINDS for u in extra) <= 25


def test_unifee_misses_some_gold_and_has_unresolved_ids(providers):
    from evidence_ledger.evidence.providers import resolve_ids

    claims, known, subs = providers
    unresolved = {cid: resolve_ids(ids, known)[1] for cid, ids in subs["unifee"].items()}
    assert set(unresolved.values()) == {0, 1}
    assert 0.15 < sum(unresolved.values()) / len(unresolved) < 0.35
    missing_gold = [cid for cid, ids in subs["unifee"].items()
                    if not {g for ev in claims[cid]["evidence"] for g in ev["content"]} <= set(ids)]
    assert 0 < len(missing_gold) < len(claims)
    assert subs["unifee"] != subs["dcuf"]


def test_dcuf_ranks_by_overlap_with_the_claim():
    elements = {"P": [("P_sentence_0", "sentence", "Rivers and hills."),
                      ("P_sentence_1", "sentence", "The Tarrow band was founded in 1999."),
                      ("P_cell_0_0_1", "cell", "1999")]}
    claim = {"id": 1, "claim": "The Tarrow band was founded in 1999.", "evidence": [{"content": ["P_cell_0_0_1"]}]}
    assert dcuf_prediction(claim, elements) == ["P_sentence_1", "P_cell_0_0_1", "P_sentence_0"]


# --- command line -----------------------------------------------------------------------------


def test_refuses_a_non_empty_directory_unless_forced(tmp_path, capsys):
    out = tmp_path / "data"
    out.mkdir()
    (out / "mine.txt").write_text("keep me\n")
    assert main(["rehearsal-data", "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"error: {out} is not empty; pass --force to overwrite the rehearsal files in it\n"
    assert files_under(out) == ["mine.txt"]
    assert main(["rehearsal-data", "--out", str(out), "--force"]) == 0
    assert (out / "mine.txt").read_text() == "keep me\n"
    assert files_under(out) == sorted(layout_files(DEMO_WIKI_PAGES) + ["mine.txt"])
    assert "feverous/providers/dcuf.jsonl" in capsys.readouterr().out


def test_force_never_writes_through_a_link_leading_out_of_the_directory(tmp_path, capsys):
    out = tmp_path / "data"
    write_rehearsal_data(out)
    before = {rel: (out / rel).read_bytes() for rel in files_under(out)}
    precious = tmp_path / "precious.jsonl"
    precious.write_text("a file outside --out\n")
    (out / "fever" / "train.jsonl").unlink()
    (out / "fever" / "train.jsonl").symlink_to(precious)
    assert main(["rehearsal-data", "--out", str(out), "--force"]) == 2
    assert capsys.readouterr().err == (f"error: {out}/fever/train.jsonl is a link to {precious}, outside the --out "
                                       f"directory {out}; nothing is written through it: remove the link or choose "
                                       f"another directory\n")
    assert precious.read_text() == "a file outside --out\n"
    assert {rel: (out / rel).read_bytes() for rel in files_under(out) if rel != "fever/train.jsonl"} == {
        rel: data for rel, data in before.items() if rel != "fever/train.jsonl"}  # nothing written at all


def test_force_refuses_a_linked_directory_leading_out_and_replaces_a_link_that_stays_inside(tmp_path, capsys):
    out = tmp_path / "data"
    write_rehearsal_data(out)
    elsewhere = tmp_path / "elsewhere"
    (out / "feverous" / "providers").rename(elsewhere)
    (out / "feverous" / "providers").symlink_to(elsewhere)
    assert main(["rehearsal-data", "--out", str(out), "--force"]) == 2
    assert f"{out}/feverous/providers is a link to {elsewhere}, outside" in capsys.readouterr().err
    (out / "feverous" / "providers").unlink()
    (out / "mine.txt").write_text("keep me\n")
    (out / "feverous" / "reserved_ids.txt").unlink()
    (out / "feverous" / "reserved_ids.txt").symlink_to("../mine.txt")
    assert main(["rehearsal-data", "--out", str(out), "--force"]) == 0
    assert (out / "mine.txt").read_text() == "keep me\n"
    assert not (out / "feverous" / "reserved_ids.txt").is_symlink()
    assert files_under(out) == sorted(layout_files(DEMO_WIKI_PAGES) + ["mine.txt"])


def test_a_failed_run_leaves_no_tree_behind(tmp_path, capsys):
    out = tmp_path / "new" / "data"
    assert main(["rehearsal-data", "--out", str(out), "--demo", str(tmp_path / "no-demo-here")]) == 2
    assert "no-demo-here" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_an_out_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "data").write_text("a file\n")
    assert main(["rehearsal-data", "--out", str(tmp_path / "data"), "--force"]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 'data'} exists and is not a directory; choose a new directory\n"
