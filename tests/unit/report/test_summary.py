"""The summary page: every number on it is one cell of a report TSV (checked by parsing the
HTML and reading the cited cell back), the paper's values sit beside the run's, sections
of studies that did not run say so, and reruns give the same bytes."""
import pytest

from support.summary_page import PageParser, check_values_against_sources, parse
from support.summary_tables import write_summary_inputs

from support.defaults import summary_settings

from evidence_ledger.report.stage import summary_page


def row_texts(page: PageParser, first_cell: str) -> list[str]:
    """Cell texts of the one table row whose first cell reads ``first_cell``."""
    hits = [[c["text"] for c in row] for table in page.tables for row in table if row[0]["text"] == first_cell]
    assert len(hits) == 1, (first_cell, hits)
    return hits[0]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    root = tmp_path_factory.mktemp("summary")
    paths = write_summary_inputs(root)
    out = root / "results/report"
    summary_page(**paths, **summary_settings(), html_out=out / "summary.html",
                 decomposition_out=out / "study1_decomposition.png")
    return out / "summary.html"


def test_every_number_on_the_page_equals_its_source_row(page):
    """Each tagged value names a file, line and column; reading that cell back gives exactly
    the value's text, and the shown text is that cell rounded for reading. Number cells hold
    nothing else with a digit in it (no number on the page comes from anywhere else)."""
    parsed = parse(page)
    numeric, sources = check_values_against_sources(parsed)
    assert numeric > 150
    assert len(sources) == 19  # every TSV input


def test_study1_components_with_intervals_beside_the_paper(page):
    """gain: estimate 9.614 [8.7712, 10.4251] -> '9.61 [8.77, 10.43]'; the paper's 9.61
    [8.77, 10.43] (reference columns of the same intervals row). E0 = -0.004 -> '0.00'.
    T01 has no paper value ('–'). The resolved population's gain 9.4 [8.5, 10.3] beside the
    paper's 9.42 [8.62, 10.25]. A rate with an intervals row (accuracy_diff 2.0 [0.5, 3.5])
    is shown from it; one without (macro_f1_diff 1.42830157 -> '1.43') from the estimates."""
    parsed = parse(page)
    assert row_texts(parsed, "gain")[2:] == ["9.61 [8.77, 10.43]", "9.61 [8.77, 10.43]"]
    assert row_texts(parsed, "E0")[2:] == ["0.00 [-1.25, 1.50]", "7.92"]
    assert row_texts(parsed, "T01")[2:] == ["40.00", "–"]
    assert row_texts(parsed, "T11")[2:] == ["42.11", "42.02"]
    assert row_texts(parsed, "gain (both-source-resolved claims)")[2:] == ["9.40 [8.50, 10.30]",
                                                                          "9.42 [8.62, 10.25]"]
    assert row_texts(parsed, "macro_f1_diff")[2:] == ["1.43", "1.44"]  # estimates row: no interval
    assert row_texts(parsed, "accuracy_diff")[2:] == ["2.00 [0.50, 3.50]", "1.96"]  # the intervals row


def test_eq4_terms_for_both_answer_sources(page):
    """Source 0: product 8.16 (paper 8.07) + covariance -0.164 (paper -0.14) = sum 7.996 ->
    '8.00'; source 1: 8.4 + 0.714 = 9.114 -> '9.11'."""
    parsed = parse(page)
    assert row_texts(parsed, "product")[2:] == ["8.16", "8.07", "8.40", "8.30"]
    assert row_texts(parsed, "covariance")[2:] == ["-0.16", "-0.14", "0.71", "0.78"]
    assert row_texts(parsed, "sum")[2:] == ["8.00", "–", "9.11", "–"]


