"""benchmarks/scale.py: the index's component fit, the power-law vocabulary fit, the memory
model and its hold-out check, the tables, and the release cache (a release is generated once
and reused)."""
import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
spec = importlib.util.spec_from_file_location("scale", REPO / "benchmarks" / "scale.py")
scale = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scale)


def run(pages, vocab, nnz, rss):
    return {"pages": pages, "units": 5 * pages, "vocab_size": vocab, "index_nnz": nnz,
            "steps": {"index": {"peak_rss_mib": rss, "cpu_s": 1.0}}}


def test_component_fit_recovers_floor_bytes_per_nnz_and_per_term():
    """Runs whose index peak is exactly 200 MiB + 8 B/nnz + 100 B/term give those
    coefficients back; the vocabulary (exactly 30 x pages^0.9) extrapolates by its power law."""
    def rss(v, n):
        return 200 + (8 * n + 100 * v) / 2**20
    sizes = [(1e5, 4.5e6), (3e5, 1.4e7), (1e6, 4.4e7)]
    runs = {"fever": [run(p, 30 * p ** 0.9, n, rss(30 * p ** 0.9, n)) for p, n in sizes],
            "feverous": [run(p, 30 * p ** 0.9, 2 * n, rss(30 * p ** 0.9, 2 * n)) for p, n in sizes]}
    comp = scale.component_fits({"runs": runs})
    c = comp["index_rss_mib"]
    assert c["floor_mib"] == pytest.approx(200, abs=1e-6)
    assert c["bytes_per_nnz"] == pytest.approx(8) and c["bytes_per_term"] == pytest.approx(100)
    f = comp["fever"]
    assert f["vocab_vs_pages"]["alpha"] == pytest.approx(0.9) and f["vocab_vs_pages"]["c"] == pytest.approx(30)
    assert f["extrapolated_vocab"] == round(30 * 5_416_537 ** 0.9)
    table = scale.markdown_table({"runs": runs, "fits": {}, "component_fits": comp})
    assert f"| fever (5,416,537 pages) | 30.0 x pages^0.900 |" in table


def test_release_is_generated_once_then_reused(tmp_path):
    calls = []

    def writer(out_dir, pages, n_claims, seed):
        calls.append((pages, n_claims, seed))
        out_dir.mkdir(parents=True)
        return {"wiki": str(out_dir / "wiki"), "claims": str(out_dir / "claims.jsonl"), "pages": pages, "units": 7}

    first = scale.cached_release(writer, "fever", 100, 20, 0, tmp_path)
    again = scale.cached_release(writer, "fever", 100, 20, 0, tmp_path)
    assert first == again and calls == [(100, 20, 0)]
    assert json.loads((tmp_path / "fever-100-c20-s0" / "release.json").read_text()) == first


def test_memory_model_counts_each_buffer_and_recovers_floor_and_batch_terms():
    """Runs whose peak is exactly 250 MiB + pass 2's buffers (8 B a non-zero, 36 B a term) + 120 B
    a pair of one 8,192-page batch give floor and batch coefficient back, predicted without error."""
    def peak(p, v, n):
        return 250 + (8 * n + 36 * v + 120 * 8192 * n / p) / 2**20
    runs = [run(p, v, n, peak(p, v, n)) for p, v, n in [(1e5, 2.7e5, 5.8e6), (3e5, 5.7e5, 1.7e7), (1e5, 7.7e5, 2.3e7)]]
    check = scale.memory_model_check({"runs": {"fever": runs}})
    assert check["floor_mib"] == pytest.approx(250) and check["batch_bytes_per_pair"] == pytest.approx(120)
    assert all(abs(r["rel_error"]) < 1e-3 for r in check["runs"])
    m = scale.index_memory_model(1e6, 0, 1e5, 0, 0)
    assert m["peak"] == m["pass1"] == pytest.approx(100e6 / 2**20)


def test_block_budget_caps_pass2_and_reread_cpu_is_priced_per_nonzero_and_block():
    """Pass 2 holds at most one block (512 MiB of a 1e9-non-zero matrix); a run at a smaller
    budget needing 8 more blocks, 4 CPU s slower on 5e7 non-zeros, prices a re-read at 10 ns a
    non-zero a block, added to the linear CPU extrapolation for the real corpus's blocks."""
    m = scale.index_memory_model(0, 1e9, 1e5, 0, 0, 512 * 2**20)
    assert m["pass2"] == pytest.approx(512) and scale.index_memory_model(0, 1e9, 1e5, 0, 0, None)["pass2"] > 7000

    def with_blocks(r, blocks, budget, cpu):
        r["steps"]["index"].update(pass2_blocks=blocks, block_bytes=budget, cpu_s=cpu)
        r["steps"].update({s: {"peak_rss_mib": 200.0, "cpu_s": 1.0, "input_mb": 1.0} for s in ("ingest", "retrieve", "pools")})
        r["steps"]["index"]["input_mb"] = 1.0
        return r
    runs = [with_blocks(run(p, 1e3 * p ** 0.5, 5e7 * p / 1e5, 300 + p / 1e3), 1, 512 * 2**20, p / 1e4)
            for p in (1e5, 2e5, 3e5)]
    small = [with_blocks(run(1e5, 1e3 * 1e5 ** 0.5, 5e7, 400), 9, 2**20, 10 + 4)]
    out = scale.reread_cpu({"runs": {"fever": runs}, "block_runs": {"fever": small}})
    assert out["s_per_nnz_block"] == pytest.approx(1e-8)
    real = out["fever"]
    assert real["blocks"] > 1 and real["index_cpu_min"] > 5_416_537 / 1e4 / 60


