"""``python -m evidence_ledger account <format>``: account a system's prediction files.

  account FORMAT --gold GOLD --source0 RUN [RUN ...] --source1 RUN [RUN ...] --out DIR
          [--names NAME0 NAME1] [--system NAME] [--draws N] [--seed N] [--level L] [--family-size M]
          [--families FILE] [--resample-runs] [--jobs N]
          + the format's own options (``prediction_files.format_registry``): FEVER --max-evidence,
          --match; FEVEROUS also --max-evidence-cell; SciFact --max-sentences, --sentence-cap;
          KILT --metric {accuracy,em,f1,rougel} or --task TASK (the KILT paper's metric of that
          dataset)

One sub-command per registered format (the built-ins FEVER, FEVEROUS, SciFact and KILT, and any
plugin format: README "Extending"). Each RUN is a prediction file in the format; the source-0
and source-1 runs of one system are matched by position (checkpoints or seeds). The command
recombines each run's answers with the other source's evidence through the format's official
scoring (FEVER / FEVEROUS ``strict_ab = correct_a * eligible_b``; SciFact ``C_ab``; KILT
``metric_a * [R-precision_b = 1]``, the official KILT-<metric>), prints a short table of the
Study 1 quantities with their paired-bootstrap intervals and writes, under ``--out``, the
pipeline's Study 1 tables, the summary page and ``ledger.json`` (``prediction_files.write``).
Draw settings default to ``accounting.study1.bootstrap`` (and ``accounting.bootstrap.batch_size``)
of ``config/defaults.yaml``. Bad input (a missing, repeated or unknown claim id, a file of
another format, a label outside the benchmark's set, unequal run counts) is one ``error:`` line
naming the file and line, exit 2, and nothing is written. What the format says of the files'
reading (FEVER / FEVEROUS: lines paired with the gold lines by position, ``--match positional``
or no ids, warned as ``score`` warns, the lines whose ids differ counted) is ``warning:`` lines
on stderr, rows of the table and the ``matching`` entry of ``ledger.json``.
"""
from __future__ import annotations

import argparse
import os
from decimal import Decimal
from pathlib import Path

from ..config.layers import DEFAULTS_FILE, read_layer, repo_root
from ..errors import ExpectedError
from ..prediction_files.format_registry import format_names, get_format
from ..prediction_files.options import count_at_least
from .warning_lines import warnings_as_lines

# The accounting, its tables and its page (pandas, matplotlib) are imported by the functions that
# run the command, not here: every command of `python -m evidence_ledger` registers this module,
# and they would cost each of them about a second of start-up.


def study1_draw_defaults() -> dict:
    """``draws``, ``seed``, ``alpha``, ``family_size`` (``accounting.study1.bootstrap``) and
    ``batch_size`` (``accounting.bootstrap``) of config/defaults.yaml."""
    accounting = read_layer(repo_root() / DEFAULTS_FILE)["accounting"]
    boot = accounting["study1"]["bootstrap"]
    return {"draws": boot["draws"], "seed": boot["seed"], "alpha": boot["alpha"],
            "family_size": boot["family_size"], "batch_size": accounting["bootstrap"]["batch_size"]}


