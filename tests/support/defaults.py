"""``config/defaults.yaml``, the one home of every setting's default, for tests that call library
code directly with what a run would pass."""
import yaml

from support.paths import REPO_ROOT

DEFAULTS = yaml.safe_load((REPO_ROOT / "config" / "defaults.yaml").read_text(encoding="utf-8"))


def vllm_options() -> dict:
    """The vLLM backend's engine options of the default config (``generation`` and ``generation.vllm``)."""
    g = DEFAULTS["generation"]
    return {"enable_prefix_caching": g["enable_prefix_caching"], "tensor_parallel_size": g["tensor_parallel_size"],
            **g["vllm"]}


def summary_settings() -> dict:
    """The settings the summary_page rule passes from the default config."""
    a = DEFAULTS["accounting"]
    return {"study1_family_size": a["study1"]["bootstrap"]["family_size"], "study1_alpha": a["study1"]["bootstrap"]["alpha"],
            "unresolved_scope": a["study1"]["unresolved_scope"], "study2_parser": a["study2"]["parser"],
            "study2_sources": DEFAULTS["generation"]["sources"]}


def serialisation_limits(**changes):
    """The verifier's serialisation limits of the default config (``verifier.input``), with ``changes``."""
    from evidence_ledger.verifier.serialise import SerialisationLimits

    return SerialisationLimits(**{**DEFAULTS["verifier"]["input"], **changes})


#: the corpus index's and the pool ordering's BM25 settings (``retrieval.corpus_bm25``, ``retrieval.pool_bm25``)
CORPUS_BM25 = dict(DEFAULTS["retrieval"]["corpus_bm25"])
POOL_BM25 = dict(DEFAULTS["retrieval"]["pool_bm25"])
#: the verifier's training settings that have config defaults (``verifier``)
TRAINING_DEFAULTS = {key: DEFAULTS["verifier"][key] for key in ("weight_decay", "max_grad_norm", "precision")}
#: the verifier's prediction settings (``verifier.predict_batch_size``, ``verifier.precision``)
PREDICT_DEFAULTS = {"batch_size": DEFAULTS["verifier"]["predict_batch_size"], "precision": DEFAULTS["verifier"]["precision"]}


def reranker_spec(**changes):
    """A reranker spec with the scoring settings of ``retrieval.reranker`` and ``changes``."""
    from evidence_ledger.retrieval.reranker import RerankerSpec

    r = DEFAULTS["retrieval"]["reranker"]
    keys = ("batch_size", "fp16", "max_length", "allow_pickle_weights")
    return RerankerSpec(**{**{key: r[key] for key in keys}, **changes})
