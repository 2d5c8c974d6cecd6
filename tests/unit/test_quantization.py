"""``models.<name>.quantization``: in the model spec and its identity (cache key) only when set,
refused by the transformers backend, recorded in provenance and shown as a departure."""
import copy
from pathlib import Path

import pytest
import yaml

from support.defaults import DEFAULTS
from support.paths import REPO_ROOT
from support.summary_page import PageParser

from evidence_ledger.config.layers import layered_config
from evidence_ledger.generation.backends.base import model_spec_from_config
from evidence_ledger.generation.backends.transformers_backend import TransformersBackend
from evidence_ledger.report.provenance import model_rows, quantization_departures, write_provenance_tsv
from evidence_ledger.report.sources import read_source_table
from evidence_ledger.report.run_sections import provenance_section
from evidence_ledger.report.summary import Paragraph, render_page

PAPER = layered_config(REPO_ROOT, [REPO_ROOT / "config" / "paper.yaml"])


def test_identity_has_quantization_only_when_set():
    cfg = dict(PAPER["models"]["llama3_70b"])
    plain = model_spec_from_config("llama3_70b", {**cfg, "quantization": None})
    assert plain.quantization is None and "quantization" not in plain.identity()
    unset = {k: v for k, v in cfg.items() if k != "quantization"}
    assert model_spec_from_config("llama3_70b", unset).identity() == plain.identity()
    fp8 = model_spec_from_config("llama3_70b", cfg)
    assert fp8.quantization == "fp8" and fp8.identity() == {**plain.identity(), "quantization": "fp8"}


def test_transformers_backend_refuses_a_quantized_model():
    spec = model_spec_from_config("llama3_70b", PAPER["models"]["llama3_70b"])
    with pytest.raises(ValueError, match="models.llama3_70b.quantization: null"):
        TransformersBackend(spec, batch_size=DEFAULTS["generation"]["batch_size"])


def test_provenance_records_quantization_and_the_departure(tmp_path: Path):
    assert ("model", "models.llama3_70b.quantization", "fp8") in model_rows(PAPER)
    departures = quantization_departures(PAPER)
    assert departures == [("departure", "models.llama3_70b.quantization",
                           "quantization fp8 on models.llama3_70b: the paper ran bfloat16")]
    unused = copy.deepcopy(PAPER)
    unused["studies"]["wikicontradict"] = False  # the judge does not run: nothing departs
    assert quantization_departures(unused) == []
    path = tmp_path / "provenance.tsv"
    write_provenance_tsv([("run", "git_commit", "abc")] + departures, path)
    section = provenance_section(read_source_table(path))
    assert isinstance(section.blocks[0], Paragraph)
    page = PageParser()
    page.feed(render_page([section]))
    assert page.paragraphs[1] == ("Departure from the paper: quantization fp8 on models.llama3_70b: the paper ran "
                                  "bfloat16.")  # [0] is the page's lede
