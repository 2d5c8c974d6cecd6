"""Generation backends behind one interface (see ``base``): transformers and vLLM."""
from .base import Backend, ChatRequest, Generation, ModelSpec, SamplingSpec, load_backend, model_spec_from_config

__all__ = ["Backend", "ChatRequest", "Generation", "ModelSpec", "SamplingSpec", "load_backend", "model_spec_from_config"]
