"""The paper's input list: every file config/paper.yaml reads is listed, public or author-held,
the same way as in config/README.md's "Paper data layout" table; the rehearsal tree writes each;
config/public.yaml switches off exactly the author-held ones."""
import re

import pytest

from evidence_ledger.config.layers import layered_config
from evidence_ledger.config.paper_inputs import (AUTHOR_HELD, PAPER_INPUTS, PUBLIC, author_held_inputs, config_value,
                                          substitutes)
from support.paths import REPO_ROOT

from unit.datasets.test_rehearsal_data import config_data_paths, layout_paths

PAPER, PUBLIC_LAYER = REPO_ROOT / "config" / "paper.yaml", REPO_ROOT / "config" / "public.yaml"


def layout_table() -> dict[str, str]:
    """path -> holder of each row of config/README.md's "Paper data layout" table."""
    text = (REPO_ROOT / "config" / "README.md").read_text()
    table = text[text.index("| path (in `data_root`) | holder |"):]
    rows = {}
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        for path in re.findall(r"`([^`]+)`", cells[0]):
            rows[path.rstrip("/")] = cells[1]
    return rows


def test_every_file_the_paper_config_reads_is_listed_with_its_key():
    paper = layered_config(REPO_ROOT, [PAPER])
    for item in PAPER_INPUTS:
        assert item.holder in (PUBLIC, AUTHOR_HELD)
        named = config_value(paper, item.key)
        named = named[0] if isinstance(named, list) and len(named) == 1 else named  # one run file per source
        assert named == item.path, f"{item.key}: paper.yaml names {named!r}, the list {item.path!r}"
    listed = {i.path for i in PAPER_INPUTS}
    read = set(config_data_paths(paper)) | {paper["verifier"]["base_model"]["local_dir"]}
    assert read == listed, read ^ listed


def test_the_config_readme_table_marks_the_same_files_author_held():
    table = layout_table()
    for item in PAPER_INPUTS:
        assert table.get(item.path) == item.holder, f"{item.path}: config/README.md says {table.get(item.path)!r}"
    assert {p for p, h in table.items() if h == AUTHOR_HELD} == {i.path for i in author_held_inputs()}


def test_the_rehearsal_tree_holds_every_listed_data_file():
    paths = layout_paths(95)
    assert [i.path for i in PAPER_INPUTS if i.key != "verifier.base_model.local_dir" and i.path not in paths] == []


@pytest.mark.parametrize("layers", [[PAPER, PUBLIC_LAYER], [PAPER, REPO_ROOT / "config" / "rehearsal.yaml",
                                                            PUBLIC_LAYER]])
def test_the_public_layer_reads_only_public_files_and_names_a_substitute_for_each(layers):
    config = layered_config(REPO_ROOT, layers)
    assert [i.key for i in author_held_inputs() if config_value(config, i.key)] == []
    assert [held for held, _ in substitutes(config)] == [f"{i.what} ({i.key})" for i in author_held_inputs()]
    assert substitutes(layered_config(REPO_ROOT, [PAPER])) == []
