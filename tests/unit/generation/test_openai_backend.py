"""The ``openai`` backend against a real vLLM OpenAI server on 127.0.0.1 (the session's
``vllm_server``, serving the demo's tiny Qwen3 stand-in), faults injected by a forwarding proxy
(``support.fault_proxy``) between the two: every answer accepted is the real server's.

* answers go through the response cache with the served model and ``system_fingerprint`` the
  server reported; a rerun sends nothing; a seeded request repeats whatever shares its call;
* 429, 5xx and dropped connections are retried, and no request reaches the server twice;
* retries are bounded: a request that keeps failing fails the call naming it, and the answers
  received before it stay cached, so the rerun sends exactly the missing ones;
* a server serving or answering with another model is refused; a parameter the server refuses,
  or one that cannot be sent, fails naming the config key.
"""
import pytest

from support.defaults import DEFAULTS

from evidence_ledger.generation.backends import ChatRequest, SamplingSpec, load_backend, model_spec_from_config
from evidence_ledger.generation.backends.base import RequestFailed
from evidence_ledger.generation.backends.openai_backend import ServedModelMismatch, ServerError, sampling_body
from evidence_ledger.generation.cache import ResponseCache, generate_cached
from support.fault_proxy import FaultProxy
from support.vllm_server import SERVED_NAME, free_port

CFG = {"hub_id": "Qwen/Qwen3-8B", "revision": "declared-rev", "dtype": "float32",
       "chat_template_kwargs": {"enable_thinking": False}}
SERVER = {"served_model_name": SERVED_NAME, "concurrency": 4, "timeout_s": 600, "max_retries": 4,
          "retry_max_s": 600, "extra_sampling": True}


def _backend(model_dir, base_url, **over):
    spec = model_spec_from_config("qwen3", CFG, str(model_dir))
    return load_backend("openai", spec, **{**SERVER, "base_url": base_url, **over})


def _requests(n, marker=None):
    """Greedy and seeded sampled requests alternating; request ``marker`` (an index) says 'refuse me'."""
    return [ChatRequest.from_messages(
        [{"role": "user", "content": f"Person {i} was born in Varenholm." + (" refuse-me" if i == marker else "")}],
        SamplingSpec(0.0 if i % 2 else 0.7, 0.8, 20, 1.0, 6, 100 + i)) for i in range(n)]


def test_sampling_is_sent_explicitly_and_extra_parameters_are_never_dropped():
    greedy, sampled = SamplingSpec(0.0, 0.8, 20, 1.1, 16, 5), SamplingSpec(0.7, 0.8, 20, 1.0, 16, 5)
    assert sampling_body(greedy, True) == {"max_tokens": 16, "temperature": 0.0, "repetition_penalty": 1.1, "min_p": 0.0}
    assert sampling_body(sampled, True) == {"max_tokens": 16, "temperature": 0.7, "top_p": 0.8, "seed": 5,
                                            "repetition_penalty": 1.0, "min_p": 0.0, "top_k": 20}
    assert sampling_body(SamplingSpec(0.7, 0.8, 0, 1.0, 16, 5), False) == {
        "max_tokens": 16, "temperature": 0.7, "top_p": 0.8, "seed": 5}
    with pytest.raises(ValueError, match="top_k=20 needs the server's extra sampling parameters"):
        sampling_body(sampled, False)
    with pytest.raises(ValueError, match="repetition_penalty=1.1"):
        sampling_body(greedy, False)


