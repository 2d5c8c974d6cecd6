"""The verifier rule functions' own checks, before any model or table is loaded."""
import pytest

from support.defaults import DEFAULTS

from evidence_ledger.verifier import stage


def test_serialise_refuses_evidence_tables_that_do_not_match_the_sources(tmp_path):
    with pytest.raises(ValueError, match="2 sources but 1 evidence tables"):
        stage.serialise_verifier_inputs(
            claims=str(tmp_path / "claims.parquet"), units=str(tmp_path / "units.parquet"),
            evidence=[str(tmp_path / "provider_a.parquet")], verifier_inputs=str(tmp_path / "inputs.parquet"),
            split="dev", sources=["provider_a", "provider_b"],
            base={"hub_id": str(tmp_path / "base"), "revision": None, "allow_pickle_weights": False},
            **DEFAULTS["verifier"]["input"],
        )
    assert not (tmp_path / "inputs.parquet").exists()


def test_serialise_limits_are_checked_before_reading_inputs(tmp_path):
    with pytest.raises(ValueError, match="leaves no room for evidence"):
        stage.serialise_verifier_inputs(
            claims=str(tmp_path / "claims.parquet"), units=str(tmp_path / "units.parquet"), evidence=[],
            verifier_inputs=str(tmp_path / "inputs.parquet"), split="dev", sources=[],
            base={"hub_id": str(tmp_path / "base"), "revision": None, "allow_pickle_weights": False},
            **{**DEFAULTS["verifier"]["input"], "max_total_tokens": 10},
        )
