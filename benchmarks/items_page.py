"""Benchmark of the item explorer (writes benchmarks/results/items_page.json and items_page.md).

Synthetic ITEMS and ITEM_TEXTS tables (``tables.items``) at the paper's size, in one page as a
pipeline run writes ``results/report/items.html``:

1. Study 1: 7,890 FEVEROUS claims (the dev set), a verifier's 4 checkpoints, one comparison;
   per claim the evidence text each source gave the verifier (units while they fit about 380
   words, the 512-token input) and each checkpoint's label.
2. Study 2: per dataset (fever, feverous, scifact) 2,000 claims x 2 models x 2 budgets x 2
   formats (8 comparisons per dataset, 5 seeds: one answer per seed and source); the evidence of
   each source and budget, shared by the models and formats: the units of the source's ordering
   of the claim's pool while they fit the budget (about 190 words short, 750 long, the 256 /
   1024-token budgets), so the short text is the start of the long one, as the budget rule makes
   it, and the two sources order one pool (they share units).

ITEMS is written whole (``write_table``), ITEM_TEXTS in row groups of 32,768 rows (``TableWriter``),
each grouped by comparison and item, as a batch writer would write them. The text is pseudo-English: words drawn from a Zipf law over a 40,000-word vocabulary, which
gzip compresses about 3 to 1, as it does English prose; every text is distinct across claims.

Measured: writing the page (``report.items_page.write_items_page``, in a child process; wall
time, the child's own peak RSS, ``memory.peak_rss``), its size, and in headless Chromium
(driven through the DevTools protocol over a pipe, so the times are the browser's own
``performance.now()``): the open (navigation start to the first comparison rendered: the page's
``#status`` ``data-open-ms``), a filter applied (gold label set in the URL fragment -> the view
rendered again), and, for information, switching to a Study 2 comparison and opening one item. Each browser measure runs ``--repeat`` times in a fresh
browser; the fastest is reported beside all. Targets: file < 30 MB, open <= 2 s, filter <= 2 s.

Run: OMP_NUM_THREADS=1 .venv/bin/python benchmarks/items_page.py   (options: --quick, --out,
--repeat, --keep DIR)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pyarrow as pa  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from account import cpu_pressure  # noqa: E402  (the account benchmark's CPU pressure reading)

from evidence_ledger.memory.peak_rss import peak_rss_mib  # noqa: E402
from evidence_ledger.report.item_links import items_href  # noqa: E402
from evidence_ledger.tables import TableWriter, write_table  # noqa: E402
from evidence_ledger.tables.items import ITEM_CELLS, ITEM_TEXTS, ITEMS  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TARGETS = {"size_mb": 30.0, "open_s": 2.0, "filter_s": 2.0}
LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
SCIFACT_LABELS = ("SUPPORT", "CONTRADICT", "NOINFO")
#: responses of at most 16 tokens (generation.max_new_tokens), as the models give them
CODE_RESPONSES = ("A", "B", "C", "A.", "B.", "C.", "Answer: A", "Answer: B", "Answer: C", "The answer is B.",
                  "A\n\nThe evidence supports the claim.", "C (not enough information)")
LABEL_RESPONSES = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO", "Supports", "Refutes.", "NOT ENOUGH INFO.",
                   "The claim is SUPPORTED.", "REFUTES\nThe evidence contradicts it.")


class Prose:
    """Pseudo-English words: a Zipf law (exponent 1.07) over ``size`` pseudo-words of 1-4 syllables."""

    def __init__(self, rng: np.random.Generator, size: int = 40_000):
        syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in ("a", "e", "i", "o", "u", "ai", "ou", "ea")]
        words: set[str] = set()
        while len(words) < size:
            words.add("".join(rng.choice(syllables, size=rng.choice([1, 1, 2, 2, 2, 3, 3, 4]))))
        self.words = np.array(sorted(words))
        rng.shuffle(self.words)
        weights = 1.0 / np.arange(1, size + 1) ** 1.07
        self.cumulative = np.cumsum(weights / weights.sum())

    def sentences(self, rng: np.random.Generator, count: int, low: int, high: int) -> list[str]:
        """``count`` sentences of ``low``..``high`` words."""
        lengths = rng.integers(low, high + 1, size=count)
        drawn = self.words[np.minimum(np.searchsorted(self.cumulative, rng.random(lengths.sum())),
                                      len(self.words) - 1)]
        out, start = [], 0
        for n in lengths.tolist():
            out.append(" ".join(drawn[start:start + n]).capitalize() + ".")
            start += n
        return out


def fitting(units: list[str], order: np.ndarray, words: int) -> str:
    """The units of ``order`` while their words fit ``words`` (the budget rule: stop at the first
    unit that would pass it), one a line."""
    kept, used = [], 0
    for u in order.tolist():
        n = units[u].count(" ") + 1
        if used + n > words:
            break
        kept.append(units[u])
        used += n
    return "\n".join(kept)


def claim_pool(prose: Prose, rng: np.random.Generator, units: int) -> list[str]:
    """A claim's candidate units: sentences of 5 pages, each line ``Title | sentence``."""
    titles = [t.replace(".", "").title() for t in prose.sentences(rng, 5, 1, 3)]
    return [f"{titles[rng.integers(0, 5)]} | {s}" for s in prose.sentences(rng, units, 12, 30)]


