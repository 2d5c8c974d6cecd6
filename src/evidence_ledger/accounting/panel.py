"""Count panels: indicator tables -> per-cluster integer count arrays, and back.

In:  ANSWER_INDICATORS, EVIDENCE_INDICATORS and RELEVANT frames (``tables.scoring``), claim
     FAMILIES (``tables.sampling``) and CLUSTER_COUNTS rows (``tables.accounting``).
Out: :class:`CountPanel` objects -- ``num[k, r, f, a, u, b, v]`` numerator and
     ``den[k, r, f, a, u]`` denominator counts per unit ``k`` (claim or claim family) --,
     their long CLUSTER_COUNTS rows, the per-claim factorised indicators of a strict-metric
     panel (:class:`ClaimIndicators`) and the identical-answer mask of two sources.

Every metric is a ratio of summed counts (integers; KILT's numerators are floats), so estimates (``estimates``) and the
bootstrap (``intervals``) recompute any estimand from the same arrays:

The metric of a dataset is its ``benchmark_registry`` entry's:

* FEVER / FEVEROUS (``metric='strict'``): ``T_ab = 100 * sum_i correct_a[i] * eligible_b[i] / N``.
* KILT (``metric='kilt'``, the ``account kilt`` command and config ``external.kilt``):
  ``T_ab = 100 * sum_i metric_a[i] * [rprec_b[i] = 1] / N``, the official KILT-<metric> of run
  ``a``'s answers with run ``b``'s provenance; the answer metric (F1, ROUGE-L) is continuous, so
  the numerators are float64, carried as they are (no rounding, no thresholding).
* SciFact (``metric='f1'``): ``T_ab = 100 * 2 C_ab / (P_a + R)`` with ``C_ab`` the sum over
  (claim, abstract) of ``label_correct_a * eligible_b``, ``P_a`` the submitted abstracts,
  ``R`` the gold relevant abstracts (never-retrieved ones included). Corpus totals, never
  per-claim F1 averages.

A panel cell is ``(format, answer_source a, answer_budget u, evidence_source b,
evidence_budget v)``; Study 1 has one format (``verifier``) and budget (``full``); Study 2
crosses budgets, so ``T_ab(u, v)`` for ``u != v`` comes from the same arrays.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..benchmark_registry import get_benchmark
from ..errors import InputError
from ..vocabulary import INVALID
from .metrics import METRIC_MULTIPLIER, is_continuous


def claim_sort_key(claim_id: str):
    """Numeric ids in numeric order, then other ids lexicographically."""
    return (0, int(claim_id), "") if claim_id.isdigit() else (1, 0, claim_id)


def sort_claims(ids: Iterable[str]) -> list[str]:
    return sorted(set(ids), key=claim_sort_key)


def metric_for(dataset: str) -> str:
    """The accounting metric of a registered benchmark (``benchmark_registry``): 'strict'
    (FEVER, FEVEROUS) or 'f1' (SciFact); an unregistered name raises ``ValueError``."""
    return get_benchmark(dataset).metric


@dataclass
class CountPanel:
    """Integer count arrays of one (dataset, system) panel.

    ``num[k, r, f, a, u, b, v]``: numerator counts of unit ``k`` (claim or family) for
    replicate ``r`` (strictly correct claims / correct+rationalised abstracts).
    ``den[k, r, f, a, u]``: denominator counts (N claims, or P_a + R).
    Axis labels are kept so cells can be addressed by name.
    """

    dataset: str
    system: str
    metric: str
    units: list[str]
    replicates: list[int]
    formats: list[str]
    sources: list[str]
    answer_budgets: list[str]
    evidence_budgets: list[str]
    num: np.ndarray
    den: np.ndarray
    coverage: dict = field(default_factory=dict)

    @property
    def multiplier(self) -> int:
        return METRIC_MULTIPLIER[self.metric]

    def replicate_index(self, replicates: Sequence[int]) -> list[int]:
        missing = [r for r in replicates if r not in self.replicates]
        if missing:
            raise ValueError(f"panel {self.dataset}/{self.system} has no replicates {missing}")
        return [self.replicates.index(r) for r in replicates]

    def totals(self, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Corpus totals (int64). ``mask`` (units, R, F, U) bool restricts the numerators only,
        so contributions keep the full denominator."""
        den = self.den.sum(axis=0)
        if mask is None:
            return self.num.sum(axis=0), den
        m = mask[:, :, :, None, :, None, None]
        return np.where(m, self.num, 0).sum(axis=0), den

    def subset(self, keep: np.ndarray) -> "CountPanel":
        """A panel restricted to the units where ``keep`` is True (denominators restricted too)."""
        return CountPanel(self.dataset, self.system, self.metric, [u for u, k in zip(self.units, keep) if k],
                          self.replicates, self.formats, self.sources, self.answer_budgets,
                          self.evidence_budgets, self.num[keep], self.den[keep], dict(self.coverage))


