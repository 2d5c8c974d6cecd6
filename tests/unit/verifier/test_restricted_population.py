"""The restricted Study 1 population through the real path: provider files -> import ->
serialise -> study1_indicators -> study1_accounting. An unresolved id inside a source's verifier
input window (the first 30 submitted ids) takes the claim out; one after position 30 does not
(it still counts in the whole-list column, reported beside it)."""
import pandas as pd
import pytest

from evidence_ledger import tables
from evidence_ledger.accounting.stage import study1_accounting
from evidence_ledger.tables.accounting import COVERAGE
from evidence_ledger.tables.verifier import UNRESOLVED_FLAGS, VERIFIER_ANSWERS
from evidence_ledger.verifier.stage import study1_indicators
from support.provider_path import serialise_through_import

P = [f"P_sentence_{i}" for i in range(35)]
GONE = "Gone_sentence_0"


def provider_lists():
    """Source a: P_sentence_0..34 for every claim (claim 1 repeats P_sentence_0 at position 36).
    Source b: claim 1 as a; claim 2 with the unresolved id at position 31; claim 3 with it at
    position 3."""
    a = {"1": P + [P[0]], "2": P, "3": P}
    b = {"1": P, "2": P[:30] + [GONE] + P[30:], "3": P[:2] + [GONE] + P[2:]}
    return {"provider_a": a, "provider_b": b}


@pytest.fixture(scope="module")
def study1_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("restricted")
    claims = {"1": ("SUPPORTS", [[P[0]]]), "2": ("REFUTES", [[P[1]]]), "3": ("SUPPORTS", [[P[2]]])}
    run = serialise_through_import(root, provider_lists(), claims, {u: f"text of {u}" for u in P})
    answers = [{"dataset": "feverous", "system": "verifier", "checkpoint": k, "source": s, "claim_id": c,
                "predicted_label": "SUPPORTS", "p_supports": 1.0, "p_refutes": 0.0, "p_nei": 0.0}
               for k in (1, 2) for s in ("provider_a", "provider_b") for c in claims]
    tables.write_table(VERIFIER_ANSWERS.from_rows(answers), root / "answers.parquet", VERIFIER_ANSWERS)
    out = {k: str(root / f"{k}.parquet") for k in ("answer_ind", "evidence_ind", "relevant", "unresolved")}
    out["unresolved_tsv"] = str(root / "unresolved.tsv")
    study1_indicators(answers=str(root / "answers.parquet"), claims=str(run["paths"]["claims"]),
                      evidence=[str(p) for p in run["paths"]["evidence"].values()], inputs=str(run["paths"]["inputs"]),
                      answer_indicators=out["answer_ind"], evidence_indicators=out["evidence_ind"],
                      relevant=out["relevant"], unresolved=out["unresolved"], unresolved_tsv=out["unresolved_tsv"],
                      sources=["provider_a", "provider_b"], max_evidence=5, max_evidence_cell=25)
    return root, run, out


def accounting_coverage(root, out, scope):
    paths = {k: str(root / f"{scope}_{k}.parquet") for k in ("estimates", "counts", "coverage")}
    study1_accounting(answers=out["answer_ind"], evidence=out["evidence_ind"], relevant=out["relevant"],
                      unresolved=out["unresolved"], dataset="feverous", system="verifier", parser="none",
                      sources=["provider_a", "provider_b"], budget="full", checkpoints=[1, 2],
                      answer_format="verifier", estimates_out=paths["estimates"],
                      summary_out=str(root / f"{scope}_estimates.tsv"), counts_out=paths["counts"],
                      coverage_out=paths["coverage"], unresolved_scope=scope)
    cov = tables.read_frame(paths["coverage"], COVERAGE)
    return dict(zip(cov[cov.population == "resolved"].item, cov[cov.population == "resolved"]["count"]))


def test_unresolved_id_at_position_31_keeps_the_claim_and_at_position_3_removes_it(study1_run):
    """Claim 2: source b's unresolved id is 31st, outside the 30-id window -> window count 0,
    whole-list count 1, the claim stays. Claim 3: it is 3rd -> window count 1, the claim leaves.
    Restricted population (window): claims 1 and 2 = 2 of 3; whole-list definition: claim 1 = 1."""
    _, _, out = study1_run
    flags = tables.read_frame(out["unresolved"], UNRESOLVED_FLAGS).set_index("claim_id")
    assert dict(flags.loc["2", "unresolved_by_source"]) == {"provider_a": 0, "provider_b": 0}
    assert dict(flags.loc["2", "list_unresolved_by_source"]) == {"provider_a": 0, "provider_b": 1}
    assert dict(flags.loc["3", "unresolved_by_source"]) == {"provider_a": 0, "provider_b": 1}
    assert flags.both_resolved.to_dict() == {"1": True, "2": True, "3": False}
    assert flags.both_resolved_in_list.to_dict() == {"1": True, "2": False, "3": False}


def test_unresolved_id_at_position_3_shifts_the_window(study1_run):
    """Claim 3, source b: the window is the first 30 submitted ids, P0, P1, Gone, P2..P28, so it
    ends at P_sentence_28 (29 resolved ids) where claim 2's ends at P_sentence_29; the 8 units
    used skip the unresolved id: P0, P1, P2..P7."""
    _, run, _ = study1_run
    row3, row2 = run["inputs"][("provider_b", "3")], run["inputs"][("provider_b", "2")]
    assert len(row3["candidate_ids"]) == 30 and row3["candidate_ids"][2] == GONE
    assert row3["candidate_ids"][-1] == "P_sentence_28" and row2["candidate_ids"][-1] == "P_sentence_29"
    assert row3["used_unit_ids"] == P[:8] and row3["unresolved_ids"] == [GONE]


def test_accounting_resolved_population_follows_the_configured_scope(study1_run):
    """Window scope: resolved population 2 claims (1 with an unresolved id in a window); list
    scope: 1 claim (2 with one in a list). Both counts are in the coverage either way."""
    root, _, out = study1_run
    window = accounting_coverage(root, out, "window")
    assert window["population_claims"] == 2 and window["claims_with_unresolved"] == 1
    assert window["claims_with_unresolved_in_window"] == 1 and window["claims_with_unresolved_in_list"] == 2
    listed = accounting_coverage(root, out, "list")
    assert listed["population_claims"] == 1 and listed["claims_with_unresolved"] == 2


def test_report_tsv_gives_both_population_sizes_and_repeats_per_source(study1_run):
    """Per source over 3 claims: a has no unresolved id and one repeat (claim 1, P_sentence_0
    again at position 36); b has 1 unresolved id in a window (claim 3) and 2 in its lists
    (claims 2, 3). All sources: 2 claims window-resolved, 1 list-resolved."""
    _, _, out = study1_run
    tsv = pd.read_csv(out["unresolved_tsv"], sep="\t", dtype={"count": int})
    got = {(r.source, r.item): r.count for r in tsv.itertuples()}
    assert got[("provider_a", "duplicate_ids")] == 1 and got[("provider_a", "claims_with_duplicates")] == 1
    assert got[("provider_b", "duplicate_ids")] == 0
    assert got[("provider_a", "unresolved_ids_in_list")] == 0
    assert got[("provider_b", "unresolved_ids_in_window")] == 1 and got[("provider_b", "unresolved_ids_in_list")] == 2
    assert got[("all", "claims")] == 3
    assert got[("all", "claims_both_resolved_in_window")] == 2 and got[("all", "claims_both_resolved_in_list")] == 1