def orderings(rng: np.random.Generator, units: int) -> tuple[np.ndarray, np.ndarray]:
    """Two sources' orderings of one pool: the second is the first with each rank moved by noise
    (they share about half of their first 30 units)."""
    first = rng.permutation(units)
    second = first[np.argsort(np.arange(units) + rng.normal(0, units / 4, size=units), kind="stable")]
    return first, second


def item_columns(rng: np.random.Generator, n: int, runs: int, rates: tuple[float, float]) -> dict:
    """Per-item cells and shares of one comparison from per-run 0/1 answers and per-source
    eligibility shared by the runs (strict scores: ``T_ab`` = 100 x answer_a x eligible_b)."""
    answer = (rng.random((n, runs, 2)) < rates).astype(np.float64)
    eligible = (rng.random((n, 2)) < (0.45, 0.6)).astype(np.float64)
    per_run = {f"T{a}{b}": 100 * answer[:, :, a] * eligible[:, None, b] for a in (0, 1) for b in (0, 1)}
    t = {name: values.mean(axis=1) for name, values in per_run.items()}
    e0, a1, a0, e1 = t["T01"] - t["T00"], t["T11"] - t["T01"], t["T10"] - t["T00"], t["T11"] - t["T10"]
    chars = [np.where(v.min(axis=1) == 100, "1", np.where(v.max(axis=1) == 0, "0", "~")) for v in per_run.values()]
    columns = {"runs": np.full(n, runs), "answer_0": answer[:, :, 0].mean(axis=1),
               "answer_1": answer[:, :, 1].mean(axis=1), "eligible_0": eligible[:, 0], "eligible_1": eligible[:, 1],
               "evidence_0": np.full(n, np.nan), "evidence_1": np.full(n, np.nan), **t,
               "gain": t["T11"] - t["T00"], "E0": e0, "A1": a1, "A0": a0, "E1": e1, "interaction": e1 - e0,
               "pattern": np.char.add(np.char.add(chars[0], chars[1]), np.char.add(chars[2], chars[3])).tolist()}
    offsets = pa.array(np.arange(0, n * runs + 1, runs, dtype=np.int32))
    columns.update({f"run_{cell}": pa.ListArray.from_arrays(offsets, pa.array(per_run[cell].ravel()))
                    for cell in ITEM_CELLS})
    return columns


def comparison_table(fields: dict, ids: list[str], gold: list[str], columns: dict) -> pa.Table:
    n = len(ids)
    key = "/".join(fields[k] for k in ("study", "dataset", "system", "format", "parser", "budget"))
    data = {**{k: [v] * n for k, v in fields.items()}, "comparison": [key] * n, "item_id": ids, "family_id": ids,
            "gold": gold, **columns}
    return pa.table({name: data[name] for name in ITEMS.columns})


def text_rows(rows: dict, dataset: str, item: str, kind: str, text: str, system="", fmt="", source="", budget="",
              replicate=-1) -> None:
    for name, value in (("dataset", dataset), ("item_id", item), ("kind", kind), ("system", system),
                        ("format", fmt), ("source", source), ("budget", budget), ("replicate", replicate),
                        ("text", text)):
        rows[name].append(value)


