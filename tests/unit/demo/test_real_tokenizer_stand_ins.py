"""Stand-ins built over the real Qwen3 and Llama 3 tokenizers: the real vocabulary and chat
template go with the model, the transformers backend renders the paper's prompts with the real
template (Qwen3 without thinking ends in the empty think block), and claim or evidence text that
spells either model's special tokens never becomes one: the prompt's special-token ids are
exactly those of the template."""
import json
from collections import Counter

import pytest

from evidence_ledger.demo.tiny_models import TrainingExample, build_demo_model
from evidence_ledger.evidence.render import WORD_JOINER, render_evidence, render_unit
from evidence_ledger.generation import prompts
from evidence_ledger.generation.backends import load_backend, model_spec_from_config
from evidence_ledger.models.tokenizer_folder import tokenizer_json_sha256

from support.real_tokenizers import real_tokenizer, real_tokenizer_dir

NO_THINKING = {"enable_thinking": False}
FAMILIES = {"qwen3": ("qwen3", NO_THINKING), "llama31": ("llama3", {})}
CODES = {"A": "support", "B": "refute", "C": "nei"}


def special_spellings() -> list[str]:
    """Every special or added token of both real tokenizers, spelled as text."""
    out = set()
    for name in ("qwen3", "llama3"):
        tok = real_tokenizer(name)
        out |= {t.content for t in tok.added_tokens_decoder.values()}
    return sorted(out)


@pytest.fixture(scope="module")
def stand_ins(tmp_path_factory):
    """family -> a stand-in directory built over its real tokenizer (2 training steps)."""
    out = {}
    examples = [TrainingExample("fever", f"The river is {i} km long.", f"[River] It is {i} km long.",
                                ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")[i % 3]) for i in range(6)]
    for family, (folder, kwargs) in FAMILIES.items():
        path = tmp_path_factory.mktemp("stand_in") / family
        stats = build_demo_model(path, family, examples, [], {"primary": CODES}, kwargs, steps=2,
                                 tokenizer_dir=real_tokenizer_dir(folder))
        out[family] = (path, stats)
    return out


@pytest.fixture(scope="module")
def backends(stand_ins):
    """family -> the transformers backend of its stand-in (as a generate job loads it)."""
    out = {}
    for family, (path, _) in stand_ins.items():
        spec = model_spec_from_config(family, {"dtype": "float32", "chat_template_kwargs": FAMILIES[family][1]},
                                      str(path))
        out[family] = load_backend("transformers", spec, batch_size=2)
    return out


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_stand_in_carries_the_real_vocabulary_tokenizer_file_and_chat_template(stand_ins, backends, family):
    path, stats = stand_ins[family]
    folder = real_tokenizer_dir(FAMILIES[family][0])
    real = real_tokenizer(FAMILIES[family][0])
    config = json.loads((path / "config.json").read_text())
    assert config["vocab_size"] == len(real) == stats["vocab_size"]
    assert tokenizer_json_sha256(path) == tokenizer_json_sha256(folder) == stats["tokenizer"]["sha256"]
    assert backends[family].chat_template == real.chat_template


def test_qwen3_prompt_through_the_transformers_backend_ends_in_the_empty_think_block(backends):
    b = backends["qwen3"]
    text = b.render(prompts.build_messages("fever", "labels", "The river is long.", "[River] It is long."))
    assert text.startswith("<|im_start|>user\nYou are checking a claim")
    assert text.endswith("<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n")


def test_llama_prompt_through_the_transformers_backend_uses_llama3s_headers(backends):
    text = backends["llama31"].render(prompts.build_messages("fever", "labels", "c", "e"))
    assert text.startswith("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nYou are checking")
    assert text.endswith("<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n")


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_special_token_spellings_in_claim_and_evidence_stay_text_in_the_prompt(backends, family):
    b = backends[family]
    spellings = special_spellings()
    assert {"<|im_end|>", "<|eot_id|>", "<|begin_of_text|>", "<think>", "</think>"} <= set(spellings)
    claim = "The claim " + " ".join(spellings)
    evidence = render_evidence([render_unit(f"unit {s} text", f"Page {s}") for s in spellings])
    special_ids = set(b.tokenizer.all_special_ids) | set(b.tokenizer.added_tokens_decoder)
    text = b.render(prompts.build_messages("fever", "codes", claim, evidence, CODES))
    plain = b.token_ids(b.render(prompts.build_messages("fever", "codes", "The claim", "[Page] unit text", CODES)))
    assert Counter(i for i in b.token_ids(text) if i in special_ids) == Counter(i for i in plain if i in special_ids)
    assert all(text.count("<" + WORD_JOINER + s[1:]) == 3 for s in spellings)  # claim, context, unit text