def check_unique_keys(frame: pd.DataFrame, keys: list[str], path: str) -> None:
    dup = frame.duplicated(keys, keep=False)
    if dup.any():
        first = frame.loc[dup, keys].iloc[0].to_dict()
        raise InputError(path, None, "claim_id",
                         f"{int(dup.sum())} rows share their key {keys}; first: {first}")


def level_codes(values: pd.Series, levels: Sequence, path: str, field_name: str) -> np.ndarray:
    lookup = {lvl: i for i, lvl in enumerate(levels)}
    codes = values.map(lookup)
    if codes.isna().any():
        bad = values[codes.isna()].iloc[0]
        raise InputError(path, None, field_name, f"value {bad!r} is not one of {list(levels)}")
    return codes.to_numpy(dtype=np.int64)


def build_claim_panel(
    answers: pd.DataFrame,
    evidence: pd.DataFrame,
    relevant: pd.DataFrame,
    *,
    dataset: str,
    system: str,
    parser: str,
    formats: Sequence[str],
    sources: Sequence[str],
    answer_budgets: Sequence[str],
    evidence_budgets: Sequence[str],
    replicates: Sequence[int],
    metric: str | None = None,
    paths: Mapping[str, str] | None = None,
) -> CountPanel:
    """Per-claim count arrays for one panel.

    Rows of ``answers`` / ``evidence`` outside the panel grid (other datasets, systems,
    parsers, control sources, ...) are not used; how many were left out is recorded in
    ``panel.coverage``. A (claim, doc) answered but lacking an evidence row for some
    evidence source x budget is scored as not eligible and counted
    (``answer_pairs_missing_evidence``). FEVER/FEVEROUS need exactly one answer row per
    claim and cell (otherwise ``InputError``); SciFact claims without answer rows contribute
    only their relevant abstracts to R.
    """
    paths = dict(paths or {})
    apath, epath, rpath = (paths.get(k, k) for k in ("answers", "evidence", "relevant"))
    metric = metric or metric_for(dataset)
    rel = relevant[relevant["dataset"] == dataset]
    check_unique_keys(rel, ["claim_id"], rpath)
    units = sort_claims(rel["claim_id"])
    if not units:
        raise InputError(rpath, None, "dataset", f"no claims for dataset {dataset!r}")
    pos = {c: i for i, c in enumerate(units)}
    n_rel = rel.set_index("claim_id")["n_relevant"].reindex(units).to_numpy(dtype=np.int64)

    ans_all = answers[(answers["dataset"] == dataset) & (answers["system"] == system) & (answers["parser"] == parser)]
    in_grid = (ans_all["format"].isin(formats) & ans_all["answer_source"].isin(sources)
               & ans_all["answer_budget"].isin(answer_budgets) & ans_all["replicate"].isin(replicates))
    ans = ans_all[in_grid]
    if ans.empty:
        raise InputError(apath, None, "system",
                         f"no answer rows for dataset={dataset!r} system={system!r} parser={parser!r} in the grid")
    check_unique_keys(ans, ["claim_id", "doc_id", "format", "answer_source", "answer_budget", "replicate"], apath)
    unknown = ~ans["claim_id"].isin(pos)
    if unknown.any():
        raise InputError(apath, None, "claim_id",
                         f"{int(unknown.sum())} answer rows name claims absent from {rpath}; "
                         f"first: {ans.loc[unknown, 'claim_id'].iloc[0]!r}")
    ev_all = evidence[evidence["dataset"] == dataset]
    ev = ev_all[ev_all["evidence_source"].isin(sources) & ev_all["evidence_budget"].isin(evidence_budgets)]
    check_unique_keys(ev, ["claim_id", "doc_id", "evidence_source", "evidence_budget"], epath)

    K, R, F, A, U, B, V = (len(units), len(replicates), len(formats), len(sources), len(answer_budgets),
                           len(sources), len(evidence_budgets))
    k = ans["claim_id"].map(pos).to_numpy(dtype=np.int64)
    r = level_codes(ans["replicate"], list(replicates), apath, "replicate")
    f = level_codes(ans["format"], formats, apath, "format")
    a = level_codes(ans["answer_source"], sources, apath, "answer_source")
    u = level_codes(ans["answer_budget"], answer_budgets, apath, "answer_budget")
    answer_cell = ((((k * R + r) * F + f) * A + a) * U + u)

    # denominators
    if metric == "strict":
        per_cell = np.bincount(answer_cell, minlength=K * R * F * A * U)
        if (per_cell != 1).any():
            bad = int((per_cell != 1).sum())
            idx = int(np.flatnonzero(per_cell != 1)[0])
            raise InputError(apath, None, "claim_id",
                             f"{bad} claim x cell combinations lack their single answer row "
                             f"(first claim {units[idx // (R * F * A * U)]!r}); every population claim "
                             f"needs an answer for every format, source, budget and replicate")
        den = per_cell.reshape(K, R, F, A, U).astype(np.int64)
    else:
        submitted = ans["submitted"].to_numpy(dtype=np.int64)
        den = np.bincount(answer_cell, weights=submitted, minlength=K * R * F * A * U)
        den = np.rint(den).astype(np.int64).reshape(K, R, F, A, U) + n_rel[:, None, None, None, None]

    # numerators: correct answers x eligible evidence on the same (claim, doc)
    correct = ans[ans["label_correct"].to_numpy(dtype=bool)]
    ck = correct[["claim_id", "doc_id"]].assign(cell=answer_cell[ans["label_correct"].to_numpy(dtype=bool)])
    evk = ev[["claim_id", "doc_id", "evidence_source", "evidence_budget", "eligible"]]
    merged = ck.merge(evk[evk["eligible"].to_numpy(dtype=bool)], on=["claim_id", "doc_id"], how="inner")
    b = level_codes(merged["evidence_source"], sources, epath, "evidence_source")
    v = level_codes(merged["evidence_budget"], evidence_budgets, epath, "evidence_budget")
    full = (merged["cell"].to_numpy(dtype=np.int64) * B + b) * V + v
    num = np.bincount(full, minlength=K * R * F * A * U * B * V).astype(np.int64).reshape(K, R, F, A, U, B, V)

    pairs = ans[["claim_id", "doc_id"]].drop_duplicates()
    have = pairs.merge(ev[["claim_id", "doc_id"]], on=["claim_id", "doc_id"], how="left", indicator=True)
    per_pair = have[have["_merge"] == "both"].groupby(["claim_id", "doc_id"]).size()
    missing_pairs = int(len(pairs) * B * V - per_pair.sum())
    answered = set(ans["claim_id"])
    coverage = {
        "population_claims": K,
        "answer_rows_used": int(len(ans)),
        "answer_rows_outside_grid": int((~in_grid).sum()),
        "evidence_rows_used": int(len(ev)),
        "evidence_rows_outside_grid": int(len(ev_all) - len(ev)),
        "answer_pairs": int(len(pairs)),
        "answer_pairs_missing_evidence": missing_pairs,
        "claims_without_answers": int(sum(1 for c in units if c not in answered)),
    }
    return CountPanel(dataset, system, metric, units, list(replicates), list(formats), list(sources),
                      list(answer_budgets), list(evidence_budgets), num, den, coverage)