def write_study1(root: Path, prose: Prose, rng: np.random.Generator, claims: int) -> dict:
    """Study 1's ITEMS and ITEM_TEXTS under ``root/study1``; counts of what was written."""
    ids = [f"feverous-{k:05d}" for k in range(claims)]
    gold = [LABELS[g] for g in rng.integers(0, 3, size=claims)]
    fields = {"study": "study1", "dataset": "feverous", "system": "verifier", "format": "verifier",
              "parser": "none", "budget": "full", "source0": "retrieval_bm25", "source1": "provider"}
    table = comparison_table(fields, ids, gold, item_columns(rng, claims, 4, (0.62, 0.68)))
    texts = {name: [] for name in ITEM_TEXTS.columns}
    claim_texts = prose.sentences(rng, claims, 8, 25)
    for k, item in enumerate(ids):
        text_rows(texts, "feverous", item, "claim", claim_texts[k])
        pool = claim_pool(prose, rng, 40)
        for source, order in zip((fields["source0"], fields["source1"]), orderings(rng, 40)):
            text_rows(texts, "feverous", item, "evidence", fitting(pool, order, 380), source=source, budget="full")
            for checkpoint, label in enumerate(rng.integers(0, 3, size=4).tolist()):
                text_rows(texts, "feverous", item, "answer", LABELS[label], system="verifier", fmt="verifier",
                          source=source, budget="full", replicate=checkpoint)
    (root / "study1").mkdir(parents=True, exist_ok=True)
    write_table(table, root / "study1" / "items.parquet", ITEMS)
    with TableWriter(root / "study1" / "item_texts.parquet", ITEM_TEXTS) as writer:  # row groups of 32,768 rows
        writer.write_columns(texts)
    return {"comparisons": 1, "items": table.num_rows, "text_rows": len(texts["text"])}


def write_study2(root: Path, prose: Prose, rng: np.random.Generator, claims: int) -> dict:
    """Study 2's ITEMS (every cell set in one file) and ITEM_TEXTS under ``root/study2``."""
    parts, texts, comparisons = [], {name: [] for name in ITEM_TEXTS.columns}, 0
    cells = [(system, budget, fmt) for system in ("qwen3", "llama3") for budget in ("short", "long")
             for fmt in ("codes", "labels")]
    for dataset in ("fever", "feverous", "scifact"):
        labels = SCIFACT_LABELS if dataset == "scifact" else LABELS
        ids = [f"{dataset}-{k:05d}" for k in range(claims)]
        gold = [labels[g] for g in rng.integers(0, 3, size=claims)]
        for system, budget, fmt in cells:
            fields = {"study": "study2", "dataset": dataset, "system": system, "format": fmt, "parser": "strict",
                      "budget": budget, "source0": "bm25", "source1": "bge"}
            parts.append(comparison_table(fields, ids, gold, item_columns(rng, claims, 5, (0.55, 0.62))))
            comparisons += 1
        claim_texts = prose.sentences(rng, claims, 8, 25)
        for k, item in enumerate(ids):
            text_rows(texts, dataset, item, "claim", claim_texts[k])
            pool = claim_pool(prose, rng, 60)
            for source, order in zip(("bm25", "bge"), orderings(rng, 60)):
                for budget, words in (("short", 190), ("long", 750)):
                    text_rows(texts, dataset, item, "evidence", fitting(pool, order, words), source=source,
                              budget=budget)
            for system, budget, fmt in cells:
                responses = CODE_RESPONSES if fmt == "codes" else LABEL_RESPONSES
                for source in ("bm25", "bge"):
                    for seed, r in enumerate(rng.integers(0, len(responses), size=5).tolist(), start=1):
                        text_rows(texts, dataset, item, "answer", responses[r], system=system, fmt=fmt,
                                  source=source, budget=budget, replicate=seed)
    (root / "study2").mkdir(parents=True, exist_ok=True)
    items = pa.concat_tables(parts)
    write_table(items, root / "study2" / "items.parquet", ITEMS)
    with TableWriter(root / "study2" / "item_texts.parquet", ITEM_TEXTS) as writer:  # row groups of 32,768 rows
        writer.write_columns(texts)
    return {"comparisons": comparisons, "items": items.num_rows, "text_rows": len(texts["text"])}


def write_world(root: Path, study1_claims: int, study2_claims: int, seed: int = 2026) -> dict:
    """Both studies' tables under ``root``; what each holds, and the text bytes."""
    rng = np.random.default_rng(seed)
    prose = Prose(rng)
    world = {"study1": write_study1(root, prose, rng, study1_claims),
             "study2": write_study2(root, prose, rng, study2_claims)}
    for study in world:
        world[study]["parquet_mb"] = round(sum((root / study / f).stat().st_size
                                               for f in ("items.parquet", "item_texts.parquet")) / 1e6, 2)
    return world