def test_holdout_fits_the_small_runs_only_and_predicts_the_large_ones():
    """Runs of at most 300,000 pages fit floor and batch term; a 1.2M-page run whose peak
    follows the same buffers is predicted out of sample without error, and one 20% above them
    shows a -16.7% error (the fit on every run would have absorbed part of it)."""
    def peak(p, v, n):
        return 250 + (8 * n + 36 * v + 120 * 8192 * n / p) / 2**20
    sizes = [(1e5, 2.7e5, 5.8e6), (3e5, 5.7e5, 1.7e7), (1e5, 7.7e5, 2.3e7)]
    runs = [run(p, v, n, peak(p, v, n)) for p, v, n in sizes]
    exact = run(1.2e6, 3e6, 7e7, peak(1.2e6, 3e6, 7e7))
    above = run(1.2e6, 3e6, 7e7, 1.2 * peak(1.2e6, 3e6, 7e7))
    hold = scale.memory_model_check({"runs": {"fever": runs + [exact], "feverous": [above]}})["holdout"]
    assert hold["floor_mib"] == pytest.approx(250) and hold["batch_bytes_per_pair"] == pytest.approx(120)
    errors = {r["corpus"]: r["rel_error"] for r in hold["runs"]}
    assert errors == {"fever": pytest.approx(0, abs=1e-3), "feverous": pytest.approx(-1 / 6, abs=1e-3)}
    assert "Hold-out: the same two terms fitted on the runs of at most 300,000 pages" in scale.markdown_table(
        {"runs": {"fever": runs}, "memory_model": scale.memory_model_check({"runs": {"fever": runs + [exact]}})})


def test_claim_side_steps_get_their_own_table_keyed_by_claims_and_the_index_is_not_extrapolated_linearly():
    steps = {s: {"peak_rss_mib": 300.0, "cpu_s": 2.0, "input_mb": 10.0} for s in scale.STEPS}
    runs = [{"pages": p, "units": 5 * p, "claims": 2000, "steps": dict(steps)} for p in (100_000, 300_000)]
    results = {"runs": {"fever": runs}}
    results["fits"] = scale.fits(results)
    table = scale.markdown_table(results)
    assert "| corpus | pages | claims | order_bm25 RSS MiB / CPU s | order_bge RSS MiB / CPU s | evidence" in table
    assert "| fever | 100,000 | 2,000 | 300 / 2.0 | 300 / 2.0 | 300 / 2.0 |" in table
    assert "| index | 0.000 | memory model |" in table
    assert "| order_bge |" not in table.split("| corpus | step |")[1]  # claim-side steps: no fit in pages


def test_a_step_reports_the_child_process_own_peak_not_the_parent_peak_it_inherits():
    """The parent holds 300 MiB; the child (the index of a 3-page corpus would do, here a
    no-op stage function) reports its own ``VmHWM``, well under it, while its ``ru_maxrss``
    starts from the parent's peak."""
    held = b"\1" * (300 * 1024 * 1024)
    out = scale.run_step("json:dumps", {"obj": 1})
    assert out["peak_rss_mib"] < 200 <= out["ru_maxrss_mib"]
    del held


def test_declared_memory_of_every_data_path_rule_is_1_5_to_3_times_its_measured_peak():
    """Against the committed measurements (benchmarks/results/scale.json, every corpus, size and
    step): each rule's declared ``mem_mb`` for that run's input sizes is 1.5-3x the measured
    peak (order_bge: the stand-in's peak plus the real reranker's difference). Changing a
    coefficient in rule_resources.py without re-measuring fails here."""
    results = json.loads((REPO / "benchmarks" / "results" / "scale.json").read_text())
    rows = scale.declared_against_measured(results)
    assert {r["rule"] for r in rows} == set(scale.STEP_RULES.values())
    assert {(r["corpus"], r["pages"]) for r in rows} >= {("fever", 1_000_000), ("feverous", 1_200_000)}
    outside = [r for r in rows if not 1.5 <= r["ratio"] <= 3.0]
    assert outside == []


def test_the_tables_in_docs_scale_are_those_of_the_committed_results():
    """docs/scale.md carries ``python benchmarks/scale.py table`` of benchmarks/results/scale.json
    verbatim, so the page cannot drift from the measurements."""
    results = scale.with_analyses(json.loads((REPO / "benchmarks" / "results" / "scale.json").read_text()))
    assert scale.markdown_table(results) in (REPO / "docs" / "scale.md").read_text()
