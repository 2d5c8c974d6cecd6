"""The embedded demo data (``resources/demo/``): invented worlds rendered in the official release formats.

Everything describes **Varenholm** (:mod:`.world`), an invented small country with three
provinces (Eastmarch, Lowfen, High Pell), six rivers that rise on three mountains, sixteen
towns on those rivers, twenty people (musicians, novelists, engineers, botanists,
politicians, painters), eight bands, ten companies (three of them record labels) and ten
native species. Every attribute of every entity is drawn once from a seeded RNG into one
in-memory world; the wiki pages and every claim are then *rendered from that same world*, so a
SUPPORTS claim is entailed by its gold lines, a REFUTES claim contradicts them (a changed
value, an entity swap, a negation of a true statement) and a NOT ENOUGH INFO claim asks about a
property the wiki never states (festivals, hobbies, tours, ...).

A second, biomedical world (invented compounds, genes and conditions) feeds the SciFact-style
corpus (:mod:`.scifact`); the knowledge-conflict sets (:mod:`.wikicontradict`,
:mod:`.conflict_qa`) ask questions about Varenholm and pair a passage with the world's answer
with one that states a conflicting value.

One module per benchmark, each with a ``write_<benchmark>(..., out)`` that writes its files
under ``out`` (see :func:`write_demo_data` for the order):

* ``fever/wiki-pages/wiki-001.jsonl``, ``fever/paper_dev.jsonl``, ``fever/train.jsonl``
* ``feverous/pages.jsonl`` (page JSON, one page a line), ``feverous/feverous_wikiv1.db``
  (SQLite ``wiki(id, data)`` built from pages.jsonl), ``feverous/dev.jsonl``,
  ``feverous/train.jsonl``, ``feverous/pool.jsonl``, ``feverous/reserved_ids.txt``
* ``scifact/corpus.jsonl``, ``scifact/claims_dev.jsonl``, ``scifact/claims_train.jsonl``
* ``wikicontradict/WikiContradict_dataset_v1_rag_qa.csv``, ``wikicontradict/human_judgements.jsonl``
* ``conflict_qa/nqcc.jsonl``, ``conflict_qa/tqacc.jsonl``,
  ``conflict_qa/reader_runs/{hybrid,generated_only,retrieved_only,closed_book}.jsonl``

Run ``python -m evidence_ledger.demo.data [--out DIR]`` (default: ``resources/demo/`` of this
checkout); two runs give byte-identical files. Standard library only.
"""
from __future__ import annotations

from pathlib import Path

from .conflict_qa import write_conflict_qa
from .fever import write_fever
from .feverous import write_feverous
from .scifact import write_scifact
from .wikicontradict import write_wikicontradict
from .world import build_world


def write_demo_data(out: str | Path) -> None:
    """Build the world once and write every benchmark's demo files under ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    w = build_world()
    write_fever(w, out)
    write_feverous(w, out)
    write_scifact(out)
    write_wikicontradict(w, out)
    write_conflict_qa(w, out)