@pytest.mark.vllm
def test_served_answers_are_cached_with_what_the_server_reported(vllm_server, tiny_served_model, tmp_path):
    backend = _backend(tiny_served_model, vllm_server.base_url)
    reqs = _requests(8)
    first = generate_cached(backend, reqs, ResponseCache(tmp_path), batch_size=5, tag="t")
    again = generate_cached(backend, reqs, ResponseCache(tmp_path), batch_size=5, tag="t")
    assert not any(g.from_cache for g in first) and all(g.from_cache for g in again)
    assert [g.text for g in again] == [g.text for g in first]
    ident = first[0].identity
    assert (ident["backend"], ident["model_revision"], ident["served_model"]) == ("openai", "", SERVED_NAME)
    assert ident["system_fingerprint"].startswith("vllm-") and ident["server_url"] == vllm_server.base_url
    assert ident["chat_template_hash"] == "" and ident["weights_hash"]  # the local stand-in's files
    assert not list(tmp_path.glob("*.journal.jsonl"))  # every call completed: its journal became its shard
    # a seeded request's answer does not depend on the requests sharing its call
    alone = backend.generate_chat([reqs[2], reqs[1]])
    assert [g.text for g in alone] == [first[2].text, first[1].text]
    assert all(g.n_prompt_tokens > 0 and g.finish_reason in ("stop", "length") for g in first)


@pytest.mark.vllm
def test_429_5xx_and_dropped_connections_are_retried_and_nothing_is_sent_twice(vllm_server, tiny_served_model,
                                                                              tmp_path):
    reqs = _requests(6)
    direct = _backend(tiny_served_model, vllm_server.base_url).generate_chat(reqs)
    faults = [("status", 503, {}), ("status", 429, {"Retry-After": "0"}), ("drop",), ("status", 502, {})]
    with FaultProxy(vllm_server.base_url, faults) as proxy:
        backend = _backend(tiny_served_model, proxy.base_url)
        gens = generate_cached(backend, reqs, ResponseCache(tmp_path), batch_size=64, tag="t")
    assert [g.text for g in gens] == [g.text for g in direct]
    sent = [b["messages"][0]["content"] for b in proxy.forwarded]
    assert sorted(sent) == sorted(r.messages[0][1] for r in reqs)  # each reached the server exactly once


@pytest.mark.vllm
def test_a_failing_request_fails_the_call_naming_it_and_the_rerun_sends_only_what_is_missing(
        vllm_server, tiny_served_model, tmp_path):
    reqs = _requests(7, marker=4)
    names = [f"req-{i}" for i in range(7)]
    cache = ResponseCache(tmp_path)
    with FaultProxy(vllm_server.base_url, refuse_marker="refuse-me") as proxy:
        backend = _backend(tiny_served_model, proxy.base_url, concurrency=1)  # in order: 0-3 answered, then 4
        with pytest.raises(RequestFailed, match=r"request req-4 \(cache key \w+\) of t failed: the server refused "
                                                r"it: HTTP 400.*answers of this call received before are cached") as err:
            generate_cached(backend, reqs, cache, batch_size=64, tag="t", request_names=names)
    kept = len(cache.journal_rows())  # 0-3, and 5 if it was already in flight when 4 failed
    assert kept == len(proxy.forwarded) and 4 <= kept <= 5 and f"the {kept} answers" in str(err.value)
    with FaultProxy(vllm_server.base_url) as healthy:
        gens = generate_cached(_backend(tiny_served_model, healthy.base_url), reqs, cache, batch_size=64, tag="t",
                               request_names=names)
    assert sum(g.from_cache for g in gens) == kept and not gens[4].from_cache  # 0 lost
    assert len(healthy.forwarded) == 7 - kept  # 0 sent twice
    assert not cache.journal_paths()  # the interrupted call's journal became a shard
    assert sorted(cache.load()) == sorted({g.cache_key for g in gens})


@pytest.mark.vllm
def test_retries_are_bounded_in_count_and_time(vllm_server, tiny_served_model, tmp_path):
    with FaultProxy(vllm_server.base_url, [("status", 503, {})] * 10) as proxy:
        backend = _backend(tiny_served_model, proxy.base_url, max_retries=1, concurrency=1)
        with pytest.raises(RequestFailed, match=r"request q0 .*failed 2 times.*max_retries / retry_max_s.*HTTP 503"):
            generate_cached(backend, _requests(1), ResponseCache(tmp_path), batch_size=DEFAULTS["generation"]["batch_size"], tag="t", request_names=["q0"])
    assert proxy.forwarded == []
    # no server (yet): waited for up to retry_max_s, whatever max_retries says, then refused naming the key
    with pytest.raises(ServerError, match=r"models\.qwen3\.server\.base_url: no server answers.*failed [2-9] times"
                                          r".*ConnectionRefusedError"):
        _backend(tiny_served_model, f"http://127.0.0.1:{free_port()}/v1", max_retries=0, retry_max_s=2)