def test_decision_label_criteria_and_figure_1(page):
    """The label beside the paper's; a criteria row with its interval, the primary interval
    table's paper value 3.84 [1.83, 5.91] and '5 of 5' seeds; Figure 1 and the decomposition
    figure embedded as PNG data."""
    parsed = parse(page)
    assert ("Recorded label: restricted/mixed evidence. The paper recorded: restricted/mixed evidence."
            in parsed.paragraphs)
    criteria = [t for t in parsed.tables if t[0][0]["text"] == "Dataset" and t[0][3]["text"].startswith("Effect")]
    (table,) = criteria
    assert [c["text"] for c in table[1]] == ["feverous", "qwen3", "context", "3.90 [1.90, 5.95]",
                                             "3.84 [1.83, 5.91]", "1", "yes", "yes", "5 of 5", "yes", "no"]
    assert [c["text"] for c in table[2]][3:5] == ["0.25 [-0.75, 1.25]", "–"]
    alts = [img["alt"] for img in parsed.images]
    assert alts == ["Study 1 decomposition: gain, E0 + A1, A0 + E1", "Figure 1: forest plot of the primary contrasts"]
    assert all(img["src"].startswith("data:image/png;base64,iVBORw0KGgo") for img in parsed.images)


def test_crossed_components_wikicontradict_diffgr_and_provenance(page):
    """Crossed: qwen3 input_first.scoring 2.9 [1.9, 3.9] with the paper's 2.91 below it.
    WikiContradict 'all' row of template 5.1: 7 responses, 3/7 = 0.429 correct, 1/7 = 0.143,
    2/7 = 0.286, 1/7 = 0.143. DiffGR AIG: 4/7 = 0.571, 1/7 = 0.143, 2/7 = 0.286, DiffGR 0.600
    [-0.200, 1.000]; the empty AIR subset shows '–' shares. Provenance: hash, commit, revision."""
    parsed = parse(page)
    crossed = [t for t in parsed.tables if t[0][0]["text"] == "Component"]
    assert [[c["text"] for c in row] for row in crossed[0]][1:] == [
        ["input_first.scoring", "2.90 [1.90, 3.90]paper 2.91", "2.50 [1.50, 3.50]paper 2.56"],
        ["interaction", "1.80 [0.80, 2.80]", "2.20 [1.20, 3.20]"]]
    assert [c["text"] for c in crossed[0][0]] == ["Component", "feverous / qwen3", "feverous / llama31"]
    wc = [[c["text"] for c in row] for table in parsed.tables for row in table
          if len(row) > 1 and row[1]["text"] == "5.1"]
    assert wc == [["qwen3", "5.1", "7", "0.429", "0.143", "0.286", "0.143"]]
    dg = [[c["text"] for c in row] for table in parsed.tables for row in table
          if len(row) > 3 and row[3]["text"] in ("AIG", "AIR")]
    assert dg == 2 * [["qwen3", "nqcc", "gen_first", "AIG", "7", "0.571", "0.143", "0.286", "0.600 [-0.200, 1.000]"],
                      ["qwen3", "nqcc", "gen_first", "AIR", "0", "–", "–", "–",
                       "undefined: empty subset (diffgr_defined False)"]]  # run, reader files
    assert row_texts(parsed, "config_sha256") == [
        "config_sha256", "9484b010b0bde7b41ad1e9d51ddda6f558ef6fc6846964b1e512936a1c2f4c51"]
    assert row_texts(parsed, "models.qwen3.revision")[1] == "b968826d9c46dd6066d109eabc6255188de91218"
    assert "numpy" not in [row[0]["text"] for table in parsed.tables for row in table]  # packages: in the TSV only


def table_rows(page: PageParser, *header: str) -> list[list[str]]:
    """Cell texts of the one table whose header cells start with ``header``."""
    hits = [t for t in page.tables if [c["text"] for c in t[0][:len(header)]] == list(header)]
    assert len(hits) == 1, (header, len(hits))
    return [[c["text"] for c in row] for row in hits[0]]


def test_the_papers_invalid_rate_sits_beside_the_strict_row_only(page):
    """Both rows carry reference 13.97 in the TSV (the join has no parser key); the page shows
    it beside the strict row and '–' beside the lenient one."""
    assert table_rows(parse(page), "Dataset", "System", "Parser")[1:] == [["feverous", "llama31", "strict", "codes", "1000", "140", "14.00", "13.97"],
                       ["feverous", "llama31", "lenient", "codes", "1000", "90", "9.00", "–"]]


