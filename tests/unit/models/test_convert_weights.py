"""convert-weights: a pickle-only tiny DeBERTa becomes a safetensors directory with the same
logits that the verifier's loader accepts without allow_pickle_weights; tied/view tensors are
kept; conversion.json records the source and both hashes."""
import hashlib
import json
import shutil

import pytest
import torch

from evidence_ledger.__main__ import main
from evidence_ledger.models.convert_weights import convert_weights
from evidence_ledger.demo.tiny_verifier import TinyVerifierSpec, build_tiny_verifier
from evidence_ledger.models.model_files import PickleWeightsRefused
from evidence_ledger.verifier.train import BaseModel, load_base
from support.pickle_weights import to_pickle_only


def logits_of(model, tokenizer):
    batch = tokenizer(["a claim about a river"], ["a city on the river"], return_tensors="pt")
    model.eval()
    with torch.inference_mode():
        return model(**batch).logits


def test_converted_tiny_deberta_gives_the_same_logits_and_loads_without_pickle(tmp_path):
    build_tiny_verifier(["a claim about a river", "a city on the river"], tmp_path / "base",
                        TinyVerifierSpec(vocab_size=300, hidden_size=32, intermediate_size=64))
    shutil.copytree(tmp_path / "base", tmp_path / "pickle")
    source = to_pickle_only(tmp_path / "pickle")
    with pytest.raises(PickleWeightsRefused, match="verifier.base_model.allow_pickle_weights"):
        load_base(BaseModel(local_dir=str(source)))
    tokenizer, original = load_base(BaseModel(local_dir=str(source), allow_pickle_weights=True))

    record = convert_weights(str(source), tmp_path / "converted")

    out = tmp_path / "converted"
    assert (out / "model.safetensors").is_file() and not (out / "pytorch_model.bin").exists()
    assert record == json.loads((out / "conversion.json").read_text())
    assert record["source"] == str(source) and record["revision"] is None
    assert record["source_weights"] == {
        "pytorch_model.bin": hashlib.sha256((source / "pytorch_model.bin").read_bytes()).hexdigest()}
    assert record["model.safetensors"] == hashlib.sha256((out / "model.safetensors").read_bytes()).hexdigest()
    assert {"config.json", "tokenizer_config.json"} <= set(record["copied_files"])
    _, converted = load_base(BaseModel(hub_id="microsoft/deberta-large-mnli", local_dir=str(out)))
    assert torch.allclose(logits_of(converted, tokenizer), logits_of(original, tokenizer))
    with pytest.raises(FileExistsError):
        convert_weights(str(source), out)
    with pytest.raises(ValueError, match="nothing to convert"):
        convert_weights(str(out), tmp_path / "again")


def test_tied_and_view_tensors_are_cloned_and_every_key_kept_by_the_command(tmp_path, capsys):
    from safetensors.torch import load_file

    source = tmp_path / "tied"
    source.mkdir()
    (source / "config.json").write_text("{}")
    (source / "bpe_encoder.bin").write_bytes(b"a tokenizer pickle that is not copied")
    shared = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    torch.save({"embed.weight": shared, "lm_head.weight": shared, "row": shared[1], "col": shared[:, 2]},
               source / "pytorch_model.bin")

    assert main(["convert-weights", str(source), "--out", str(tmp_path / "out")]) == 0

    written = load_file(str(tmp_path / "out" / "model.safetensors"))
    assert sorted(written) == ["col", "embed.weight", "lm_head.weight", "row"]
    assert torch.equal(written["lm_head.weight"], shared) and torch.equal(written["col"], shared[:, 2])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["config.json", "conversion.json",
                                                                     "model.safetensors"]
    assert json.loads(capsys.readouterr().out)["tensors"] == 4


# --- refusals: one line naming the file (and entry), nothing run, nothing left behind -----------


