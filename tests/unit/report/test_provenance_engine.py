"""The provenance table records the generation engine options the run configured."""
from evidence_ledger.report.provenance import engine_option_rows


def test_engine_options_are_recorded_one_row_each():
    config = {"generation": {"shards": 1, "call_size": 4096,
                             "vllm": {"max_num_seqs": 512, "max_num_batched_tokens": None, "max_model_len": 8192}}}
    rows = engine_option_rows(config)
    assert ("engine", "generation.vllm.max_num_seqs", "512") in rows
    assert ("engine", "generation.vllm.max_num_batched_tokens", "null") in rows  # the engine's default
    assert ("engine", "generation.call_size", "4096") in rows and ("engine", "generation.shards", "1") in rows
    assert engine_option_rows({}) == []