def aggregate_to_families(panel: CountPanel, families: pd.DataFrame, path: str = "families") -> CountPanel:
    """Sum a claim panel's counts within claim families (the Study 2 resampling unit).

    Every population claim needs a family row (``InputError`` otherwise); family rows of
    claims outside the population are ignored (counted in coverage)."""
    fam = families[families["dataset"] == panel.dataset]
    check_unique_keys(fam, ["claim_id"], path)
    lookup = fam.set_index("claim_id")["family_id"]
    fam_of = lookup.reindex(panel.units)
    if fam_of.isna().any():
        raise InputError(path, None, "claim_id",
                         f"{int(fam_of.isna().sum())} population claims have no family; "
                         f"first: {fam_of.index[fam_of.isna()][0]!r}")
    fam_ids = sort_claims(fam_of)
    fpos = {x: i for i, x in enumerate(fam_ids)}
    idx = fam_of.map(fpos).to_numpy(dtype=np.int64)
    num = np.zeros((len(fam_ids),) + panel.num.shape[1:], dtype=panel.num.dtype)
    den = np.zeros((len(fam_ids),) + panel.den.shape[1:], dtype=np.int64)
    np.add.at(num, idx, panel.num)
    np.add.at(den, idx, panel.den)
    coverage = dict(panel.coverage, families=len(fam_ids),
                    family_rows_outside_population=int(len(fam) - fam["claim_id"].isin(panel.units).sum()))
    return CountPanel(panel.dataset, panel.system, panel.metric, fam_ids, panel.replicates, panel.formats,
                      panel.sources, panel.answer_budgets, panel.evidence_budgets, num, den, coverage)