def test_study1_intervals_are_called_what_the_family_size_makes_them(tmp_path, page):
    """family_size 1: pointwise 95% (the paper's Study 1); 6: Bonferroni-adjusted, each at
    99.1667%."""
    captions = page.read_text(encoding="utf-8")
    assert "intervals: pointwise 95% intervals (paired claim bootstrap; no multiplicity adjustment" in captions
    assert "Bonferroni-adjusted over the Study 1" not in captions
    paths = write_summary_inputs(tmp_path)
    out = tmp_path / "s.html"
    summary_page(study1_estimates=paths["study1_estimates"], study1_intervals=paths["study1_intervals"],
                 **{**summary_settings(), "study1_family_size": 6}, html_out=out, decomposition_out=tmp_path / "d.png")
    assert "95% intervals Bonferroni-adjusted over a family of 6 (each at 99.1667%" in out.read_text()


def test_study1_restricted_population_and_unresolved_counts(page):
    parsed = parse(page)
    rows = table_rows(parsed, "Dataset", "Count")
    assert rows[0] == ["Dataset", "Count", "provider_bm25", "provider_bge", "all"]
    assert ["feverous", "claims_with_unresolved_in_window", "239", "12", "–"] in rows
    assert ["feverous", "claims_both_resolved_in_window", "–", "–", "7651"] in rows
    assert table_rows(parsed, "Population", "Claims resampled")[1:] == [
        ["all", "100", "9.61 [8.77, 10.43]", "9.61 [8.77, 10.43]"],
        ["resolved", "100", "9.40 [8.50, 10.30]", "9.42 [8.62, 10.25]"]]


def test_tables_6_and_7_beside_the_paper(page):
    """Table 6: budgets as columns. Table 7: E0 context's paper value from the primary
    intervals table, E1's from the exploratory one."""
    parsed = parse(page)
    t6 = [t for t in parsed.tables if [c["text"] for c in t[0]] == ["Dataset", "System", "Quantity", "long", "short"]]
    assert [[c["text"] for c in r] for r in t6[0][1:]] == [["feverous", "qwen3", "E0", "12.35", "8.50"],
                                                          ["feverous", "qwen3", "S11", "13.70", "13.10"]]
    t7 = [t for t in parsed.tables if len(t[0]) > 4 and t[0][4]["text"] == "Family"]
    assert [[c["text"] for c in r] for r in t7[0][1:]] == [
        ["feverous", "qwen3", "E0", "context", "primary", "3.90 [1.90, 5.95]", "3.84 [1.83, 5.91]"],
        ["feverous", "qwen3", "E1", "context", "exploratory", "2.10 [1.10, 3.10]", "2.04"]]


def test_controls_answer_accuracy_and_partition_of_the_primary_parser(page):
    """Only strict rows (the lenient control / accuracy rows hold 77 / 99, never shown);
    seed averages (replicate -1), not the greedy replicate 0."""
    parsed = parse(page)
    controls = table_rows(parsed, "Dataset", "System", "Format", "Control")[1:]
    assert controls == [["feverous", "qwen3", "codes", "gold", "short", "45 of 50", "90.00", "4.00 [3.00, 5.00]",
                         "1.50 [0.50, 2.50]", "-2.50 [-3.50, -1.50]", "91.25 [90.25, 92.25]"]]
    generations = table_rows(parsed, "System", "Dataset", "Condition", "Rows", "Generations")[1:]
    assert generations == [["qwen3", "feverous", "gold", "120", "74", "–"], ["*", "*", "all", "9000", "8000", "42834"]]
    accuracy = table_rows(parsed, "Dataset", "System", "Format", "Budget", "answers from bm25")
    assert accuracy[1:] == [["feverous", "qwen3", "codes", "short", "60.25 [56.25, 66.25]", "62.50 [58.50, 68.50]"]]
    part = table_rows(parsed, "Dataset", "System", "Quantity", "Format", "Budget", "identical")[1:]
    assert part == [["feverous", "qwen3", "E0", "codes", "short", "2.75", "1.12", "items"]]