class RunsCode:
    """Pickles to a call of ``pathlib.Path.touch(marker)``: loading it would create the marker."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        import pathlib

        return (pathlib.Path.touch, (pathlib.Path(self.marker),))


def pickle_dir(path, files: dict):
    """A model directory with a config and the given pickle files (name -> object to torch.save)."""
    path.mkdir(parents=True)
    (path / "config.json").write_text("{}")
    for name, obj in files.items():
        if isinstance(obj, bytes):
            (path / name).write_bytes(obj)
        elif isinstance(obj, dict) and "weight_map" in obj:
            (path / name).write_text(json.dumps(obj))
        else:
            torch.save(obj, path / name)
    return path


def run_cli(argv, capsys) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


def test_a_shard_entry_leading_out_of_the_model_directory_is_refused_naming_the_entry(tmp_path, capsys):
    torch.save({"secret": torch.ones(2)}, tmp_path / "outside.bin")
    source = pickle_dir(tmp_path / "m", {
        "pytorch_model.bin.index.json": {"weight_map": {"w": "pytorch_model-1.bin", "secret": "../outside.bin"}},
        "pytorch_model-1.bin": {"w": torch.zeros(2)}})
    code, err = run_cli(["convert-weights", str(source), "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    line = one_error_line(err)
    assert f"{source / 'pytorch_model.bin.index.json'}: weight_map entry 'secret' names '../outside.bin'" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("entry", ["absolute", "link"])
def test_an_absolute_or_linked_shard_outside_the_directory_is_refused(tmp_path, entry):
    from evidence_ledger.files.safe_files import PathOutside

    torch.save({"secret": torch.ones(2)}, tmp_path / "outside.bin")
    name = str(tmp_path / "outside.bin") if entry == "absolute" else "pytorch_model-2.bin"
    source = pickle_dir(tmp_path / "m", {"pytorch_model.bin.index.json": {"weight_map": {"secret": name}}})
    if entry == "link":
        (source / name).symlink_to(tmp_path / "outside.bin")
    with pytest.raises(PathOutside, match="outside") as refused:
        convert_weights(str(source), tmp_path / "out")
    assert "pytorch_model-2.bin" in str(refused.value) or "absolute path" in str(refused.value)
    assert not (tmp_path / "out").exists()


def test_out_equal_to_or_inside_the_source_is_refused_and_the_source_is_untouched(tmp_path, capsys):
    source = pickle_dir(tmp_path / "m", {"pytorch_model.bin": {"w": torch.zeros(2)}})
    before = sorted(p.name for p in source.iterdir())
    for out in (source, source / "converted", tmp_path / "link-to-source"):
        if out.name == "link-to-source":
            out.symlink_to(source)
        code, err = run_cli(["convert-weights", str(source), "--out", str(out)], capsys)
        assert code == 2 and "is the source directory" in one_error_line(err)
        assert sorted(p.name for p in source.iterdir()) == before


def test_a_training_checkpoint_is_refused_naming_its_non_tensor_entries_and_the_state_dict(tmp_path, capsys):
    weights = {"encoder.weight": torch.arange(6.0).reshape(2, 3), "head.bias": torch.zeros(2)}
    checkpoint = {"model": weights, "optimizer": {"state": {}, "param_groups": [{"lr": 0.1, "params": [0, 1]}]},
                  "epoch": 3}
    source = pickle_dir(tmp_path / "ckpt", {"pytorch_model.bin": checkpoint})
    code, err = run_cli(["convert-weights", str(source), "--out", str(tmp_path / "out")], capsys)
    line = one_error_line(err)
    assert code == 2 and f"{source / 'pytorch_model.bin'}: not a state dict: entries ['epoch', 'model', 'optimizer']" \
        " are not tensors" in line
    assert "entry 'model' is a dictionary of 2 tensors: convert it alone with --state-dict-entry model" in line
    assert not (tmp_path / "out").exists()

    code, _ = run_cli(["convert-weights", str(source), "--out", str(tmp_path / "out"),
                       "--state-dict-entry", "model"], capsys)
    from safetensors.torch import load_file

    assert code == 0
    written = load_file(str(tmp_path / "out" / "model.safetensors"))
    assert sorted(written) == sorted(weights) and torch.equal(written["encoder.weight"], weights["encoder.weight"])
    assert json.loads((tmp_path / "out" / "conversion.json").read_text())["state_dict_entry"] == "model"


def test_two_state_dicts_in_a_checkpoint_are_never_guessed_between(tmp_path):
    from evidence_ledger.models.convert_weights import ConversionRefused

    source = pickle_dir(tmp_path / "ckpt", {"pytorch_model.bin": {"model": {"w": torch.zeros(1)},
                                                                  "ema": {"w": torch.ones(1)}}})
    with pytest.raises(ConversionRefused, match=r"entries \['ema', 'model'\] are dictionaries of tensors: choose one"):
        convert_weights(str(source), tmp_path / "out")


@pytest.mark.parametrize("where", ["single", "shard"])
def test_a_malicious_pickle_runs_nothing_and_is_refused_in_one_line_naming_it(tmp_path, capsys, where):
    marker = tmp_path / "code-ran"
    if where == "single":
        source = pickle_dir(tmp_path / "m", {"pytorch_model.bin": {"w": RunsCode(marker)}})
        bad = source / "pytorch_model.bin"
    else:
        source = pickle_dir(tmp_path / "m", {
            "pytorch_model.bin.index.json": {"weight_map": {"a": "pytorch_model-1.bin", "b": "pytorch_model-2.bin"}},
            "pytorch_model-1.bin": {"a": torch.zeros(1)}, "pytorch_model-2.bin": {"b": RunsCode(marker)}})
        bad = source / "pytorch_model-2.bin"
    code, err = run_cli(["convert-weights", str(source), "--out", str(tmp_path / "new" / "out")], capsys)
    line = one_error_line(err)
    assert code == 2 and line.startswith(f"error: {bad}: refused: not a pickle of tensors only")
    assert "(Unsupported global: GLOBAL getattr was not an allowed global by default)" in line
    assert "before running any of it" in line
    assert not marker.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]  # no --out, no parent, no temporary


@pytest.mark.parametrize("content", [b"", b"PK\x03\x04 a zip header and then nothing", "truncated"])
def test_a_damaged_weights_file_is_refused_naming_it(tmp_path, capsys, content):
    source = pickle_dir(tmp_path / "m", {"pytorch_model.bin": {"w": torch.zeros(64)}})
    if content == "truncated":
        data = (source / "pytorch_model.bin").read_bytes()
        content = data[:len(data) // 2]
    (source / "pytorch_model.bin").write_bytes(content)
    out = tmp_path / "out"
    out.mkdir()  # an empty --out the user made stays as it was
    code, err = run_cli(["convert-weights", str(source), "--out", str(out)], capsys)
    assert code == 2 and one_error_line(err).startswith(
        f"error: {source / 'pytorch_model.bin'}: not a readable PyTorch weights file")
    assert out.is_dir() and not any(out.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m", "out"]


def test_a_non_empty_out_is_refused_before_anything_is_read(tmp_path, capsys):
    source = pickle_dir(tmp_path / "m", {"pytorch_model.bin": {"w": torch.zeros(2)}})
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    code, err = run_cli(["convert-weights", str(source), "--out", str(out)], capsys)
    assert code == 2 and f"{out} exists and is not empty" in one_error_line(err)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