@pytest.mark.vllm
def test_a_server_serving_or_answering_with_another_model_is_refused(vllm_server, tiny_served_model, tmp_path):
    with pytest.raises(ServedModelMismatch, match=rf"served_model_name: the server at .* serves \['{SERVED_NAME}'\], "
                                                  r"not 'Qwen/Qwen3-8B'"):
        _backend(tiny_served_model, vllm_server.base_url, served_model_name="Qwen/Qwen3-8B")
    with FaultProxy(vllm_server.base_url, [("rename", "some-other-model")]) as proxy:
        backend = _backend(tiny_served_model, proxy.base_url, concurrency=1)
        with pytest.raises(RequestFailed, match="answered with model 'some-other-model', not 'tiny-qwen3'"):
            generate_cached(backend, _requests(1), ResponseCache(tmp_path), batch_size=DEFAULTS["generation"]["batch_size"], tag="t")
    assert not ResponseCache(tmp_path).load()  # nothing of it was kept


@pytest.mark.vllm
def test_a_parameter_the_server_refuses_or_that_cannot_be_sent_fails_naming_its_key(vllm_server, tiny_served_model):
    too_long = ChatRequest.from_messages([{"role": "user", "content": "x"}], SamplingSpec(0.0, 1.0, 0, 1.0, 5000, 0))
    with pytest.raises(RequestFailed, match=r"HTTP 400: .*max_tokens.*it names max_tokens \(the stage's max_new_tokens"):
        _backend(tiny_served_model, vllm_server.base_url).generate_chat([too_long])
    with FaultProxy(vllm_server.base_url) as proxy:
        backend = _backend(tiny_served_model, proxy.base_url, extra_sampling=False)
        with pytest.raises(RequestFailed, match=r"models\.qwen3\.server\.extra_sampling: top_k=20 needs"):
            backend.generate_chat(_requests(1))
    assert proxy.forwarded == []  # refused before anything was sent


@pytest.mark.vllm
def test_the_server_renders_the_real_qwen3_template_from_the_backends_request(vllm_server, tiny_served_model):
    """The request body the backend sends, rendered by the server itself (its /tokenize endpoint
    takes the same messages and chat_template_kwargs): the real Qwen3 template's empty think
    block ends the prompt, and special-token spellings in claim and evidence add no special id."""
    import json
    import urllib.request

    from evidence_ledger.evidence.budget import load_tokenizer
    from evidence_ledger.evidence.render import render_unit
    from evidence_ledger.generation import prompts
    from support.real_tokenizers import real_tokenizer_dir

    real_tokenizer_dir("qwen3")
    backend = _backend(tiny_served_model, vllm_server.base_url)
    tok = load_tokenizer(str(tiny_served_model))
    special = set(tok.added_tokens_decoder)

    def served_prompt_ids(claim, evidence):
        body = backend.request_body(ChatRequest.from_messages(
            prompts.build_messages("fever", "labels", claim, evidence), SamplingSpec(0.0, 1.0, 0, 1.0, 4, 0)))
        assert body["chat_template_kwargs"] == {"enable_thinking": False}
        tokenize = {"model": body["model"], "messages": body["messages"], "add_generation_prompt": True,
                    "chat_template_kwargs": body["chat_template_kwargs"]}
        root = vllm_server.base_url.removesuffix("/v1")
        request = urllib.request.Request(f"{root}/tokenize", data=json.dumps(tokenize).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())["tokens"]

    spelled = "<|im_end|> <|im_start|> <think> </think> <|eot_id|> <|begin_of_text|>"
    ids = served_prompt_ids("The claim " + spelled, render_unit(spelled, "Page"))
    plain = served_prompt_ids("The claim", render_unit("x", "Page"))
    assert tok.decode(ids).endswith("<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n")
    assert sorted(i for i in ids if i in special) == sorted(i for i in plain if i in special)
