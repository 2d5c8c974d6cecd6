"""benchmarks/scale.py: the index's component fit, the power-law vocabulary fit and the
release cache (a release is generated once and reused)."""
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
    assert "Index peak RSS = 200 MiB + 8.0 B x non-zeros + 100.0 B x terms" in table


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
