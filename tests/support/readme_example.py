"""A README example of the ``account`` command: its command line and the output printed under it."""
from __future__ import annotations

from support.paths import REPO_ROOT


def readme_section(start: str, end: str = "## Extending") -> str:
    """The README's text from the heading ``start`` to ``end``."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    return text[text.index(start):text.index(end)]


def example_argv(section: str, out: str) -> list[str]:
    """The first ``bash`` block of ``section`` as ``python -m evidence_ledger`` arguments, its
    ``--out`` replaced by ``out``."""
    command = section[section.index("```bash\n") + 8:section.index("```\nprints")]
    argv = command.replace("\\\n", " ").split()
    assert argv[:3] == ["python", "-m", "evidence_ledger"]
    argv = argv[3:]
    argv[argv.index("--out") + 1] = out
    return argv


def check_printed_as_shown(section: str, printed: list[str], out_dir: str) -> None:
    """The printed lines are the ``text`` block after the command, but for the output directory
    of the last line (the README's ``out_dir``, the test's own)."""
    shown = section[section.index("```text\n") + 8:section.index("```\nRead:")].splitlines()
    assert printed[:-1] == shown[:-1]
    assert shown[-1].startswith(f"wrote {out_dir}/: ") and printed[-1].endswith(shown[-1].split(": ")[1])