def test_each_decomposition_links_to_its_items_in_the_explorer(page):
    """Study 1's section links each component of its comparison (the estimates row's dataset,
    system, format, parser and budget) to items.html; each Study 2 partition row links its cell
    set, grouped by its quantity."""
    links = parse(page).links
    study1 = "items.html#comparison=study1/feverous/verifier/verifier/none/full&component="
    assert [[href, text] for href, text in links if href.startswith(study1)] == [
        [study1 + c, c] for c in ("gain", "E0", "A1", "A0", "E1", "interaction")]
    assert ["items.html#comparison=study2/feverous/qwen3/codes/strict/short&component=E0", "items"] in links


def test_headline_and_section_order(page):
    parsed = parse(page)
    assert "Run kind: demo (data_root is resources/demo)." in parsed.paragraphs
    assert "Study 1 gain T11 − T00: 9.61 [8.77, 10.43] points; paper: 9.61 [8.77, 10.43]." in parsed.paragraphs
    assert [h.split(":")[0] for h in parsed.headings] == [
        "Not a paper run", "At a glance", "Study 1", "Study 1", "Eq. 4", "Study 2", "Study 2", "Study 2", "Study 2",
        "Study 2", "Study 2", "Study 2", "WikiContradict", "DiffGR", "Provenance of this run"]


def test_the_landing_part_holds_the_banner_and_the_headline_only(page):
    """Between the landing markers: the run-kind banner and 'At a glance', nothing after."""
    from evidence_ledger.report.summary import LANDING_END, LANDING_START
    text = page.read_text(encoding="utf-8")
    landing = text.split(LANDING_START)[1].split(LANDING_END)[0]
    assert "Not a paper run: the demo" in landing and "Run kind: " in landing and "Study 1 gain" in landing
    assert "Eq. 4" not in landing and "<!--" not in landing


def test_studies_that_did_not_run_say_so(tmp_path):
    """Only Study 1 and provenance: the Study 2, crossed, WikiContradict and DiffGR sections
    each name the switch that was off, and no Figure 1 is embedded."""
    paths = write_summary_inputs(tmp_path)
    out = tmp_path / "summary.html"
    summary_page(study1_estimates=paths["study1_estimates"], study1_intervals=paths["study1_intervals"],
                 provenance=paths["provenance"], html_out=out, decomposition_out=tmp_path / "d.png",
                 **summary_settings())
    parsed = parse(out)
    for switch in ("study2", "wikicontradict", "diffgr"):
        assert any(f"(studies.{switch}: false)" in p for p in parsed.paragraphs), switch
    assert [img["alt"] for img in parsed.images] == ["Study 1 decomposition: gain, E0 + A1, A0 + E1"]


def test_reruns_give_identical_bytes(tmp_path):
    """The page and the decomposition PNG carry no timestamp or software metadata."""
    paths = write_summary_inputs(tmp_path)
    outputs = []
    for run in ("a", "b"):
        html_out, png_out = tmp_path / run / "summary.html", tmp_path / run / "d.png"
        summary_page(study1_estimates=paths["study1_estimates"], study1_intervals=paths["study1_intervals"],
                     decision_label=paths["decision_label"], forest_plot=paths["forest_plot"],
                     provenance=paths["provenance"], html_out=html_out, decomposition_out=png_out, **summary_settings())
        outputs.append((html_out.read_bytes(), png_out.read_bytes()))
    assert outputs[0] == outputs[1]
    assert b"tEXt" not in outputs[0][1] and b"tIME" not in outputs[0][1]


def test_extra_tables_need_one_title_each(tmp_path):
    paths = write_summary_inputs(tmp_path)
    with pytest.raises(ValueError, match="1 extra tables but 0 titles"):
        summary_page(provenance=paths["provenance"], extra_tables=[paths["invalid_rates"]], extra_titles=[],
                     html_out=tmp_path / "s.html", decomposition_out=tmp_path / "d.png", **summary_settings())
