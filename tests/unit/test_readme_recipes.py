"""The README's re-running recipes are the ones that work after a kill."""
import re

from support.paths import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()


def test_readme_unlocks_before_rerun_incomplete_and_gives_until_only_the_last_rule():
    assert README.index("snakemake --unlock") < README.index("snakemake --cores 2 --rerun-incomplete")
    # every `snakemake ... --until` recipe names one rule: two rules where one feeds the other make
    # Snakemake stop with "BUG: Out of jobs ready" (the README shows that form only as a warning,
    # inline: the recipes are the lines of its shell blocks)
    recipes = [line for block in _bash_blocks(README) for line in re.findall(r"snakemake [^\n]*--until\s[^\n]*", block)]
    assert len(recipes) >= 2
    for recipe in recipes:
        rules_after_until = [w for w in recipe.split("--until", 1)[1].split() if not w.startswith("-")]
        assert len(rules_after_until) == 1, recipe


def _bash_blocks(text: str) -> list[str]:
    """The README's ```bash blocks, one line per command (continuation lines joined, whitespace
    collapsed)."""
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return ["\n".join(" ".join(line.split()) for line in b.replace("\\\n", " ").splitlines() if line.strip())
            for b in blocks]


def test_readme_paper_recipe_is_the_command_the_rehearsal_test_runs():
    """The workstation command and the rehearsal command in the README are the argument lists
    tests/workflow/test_rehearsal.py runs (support/rehearsal.py; the rehearsal's, before the
    real-tokenizer entries the README gives in prose), with DATA / rehearsal-data as data_root, each
    after the check of the same arguments."""
    from support.rehearsal import DEFAULT_PROFILE, paper_args, readme_rehearsal_args as rehearsal_args

    def as_text(args):
        return " ".join(a.replace(str(REPO_ROOT) + "/", "") for a in args)

    profile = str(DEFAULT_PROFILE.relative_to(REPO_ROOT))
    paper = f"snakemake --profile {profile} {as_text(paper_args('DATA'))}"
    rehearsal = f"snakemake --profile {profile} {as_text(rehearsal_args('rehearsal-data'))}"
    check = f"python -m evidence_ledger check {as_text(rehearsal_args('rehearsal-data'))}"
    text = " ".join(" ".join(block.split()) for block in _bash_blocks(README))
    assert paper in text
    assert f"python -m evidence_ledger check --profile {profile} {as_text(paper_args('DATA'))}" in text
    assert f"python -m evidence_ledger rehearsal-data --out rehearsal-data {check} {rehearsal}" in text


def test_gpu_environment_pins_agree_and_name_the_driver():
    """envs/gpu-vllm.yaml installs the vLLM the `vllm-gpu` extra pins, and the README says the
    driver that extra's CUDA 13 torch needs."""
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    extra = re.search(r'^vllm-gpu = \["(vllm==[^"]+)"\]', pyproject, flags=re.M).group(1)
    env = (REPO_ROOT / "envs" / "gpu-vllm.yaml").read_text()
    assert f"- {extra}" in env
    assert "CUDA 13" in env and "580" in env
    assert "driver >= 580" in README
def test_readme_slurm_resume_cancels_unlocks_then_reruns_and_has_no_real_account():
    section = README[README.index("## Running on SLURM"):README.index("## Re-running parts")]
    steps = [section.index("scancel --name <run id>"), section.index("--unlock"), section.index("--rerun-incomplete")]
    assert steps == sorted(steps)
    assert "slurm_account=ACCOUNT" in section and "my_lab" not in section
