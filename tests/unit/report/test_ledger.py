"""ledger.json: every headline number of a run with its source table, line, rule and the sha256 of
the rule's inputs; validated against the repository's JSON Schema."""
from __future__ import annotations

import json

import jsonschema
import pytest

from evidence_ledger.report.ledger import LedgerSource, build_ledger, file_sha256, schema, validate_ledger, write_ledger
from evidence_ledger.report.sources import read_source_table
from evidence_ledger.report.stage import ledger as ledger_rule
from support.summary_tables import PATHS, write_summary_inputs

KINDS = {"study1_estimates": ("estimates", "study1", "study1_accounting"),
         "study1_intervals": ("intervals", "study1", "study1_bootstrap"),
         "study2_primary": ("intervals", "study2", "study2_bootstrap"),
         "decision_criteria": ("criteria", "study2", "decision_labels"),
         "decision_label": ("label", "study2", "decision_labels"),
         "wikicontradict_rates": ("wikicontradict_rates", "wikicontradict", "wikicontradict_metrics"),
         "wikicontradict_detection": ("wikicontradict_detection", "wikicontradict", "wikicontradict_metrics"),
         "diffgr": ("diffgr", "diffgr", "diffgr_score")}


@pytest.fixture()
def run_dir(tmp_path):
    write_summary_inputs(tmp_path)
    (tmp_path / "results/accounting/study1/counts.parquet").write_bytes(b"counts")
    return tmp_path


def sources():
    return {key: LedgerSource(PATHS[key], kind, study, rule,
                              ("results/accounting/study1/counts.parquet",) if rule == "study1_bootstrap" else ())
            for key, (kind, study, rule) in KINDS.items()}


def built(run_dir):
    return build_ledger(kind="pipeline", sources=sources(), base_dir=run_dir, settings={"studies": {"study1": True}},
                        provenance=[tuple(r.values()) for r in read_source_table(run_dir / PATHS["provenance"]).rows])


def test_the_ledger_follows_its_schema_and_every_number_is_its_source_cell(run_dir):
    ledger = built(run_dir)
    validate_ledger(ledger)
    assert {n["study"] for n in ledger["numbers"]} == {"study1", "study2", "wikicontradict", "diffgr"}
    for number in ledger["numbers"]:
        source = ledger["sources"][number["source"]["table"]]
        table = read_source_table(run_dir / source["table"])
        row = table.rows[table.lines.index(number["source"]["line"])]
        column = {"estimates": "value"}.get(KINDS[number["source"]["table"]][0], "estimate")
        text = row[column] if column in row else row[number["quantity"]]
        assert number["estimate"] == (None if text == "NaN" else float(text)), number


def test_intervals_carry_bounds_draw_settings_and_the_papers_values(run_dir):
    numbers = built(run_dir)["numbers"]
    gain = next(n for n in numbers if n["source"]["table"] == "study1_intervals" and n["quantity"] == "gain"
                and n["keys"]["population"] == "all")
    assert (gain["estimate"], gain["lower"], gain["upper"]) == (9.614, 8.7712, 10.4251)
    assert (gain["reference"], gain["reference_lower"], gain["reference_upper"]) == (9.61, 8.77, 10.43)
    assert gain["n_draws"] == 2000 and gain["family_size"] == 6 and gain["tail"] == pytest.approx(0.004166666667)
    e0 = next(n for n in numbers if n["source"]["table"] == "study1_estimates" and n["quantity"] == "E0")
    assert "lower" not in e0 and e0["keys"]["population"] == "all"
    per_checkpoint = [n for n in numbers if n["source"]["table"] == "study1_estimates" and n["quantity"] == "T00"]
    assert len(per_checkpoint) == 1  # the replicate-averaged row only