def panel_to_frame(panel: CountPanel, *, study: str, population: str, parser: str) -> pd.DataFrame:
    """Long CLUSTER_COUNTS rows of a panel (units x replicates x statistics)."""
    K, R, F, A, U, B, V = panel.num.shape
    parts = []
    grid = np.array(np.meshgrid(np.arange(F), np.arange(A), np.arange(U), np.arange(B), np.arange(V),
                                indexing="ij")).reshape(5, -1)
    n_num = grid.shape[1]
    dgrid = np.array(np.meshgrid(np.arange(F), np.arange(A), np.arange(U), indexing="ij")).reshape(3, -1)
    n_den = dgrid.shape[1]
    unit = np.repeat(np.arange(K), R * (n_num + n_den))
    rep = np.tile(np.repeat(np.arange(R), n_num + n_den), K)
    stat = np.tile(np.arange(n_num + n_den), K * R)
    values = np.concatenate([panel.num.reshape(K, R, n_num), panel.den.reshape(K, R, n_den)], axis=2).ravel()
    is_num = stat < n_num
    si = np.where(is_num, stat, 0)
    di = np.where(is_num, 0, stat - n_num)
    fmt = np.where(is_num, grid[0][si], dgrid[0][di])
    asrc = np.where(is_num, grid[1][si], dgrid[1][di])
    abud = np.where(is_num, grid[2][si], dgrid[2][di])
    lab = lambda levels, codes: np.asarray(levels, dtype=object)[codes]
    frame = pd.DataFrame({
        "study": study, "population": population, "dataset": panel.dataset, "system": panel.system,
        "parser": parser, "metric": panel.metric,
        "cluster_id": pd.Categorical.from_codes(unit, categories=panel.units),
        "replicate": np.asarray(panel.replicates, dtype=np.int64)[rep],
        "kind": np.where(is_num, "C", "D"),
        "format": lab(panel.formats, fmt), "answer_source": lab(panel.sources, asrc),
        "answer_budget": lab(panel.answer_budgets, abud),
        "evidence_source": np.where(is_num, lab(panel.sources, grid[3][si]), ""),
        "evidence_budget": np.where(is_num, lab(panel.evidence_budgets, grid[4][si]), ""),
        "value": values if is_continuous(panel.num) else values.astype(np.int64),
    })
    parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def panel_from_frame(frame: pd.DataFrame, *, formats, sources, answer_budgets, evidence_budgets, replicates,
                     path: str = "counts") -> CountPanel:
    """Rebuild one panel from its CLUSTER_COUNTS rows (one dataset x system x population)."""
    if frame.empty:
        raise InputError(path, None, "dataset", "no count rows for this panel")
    for col in ("dataset", "system", "metric"):
        if frame[col].nunique() != 1:
            raise InputError(path, None, col, "count rows of several panels passed as one")
    units = sort_claims(frame["cluster_id"].astype(str))
    upos = {c: i for i, c in enumerate(units)}
    K, R, F, A, U, B, V = (len(units), len(replicates), len(formats), len(sources), len(answer_budgets),
                           len(sources), len(evidence_budgets))
    continuous = is_continuous(frame["value"].to_numpy())
    num = np.zeros((K, R, F, A, U, B, V), dtype=np.float64 if continuous else np.int64)
    den = np.zeros((K, R, F, A, U), dtype=np.int64)
    sub = frame[frame["replicate"].isin(replicates)]
    k = sub["cluster_id"].astype(str).map(upos).to_numpy(dtype=np.int64)
    r = level_codes(sub["replicate"], list(replicates), path, "replicate")
    is_c = (sub["kind"] == "C").to_numpy()
    f = level_codes(sub["format"], formats, path, "format")
    a = level_codes(sub["answer_source"], sources, path, "answer_source")
    u = level_codes(sub["answer_budget"], answer_budgets, path, "answer_budget")
    val = sub["value"].to_numpy(dtype=np.float64 if continuous else np.int64)
    cs = sub[is_c]
    b = level_codes(cs["evidence_source"], sources, path, "evidence_source")
    v = level_codes(cs["evidence_budget"], evidence_budgets, path, "evidence_budget")
    num[k[is_c], r[is_c], f[is_c], a[is_c], u[is_c], b, v] = val[is_c]
    den[k[~is_c], r[~is_c], f[~is_c], a[~is_c], u[~is_c]] = val[~is_c].astype(np.int64)
    return CountPanel(str(frame["dataset"].iat[0]), str(frame["system"].iat[0]), str(frame["metric"].iat[0]),
                      units, list(replicates), list(formats), list(sources), list(answer_budgets),
                      list(evidence_budgets), num, den)


