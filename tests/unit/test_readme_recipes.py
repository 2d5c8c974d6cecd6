"""Issue 17 item 7: the README's re-running recipes are the ones that work after a kill."""
import re

from support.paths import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text()


def test_readme_unlocks_before_rerun_incomplete_and_gives_until_only_the_last_rule():
    assert README.index("snakemake --unlock") < README.index("snakemake --rerun-incomplete")
    # every `snakemake ... --until` recipe names one rule: two rules where one feeds the other make
    # Snakemake stop with "BUG: Out of jobs ready" (the README shows that form only as a warning)
    recipes = re.findall(r"`(snakemake [^`]*--until\s[^`]*)`", README)
    assert len(recipes) >= 2
    for recipe in recipes:
        rules_after_until = [w for w in recipe.split("--until", 1)[1].split() if not w.startswith("-")]
        assert len(rules_after_until) == 1, recipe


def test_readme_slurm_resume_cancels_unlocks_then_reruns_and_has_no_real_account():
    section = README[README.index("## Running on SLURM"):README.index("## Re-running parts")]
    steps = [section.index("scancel --name <run id>"), section.index("--unlock"), section.index("--rerun-incomplete")]
    assert steps == sorted(steps)
    assert "slurm_account=<your account>" in section and "my_lab" not in section