def test_decisions_flags_and_undefined_diffgr(run_dir):
    ledger = built(run_dir)
    assert ledger["labels"] == [{"study": "study2", "label": "restricted/mixed evidence",
                                 "reason": "no factor replicated across systems",
                                 "keys": {"factor": "", "direction": "0", "datasets": ""},
                                 "reference_label": "restricted/mixed evidence",
                                 "source": {"table": "decision_label", "line": 2}}]
    context = next(n for n in ledger["numbers"] if n["source"]["table"] == "decision_criteria"
                   and n["keys"]["factor"] == "context")
    assert context["flags"]["local_ok"] is True and context["counts"]["seeds_agreeing"] == 5
    air = next(n for n in ledger["numbers"] if n["quantity"] == "diffgr" and n["keys"]["subset"] == "AIR")
    assert air["flags"] == {"diffgr_defined": False} and air["lower"] is None and air["level"] == 0.95


def test_sources_record_table_and_input_hashes_and_the_run(run_dir):
    ledger = built(run_dir)
    intervals = ledger["sources"]["study1_intervals"]
    assert intervals["sha256"] == file_sha256(run_dir / PATHS["study1_intervals"])
    assert intervals["inputs"] == [{"path": "results/accounting/study1/counts.parquet",
                                    "sha256": file_sha256(run_dir / "results/accounting/study1/counts.parquet")}]
    assert ledger["run"]["kind"] == "demo" and ledger["packages"] == {"numpy": "2.3.5"}
    assert ledger["models"] == [{"slot": "models.qwen3", "ran": "local build results/models/qwen3",
                                 "hub_id": "Qwen/Qwen3-8B", "revision": "b968826d9c46dd6066d109eabc6255188de91218"}]


def test_the_rule_writes_the_same_bytes_twice(run_dir, monkeypatch):
    spec = {key: {"path": s.path, "kind": s.kind, "study": s.study, "rule": s.rule, "inputs": list(s.inputs)}
            for key, s in sources().items()}
    monkeypatch.chdir(run_dir)  # a rule's paths are relative to the work directory
    outs = []
    for name in ("a.json", "b.json"):
        ledger_rule(sources=spec, provenance=PATHS["provenance"], settings={"x": float("nan")}, ledger_out=name)
        outs.append((run_dir / name).read_bytes())
    assert outs[0] == outs[1]
    assert json.loads(outs[0])["settings"] == {"x": None}


def test_the_schema_refuses_a_number_without_its_source(run_dir):
    ledger = built(run_dir)
    del ledger["numbers"][0]["source"]
    with pytest.raises(jsonschema.ValidationError):
        validate_ledger(ledger)
    assert schema()["properties"]["ledger_version"] == {"const": 1}


def test_write_ledger_refuses_nan(tmp_path):
    with pytest.raises(ValueError):
        write_ledger({"x": float("nan")}, tmp_path / "l.json")


def test_every_number_reads_back_as_the_float_its_table_computed(tmp_path):
    """ledger.json holds the estimates at full precision: 17.336309523809522, not 17.33630952."""
    import pandas as pd

    from evidence_ledger.tables.report_tsv import write_report_tsv

    values = [17.336309523809522, 100 / 3, -2.0833333333333335, 1e-07, 44.0]
    frame = pd.DataFrame({"study": "study1", "population": "all", "dataset": "fever", "system": "s", "parser": "none",
                          "quantity": ["T00", "T01", "A0", "E0", "T11"], "format": "official", "budget": "full",
                          "factor": "", "part": "", "replicate": -1, "value": values})
    write_report_tsv(frame, tmp_path / "estimates.tsv")
    ledger = build_ledger(kind="account", base_dir=tmp_path, settings={}, provenance=[],
                          sources={"estimates": LedgerSource("estimates.tsv", "estimates", "study1", "account", ())})
    write_ledger(ledger, tmp_path / "ledger.json")
    numbers = json.loads((tmp_path / "ledger.json").read_text())["numbers"]
    assert [n["estimate"] for n in numbers] == values