@dataclass
class ClaimIndicators:
    """Per-claim 0/1 arrays of a strict-metric panel: ``correct[k, r, a]``, ``eligible[k, r, b]``,
    predicted labels ``predicted[k, r, a]`` and ``gold[k]``. Evidence may differ between
    replicates (the runs of an outside system, each with its own cited evidence); the pipeline's
    Study 1 evidence is one provider list per source, the same in every checkpoint."""

    units: list[str]
    replicates: list[int]
    sources: list[str]
    correct: np.ndarray
    eligible: np.ndarray
    predicted: np.ndarray
    gold: np.ndarray
    unresolved: np.ndarray  # (k,) bool: any unresolved unit under either source


def claim_indicators(answers: pd.DataFrame, evidence: pd.DataFrame, panel: CountPanel, *, parser: str,
                     paths: Mapping[str, str] | None = None) -> ClaimIndicators:
    """Factorised per-claim indicators for a strict-metric, single format/budget panel."""
    if panel.metric != "strict":
        raise ValueError("per-claim factorised indicators need a strict (FEVER/FEVEROUS) panel")
    paths = dict(paths or {})
    pos = {c: i for i, c in enumerate(panel.units)}
    K, R, A = len(panel.units), len(panel.replicates), len(panel.sources)
    ans = answers[(answers["dataset"] == panel.dataset) & (answers["system"] == panel.system)
                  & (answers["parser"] == parser) & answers["format"].isin(panel.formats[:1])
                  & answers["answer_budget"].isin(panel.answer_budgets[:1])
                  & answers["answer_source"].isin(panel.sources) & answers["replicate"].isin(panel.replicates)]
    k = ans["claim_id"].map(pos).to_numpy(dtype=np.int64)
    r = level_codes(ans["replicate"], panel.replicates, paths.get("answers", "answers"), "replicate")
    a = level_codes(ans["answer_source"], panel.sources, paths.get("answers", "answers"), "answer_source")
    correct = np.zeros((K, R, A), dtype=np.int64)
    correct[k, r, a] = ans["label_correct"].to_numpy(dtype=np.int64)
    predicted = np.full((K, R, A), "", dtype=object)
    predicted[k, r, a] = ans["predicted_label"].to_numpy(dtype=object)
    gold = np.full(K, "", dtype=object)
    gold[k] = ans["gold_label"].to_numpy(dtype=object)
    ev = evidence[(evidence["dataset"] == panel.dataset) & evidence["evidence_source"].isin(panel.sources)
                  & evidence["evidence_budget"].isin(panel.evidence_budgets[:1]) & evidence["claim_id"].isin(pos)]
    ek = ev["claim_id"].map(pos).to_numpy(dtype=np.int64)
    eb = level_codes(ev["evidence_source"], panel.sources, paths.get("evidence", "evidence"), "evidence_source")
    eligible = np.zeros((K, A), dtype=np.int64)
    eligible[ek, eb] = ev["eligible"].to_numpy(dtype=np.int64)
    unresolved = np.zeros(K, dtype=bool)
    np.logical_or.at(unresolved, ek, ev["unresolved"].to_numpy() > 0)
    eligible = np.ascontiguousarray(np.broadcast_to(eligible[:, None, :], (K, R, A)))
    return ClaimIndicators(panel.units, panel.replicates, panel.sources, correct, eligible, predicted, gold,
                           unresolved)


