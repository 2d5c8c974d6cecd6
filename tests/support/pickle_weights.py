"""Turn a saved model directory into a pickle-only one (``pytorch_model.bin``, no safetensors)."""
from pathlib import Path


def to_pickle_only(model_dir) -> Path:
    """Replace every ``*.safetensors`` file of ``model_dir`` by one ``pytorch_model.bin``; return the dir."""
    import torch
    from safetensors.torch import load_file

    model_dir = Path(model_dir)
    state = {}
    for f in sorted(model_dir.glob("*.safetensors")):
        state.update(load_file(f))
        f.unlink()
    (model_dir / "model.safetensors.index.json").unlink(missing_ok=True)
    torch.save(state, model_dir / "pytorch_model.bin")
    return model_dir
