"""LLM generation for Study 2, reusable by the knowledge-conflict stages.

Modules: ``prompts`` (versioned fact-verification templates), ``requests`` (Study 2 request
table: per-request seeds, de-duplication, shards), ``backends`` (transformers / vLLM in process,
``openai`` for a served model, plugins; one interface: docs/backends.md), ``cache`` (sha256-keyed
Parquet response cache, resume-safe), ``responses`` (responses of one model x dataset shard;
gathering the shards), ``planner`` (the ``plan`` command; its parts ``plan_results``,
``plan_config``, ``plan_evidence``, ``plan_tokens``, ``plan_gpu_time``, ``plan_format``), ``stage``
(the rule functions). The demo's locally built chat models live in ``evidence_ledger.demo.tiny_models``.

Reusing generation for another task (e.g. WikiContradict answers, <= 250 new tokens, or
DiffGR reader answers, <= 10): the backend and the cache take *generic chat requests*, not
label-task rows::

    from evidence_ledger.generation.backends import ChatRequest, SamplingSpec, load_backend, model_spec_from_config
    from evidence_ledger.generation.cache import ResponseCache, generate_cached

    spec = model_spec_from_config(name, config["models"][name])          # Hub id + revision, or local dir
    backend = load_backend(config["generation"]["backend"], spec, **backend_options)  # the rule's params.backend_options
    reqs = [ChatRequest.from_messages(messages, SamplingSpec(temperature=0.0, top_p=1.0, top_k=0,
                                                             repetition_penalty=1.0, max_new_tokens=250, seed=s))
            for messages, s in ...]
    outs = generate_cached(backend, reqs, ResponseCache(f"{cache_dir}/{name}"), batch_size=64, tag="wikicontradict")
    # outs[i].text, .n_prompt_tokens, .n_output_tokens, .finish_reason, .cache_key, .identity, .from_cache

* ``messages`` are chat turns (``[{"role": "system"|"user"|"assistant", "content": ...}]``);
  the backend renders them with the model's own chat template (``chat_template_kwargs`` from
  the model's config, Qwen3 ``enable_thinking=False``).
* temperature 0 is greedy; a sampled request is seeded by its own ``seed`` (repeatable, and
  independent of the batch it lands in). Use ``requests.request_seed`` or any deterministic
  hash of the item for seeds.
* The cache key covers the model identity (revision or local weights hash, dtype), backend,
  chat template hash + kwargs, messages, sampling parameters, seed and max_new_tokens, so
  tasks can share one cache directory per model; a killed run resumes where it stopped and
  a rerun generates nothing. Identical requests within a call are generated once.
* Keep ``tag`` distinct per task/shard when jobs write to the same cache directory at once.
"""