def identical_answer_mask(answers: pd.DataFrame, panel: CountPanel, *, parser: str) -> np.ndarray:
    """(units=claims, R, F, U) bool: the two sources' answers are identical and valid for the
    claim (SciFact: every answered abstract has the same valid label under both sources)."""
    pos = {c: i for i, c in enumerate(panel.units)}
    ans = answers[(answers["dataset"] == panel.dataset) & (answers["system"] == panel.system)
                  & (answers["parser"] == parser) & answers["format"].isin(panel.formats)
                  & answers["answer_source"].isin(panel.sources[:2]) & answers["answer_budget"].isin(panel.answer_budgets)
                  & answers["replicate"].isin(panel.replicates)]
    ans = ans.sort_values(["claim_id", "format", "answer_budget", "replicate", "answer_source", "doc_id"], kind="stable")
    key = ans["doc_id"].astype(str) + "=" + ans["predicted_label"].astype(str)
    grouped = (ans.assign(key=key, invalid=ans["predicted_label"] == INVALID)
               .groupby(["claim_id", "replicate", "format", "answer_budget", "answer_source"], sort=False)
               .agg(keys=("key", lambda s: "|".join(s)), invalid=("invalid", "any")).reset_index())
    wide = grouped.pivot_table(index=["claim_id", "replicate", "format", "answer_budget"], columns="answer_source",
                               values=["keys", "invalid"], aggfunc="first")
    s0, s1 = panel.sources[0], panel.sources[1]
    same = (wide[("keys", s0)] == wide[("keys", s1)]) & ~wide[("invalid", s0)].astype(bool) \
        & ~wide[("invalid", s1)].astype(bool)
    mask = np.zeros((len(panel.units), len(panel.replicates), len(panel.formats), len(panel.answer_budgets)), dtype=bool)
    idx = same.index.to_frame(index=False)
    k = idx["claim_id"].map(pos).to_numpy(dtype=np.int64)
    r = idx["replicate"].map({x: i for i, x in enumerate(panel.replicates)}).to_numpy(dtype=np.int64)
    f = idx["format"].map({x: i for i, x in enumerate(panel.formats)}).to_numpy(dtype=np.int64)
    u = idx["answer_budget"].map({x: i for i, x in enumerate(panel.answer_budgets)}).to_numpy(dtype=np.int64)
    mask[k, r, f, u] = same.fillna(False).to_numpy(dtype=bool)
    return mask


def replicate_subpanel(panel: CountPanel, replicates: Sequence[int]) -> CountPanel:
    """The panel restricted to ``replicates`` (in that order); coverage is not carried over."""
    return CountPanel(panel.dataset, panel.system, panel.metric, panel.units, replicates, panel.formats,
                      panel.sources, panel.answer_budgets, panel.evidence_budgets,
                      panel.num[:, panel.replicate_index(replicates)],
                      panel.den[:, panel.replicate_index(replicates)])