def level(text: str) -> float:
    """argparse type: an interval level strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1 (e.g. 0.95), got {value}")
    return value


def alpha_of(level_value: float) -> float:
    """``1 - level`` in decimal arithmetic (``--level 0.95`` gives exactly the alpha 0.05 that
    config/defaults.yaml writes, so the same tail and the same interval bounds)."""
    return float(Decimal(1) - Decimal(repr(level_value)))


def draw_settings(args):
    from ..prediction_files.tables import DrawSettings

    defaults = study1_draw_defaults()
    return DrawSettings(draws=args.draws if args.draws is not None else defaults["draws"],
                        seed=args.seed if args.seed is not None else defaults["seed"],
                        alpha=alpha_of(args.level) if args.level is not None else defaults["alpha"],
                        family_size=args.family_size if args.family_size is not None else defaults["family_size"],
                        batch_size=defaults["batch_size"], resample_runs=args.resample_runs)


def check_out_dir(out: Path) -> None:
    """``--out`` is a new or empty directory, or one an earlier ``account`` run wrote (it holds
    ``ledger.json``); anything else is refused before any input is read."""
    from ..prediction_files.write import PAGE_FILES

    if out.exists() and not out.is_dir():
        raise ExpectedError(f"--out {out}: exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not (out / PAGE_FILES["ledger"]).is_file():
        raise ExpectedError(f"--out {out}: the directory holds files no account run wrote (no "
                            f"{PAGE_FILES['ledger']}); give a new or empty directory")


def run_account(args) -> int:
    from ..report.accounted import interval_caption
    from ..prediction_files.runs import read_runs
    from ..prediction_files.tables import account_runs, read_families
    from ..prediction_files.write import terminal_table, write_account_dir

    fmt = get_format(args.benchmark)
    out = Path(args.out)
    check_out_dir(out)
    settings = draw_settings(args)
    scoring = fmt.settings_from_args(args)
    with warnings_as_lines():  # what `score` says of each file: positional pairing, differing ids, ignored gold
        runs = read_runs(fmt, args.gold, args.source0, args.source1, scoring, jobs=args.jobs)
    families = read_families(args.families, runs.format, runs.units) if args.families else None
    sources = tuple(args.names)
    if sources[0] == sources[1]:
        raise ExpectedError(f"--names {sources[0]} {sources[1]}: the two sources need different names")
    accounted = account_runs(runs, system=args.system, sources=sources, settings=settings, families=families,
                             families_path=str(args.families))
    title = f"{args.system} on {fmt.title_of(scoring)}: {sources[0]} → {sources[1]}"
    items = fmt.item_word
    clusters = f"{items[:-1]} families" if families is not None else items
    intro = (f"{runs.n_runs} run(s) per source, run i of {sources[0]} paired with run i of {sources[1]}; "
             f"{len(runs.units)} {items} of {args.gold}. T_ab scores source-a answers with source-b evidence"
             + fmt.intro_note(scoring))
    caption = interval_caption(settings.family_size, settings.alpha, settings.resample_runs, clusters)
    inputs = [("gold", args.gold)] + [(f"{name} run {i}", path) for name, paths in zip(sources, runs.files)
                                      for i, path in enumerate(paths, start=1)]
    if args.families:
        inputs.append(("families", args.families))
    record = {"benchmark": args.benchmark, "system": args.system, "source0": sources[0], "source1": sources[1],
              "runs_per_source": runs.n_runs, "draws": settings.draws, "seed": settings.seed,
              "level": float(Decimal(1) - Decimal(repr(settings.alpha))), "family_size": settings.family_size,
              "batch_size": settings.batch_size, "resample_runs": settings.resample_runs,
              "clusters": clusters, **{f"scoring.{k}": v for k, v in fmt.recorded_settings(scoring).items()}}
    matching = fmt.matching(runs.facts)
    written = write_account_dir(accounted, out, title=title, intro=intro, caption=caption, inputs=inputs,
                                settings=record, layout=fmt.page_layout(scoring), matching=matching)
    print(f"{title}; {len(runs.units)} {items}, {runs.n_runs} run(s) per source")
    print(f"{settings.draws} paired draws of {clusters} (seed {settings.seed}), {caption}")
    print()
    print(terminal_table(accounted, fmt.rate_rows(scoring), matching, fmt.matching_rows()))
    print()
    print(f"wrote {out}/: {', '.join(sorted(p.name for p in written.values()))}")
    return 0


def add_common(parser: argparse.ArgumentParser, name: str) -> None:
    parser.add_argument("--gold", required=True, help="the benchmark's official gold file (claims with labels and "
                                                      "evidence)")
    parser.add_argument("--source0", nargs="+", required=True, metavar="RUN",
                        help="prediction files of the source-0 runs (official submission format)")
    parser.add_argument("--source1", nargs="+", required=True, metavar="RUN",
                        help="prediction files of the source-1 runs, matched by position with --source0")
    parser.add_argument("--out", required=True, help="output directory (new, empty, or an earlier account run's)")
    parser.add_argument("--names", nargs=2, default=("source0", "source1"), metavar=("NAME0", "NAME1"),
                        help="names of the two sources (default: source0 source1)")
    parser.add_argument("--system", default="system", help="name of the system (default: system)")
    parser.add_argument("--draws", type=count_at_least(1), default=None,
                        help="bootstrap draws (default: accounting.study1.bootstrap.draws of config/defaults.yaml)")
    parser.add_argument("--seed", type=count_at_least(0), default=None,
                        help="seed of the draws' PCG64 generator (default: accounting.study1.bootstrap.seed)")
    parser.add_argument("--level", type=level, default=None,
                        help="interval level, e.g. 0.95 (default: 1 - accounting.study1.bootstrap.alpha)")
    parser.add_argument("--family-size", type=count_at_least(1), default=None,
                        help="Bonferroni family size: each interval at level 1 - (1 - level) / family size "
                             "(default: accounting.study1.bootstrap.family_size, 1 = pointwise)")
    parser.add_argument("--families", default=None, metavar="FILE",
                        help="claim families to resample instead of claims: a 'claim_id<TAB>family_id' file "
                             "with that header, or the pipeline's FAMILIES Parquet table")
    parser.add_argument("--resample-runs", action="store_true",
                        help="draw the runs with replacement in every draw (sampled seeds, as Study 2 does); "
                             "default: runs are averaged as they are (checkpoints, as Study 1 does)")
    parser.add_argument("--jobs", type=count_at_least(1), default=min(2, len(os.sched_getaffinity(0))),
                        help="processes that read and score the files (default: 2, or 1 on one CPU)")
    parser.set_defaults(func=run_account, benchmark=name)


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``account`` command (one sub-command per registered format) to a ``add_subparsers()`` object."""
    account = subparsers.add_parser(
        "account", help="account a system's source-0 and source-1 prediction files (evidence vs answers)",
        description="Recombine each run's answers with the other source's evidence through the official scoring "
                    "semantics and report every Study 1 quantity with its paired-bootstrap interval.")
    sub = account.add_subparsers(dest="benchmark", required=True)
    for name in format_names():
        fmt = get_format(name)
        p = sub.add_parser(name, help=f"{fmt.title} predictions {fmt.record_help}")
        add_common(p, name)
        fmt.add_account_options(p)
    return account
