"""benchmarks/reranker.py's bge-reranker-base stand-in loads its tokenizer by the real model's path."""
import importlib.util
import os
from pathlib import Path
from unittest.mock import patch

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("reranker_benchmark", REPO / "benchmarks" / "reranker.py")
reranker_benchmark = importlib.util.module_from_spec(spec)
with patch.dict(os.environ):  # the benchmark sets its thread variables on import; keep them out of other tests
    spec.loader.exec_module(reranker_benchmark)


def test_base_stand_in_tokenizer_loads_as_the_class_its_config_declares(tmp_path):
    """AutoTokenizer (what FlagReranker calls) builds the class the stand-in's tokenizer_config.json
    names, XLMRobertaTokenizer as in BAAI/bge-reranker-base's, not the demo builder's own class,
    whose loading holds a different amount of memory."""
    from transformers import AutoTokenizer

    examples = [{"claim": "the river is long", "positives": ["the river runs north"],
                 "same_doc": ["a city by the river", "the band released an album"], "candidates": []}]
    reranker_benchmark.build_tiny_reranker(examples, tmp_path, steps=0, seed=0, **reranker_benchmark.SIZES["tiny"])
    before = type(AutoTokenizer.from_pretrained(tmp_path)).__name__
    reranker_benchmark.declare_tokenizer_class(tmp_path, reranker_benchmark.TOKENIZER_CLASS["base"])
    after = AutoTokenizer.from_pretrained(tmp_path)
    assert before != "XLMRobertaTokenizer"
    assert type(after).__name__ == reranker_benchmark.TOKENIZER_CLASS["base"] == "XLMRobertaTokenizer"
    assert after("the river", "the city")["input_ids"][0] == after.cls_token_id