class DevTools:
    """A headless Chromium driven through the DevTools protocol over a pipe (``--remote-debugging-pipe``:
    the browser reads commands on fd 3 and writes replies on fd 4, each a JSON text ended by NUL)."""

    def __init__(self, binary: str):
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()

        def browser_fds():
            os.dup2(to_browser, 3)
            os.dup2(from_browser, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.profile = tempfile.mkdtemp(prefix="items-page-chromium-")
        self.process = subprocess.Popen([binary, "--headless", "--no-sandbox", "--disable-gpu",
                                         "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
                                         "about:blank"], preexec_fn=browser_fds, close_fds=False,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next = b"", 0
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def call(self, method: str, session: str | None = None, **params) -> dict:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise RuntimeError("the browser closed its pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", self.session, expression=expression, awaitPromise=True,
                           returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.close(self._write)
        os.close(self._read)
        shutil.rmtree(self.profile, ignore_errors=True)


def wait_ready(browser: DevTools, renders: int = 1, timeout_s: float = 120.0) -> dict:
    """``#status``'s data once the page has rendered ``renders`` times and is ready."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        status = browser.evaluate("(() => { const s = document.getElementById('status'); "
                                  "return s ? Object.assign({}, s.dataset) : null; })()")
        if status and status.get("state") == "error":
            raise RuntimeError(f"the page failed: {status}")
        if status and status.get("state") == "ready" and int(status.get("renders", 0)) >= renders:
            return status
        time.sleep(0.02)
    raise RuntimeError("the page did not render in time")


def rendered_after(browser: DevTools, fragment: str) -> float:
    """Seconds from setting the URL's fragment to ``fragment`` to the view rendered again (the
    page's ``performance.now()``)."""
    return browser.evaluate(
        "new Promise((resolve) => { const s = document.getElementById('status'); const before = s.dataset.renders; "
        "const t0 = performance.now(); const seen = new MutationObserver(() => { if (s.dataset.renders !== before "
        "&& s.dataset.state === 'ready') { seen.disconnect(); resolve((performance.now() - t0) / 1000); } }); "
        f"seen.observe(s, {{attributes: true}}); location.hash = {json.dumps(fragment)}; }})")


def browser_times(binary: str, page: Path, first: str, study2: str) -> dict:
    """One fresh browser: open the page on comparison ``first``, apply a gold filter, switch to
    comparison ``study2``, open its first listed item."""
    browser = DevTools(binary)
    try:
        url = page.resolve().as_uri() + "#" + items_href(first).split("#", 1)[1] + "&component=E0"
        started = time.monotonic()
        browser.call("Page.navigate", browser.session, url=url)
        status = wait_ready(browser)
        outside = time.monotonic() - started
        filtered = "#" + url.split("#", 1)[1] + "&gold=REFUTES"
        filter_s = rendered_after(browser, filtered)
        counts = browser.evaluate("Object.fromEntries([...document.querySelectorAll('section.group')]"
                                  ".map((s) => [s.dataset.group, Number(s.dataset.count)]))")
        switch_s = rendered_after(browser, "#" + items_href(study2).split("#", 1)[1] + "&component=E0")
        item = browser.evaluate("document.querySelector('section.group tbody tr').dataset.item")
        item_s = rendered_after(browser, "#" + items_href(study2).split("#", 1)[1] + f"&component=E0&item={item}")
        return {"open_s": float(status["openMs"]) / 1000, "open_polled_s": round(outside, 3), "filter_s": filter_s,
                "filtered_groups": counts, "switch_to_study2_s": switch_s, "open_item_s": item_s}
    finally:
        browser.close()


def build_page(root: Path) -> dict:
    """The page of both studies (``root/report/items.html``), built in a child process (its own
    peak RSS); time and size."""
    code = ("import sys, time; from pathlib import Path; "
            "from evidence_ledger.memory.peak_rss import peak_rss_mib; "
            "from evidence_ledger.report.items_page import write_items_page; root = Path(sys.argv[1]); "
            "t = time.perf_counter(); write_items_page(items=[root / s / 'items.parquet' for s in ('study1', 'study2')], "
            "item_texts=[root / s / 'item_texts.parquet' for s in ('study1', 'study2')], "
            "html_out=root / 'report' / 'items.html'); "
            "print(time.perf_counter() - t, peak_rss_mib())")
    out = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=True)
    wall, rss_mib = out.stdout.split()
    page = root / "report" / "items.html"
    return {"build_s": round(float(wall), 2), "build_peak_rss_mib": round(float(rss_mib), 1),
            "size_mb": round(page.stat().st_size / 1e6, 2)}


def markdown(result: dict) -> str:
    m, w, p = result["machine"], result["world"], result["page"]
    lines = ["# Item explorer benchmark", "",
             f"Machine: {m['cpus']} CPUs, Python {m['python']}, {m['platform']}, {m['chromium']}; load average "
             f"{result['load_average_before']:.2f} before, {result['load_average_after']:.2f} after; CPU pressure "
             f"(PSI some avg60) {result.get('cpu_pressure_before')}% before, {result.get('cpu_pressure_after')}% after "
             "(0 on an idle machine).", "",
             "| study | comparisons | items | text rows | Parquet MB |", "|---|---|---|---|---|"]
    for study in ("study1", "study2"):
        s = w[study]
        lines.append(f"| {study} | {s['comparisons']} | {s['items']:,} | {s['text_rows']:,} | {s['parquet_mb']} |")
    times = result["browser"]

    def measure(name: str) -> str:
        values = [run[name] for run in times]
        return f"{min(values):.3f} ({', '.join(f'{v:.3f}' for v in values)})"

    met = result["met"]
    lines += ["", "| measure | value | target |", "|---|---|---|",
              f"| page size MB | {p['size_mb']} | < {TARGETS['size_mb']:g} ({'met' if met['size_mb'] else 'missed'}) |",
              f"| open s, fastest (all) | {measure('open_s')} | <= {TARGETS['open_s']:g} "
              f"({'met' if met['open_s'] else 'missed'}) |",
              f"| filter s, fastest (all) | {measure('filter_s')} | <= {TARGETS['filter_s']:g} "
              f"({'met' if met['filter_s'] else 'missed'}) |",
              f"| switch to a Study 2 comparison s | {measure('switch_to_study2_s')} | – |",
              f"| open an item s | {measure('open_item_s')} | – |",
              f"| page written s (peak RSS MiB) | {p['build_s']} ({p['build_peak_rss_mib']}) | – |"]
    return "\n".join(lines) + "\n"


def write_results(out: Path, result: dict, report: str) -> None:
    """``result`` as ``out``.json and ``report`` as ``out``.md (``out``: the results path without extension)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(report, encoding="utf-8")


def chromium_binary() -> str | None:
    return next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the claims (a smoke run, not the targets)")
    parser.add_argument("--repeat", type=int, default=3, help="browser runs (default 3)")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "items_page"),
                        help="results path without extension (.json and .md are written)")
    parser.add_argument("--keep", default=None, help="build in this directory and keep it (default: a temporary one)")
    args = parser.parse_args(argv)
    binary = chromium_binary()
    if binary is None:
        print("no chromium / chromium-browser / google-chrome on PATH", file=sys.stderr)
        return 2
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    result = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
                          "chromium": version, "omp_num_threads": os.environ.get("OMP_NUM_THREADS")},
              "load_average_before": os.getloadavg()[0], "cpu_pressure_before": cpu_pressure(),
              "quick": args.quick}
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="items-page-"))
    try:
        scale = 10 if args.quick else 1
        started = time.perf_counter()
        result["world"] = write_world(root, 7890 // scale, 2000 // scale)
        result["world"]["written_s"] = round(time.perf_counter() - started, 1)
        result["page"] = build_page(root)
        result["browser"] = [browser_times(binary, root / "report" / "items.html", "study1/feverous/verifier/verifier/none/full",
                                           "study2/fever/qwen3/codes/strict/long") for _ in range(args.repeat)]
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    result["met"] = {"size_mb": result["page"]["size_mb"] < TARGETS["size_mb"],
                     "open_s": min(r["open_s"] for r in result["browser"]) <= TARGETS["open_s"],
                     "filter_s": min(r["filter_s"] for r in result["browser"]) <= TARGETS["filter_s"]}
    result.update(load_average_after=os.getloadavg()[0], cpu_pressure_after=cpu_pressure(),
                  peak_rss_mib_benchmark=round(peak_rss_mib(), 1))
    write_results(Path(args.out), result, markdown(result))
    print(markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
