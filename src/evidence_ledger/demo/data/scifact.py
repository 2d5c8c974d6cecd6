"""SciFact-style demo data: an invented biomedical literature (compounds, genes, conditions).

In:  nothing but the seeded streams of :func:`.world.rng_for` (this world is separate from Varenholm).
Out: ``scifact/corpus.jsonl``, ``scifact/claims_dev.jsonl``, ``scifact/claims_train.jsonl``
     in the official release format.
"""
from __future__ import annotations

from pathlib import Path

from .world import rng_for, write_jsonl


SCI_AGENTS = ["halvostatin", "meridoxin", "tervaline", "oxapremide", "cadrolimus", "vensotinib", "lirapant",
              "osselamine", "quendazole", "brivarexin", "pellotide", "marizumab", "fennorol", "daskacept",
              "skelbamide", "grelitamab", "holtrazine", "tamsivir", "varnicline", "orroxetine"]
# gene symbol, full name (claims sometimes use the full name, abstracts the symbol)
SCI_GENES = [("PLXD4", "plexin domain protein 4"), ("VRK7", "vesicle regulatory kinase 7"),
             ("TMX9", "transmembrane thioredoxin 9"), ("OSK2", "oxidative stress kinase 2"),
             ("LRN1", "lipid raft anchoring protein 1"), ("CDW3", "cadherin-like wound protein 3"),
             ("MSK5", "mitochondrial stress kinase 5"), ("FNR2", "ferritin nuclear regulator 2"),
             ("QSP6", "quiescence signalling protein 6"), ("HBX1", "hepatic bile exporter 1")]
# formal condition name, lay name, outcome measured
SCI_CONDITIONS = [("myocardial infarction", "heart attacks", "infarct size"),
                  ("hypertension", "high blood pressure", "systolic blood pressure"),
                  ("type 2 diabetes", "adult-onset diabetes", "HbA1c"),
                  ("cerebral ischaemia", "strokes", "lesion volume"),
                  ("hepatic steatosis", "fatty liver disease", "liver fat content"),
                  ("renal fibrosis", "kidney scarring", "collagen deposition"),
                  ("major depressive disorder", "clinical depression", "depression rating scores"),
                  ("osteoporosis", "bone loss", "bone mineral density loss"),
                  ("sepsis", "blood poisoning", "28-day mortality"),
                  ("neuropathic pain", "nerve pain", "pain scores"),
                  ("atopic dermatitis", "eczema", "itch severity"),
                  ("obesity", "excess body weight", "body weight")]
SCI_MARKERS = ["interleukin-6", "C-reactive protein", "LDL cholesterol", "fasting insulin", "troponin T",
               "serum ferritin", "cortisol", "uric acid"]
SCI_POPULATIONS = ["adults", "older adults", "postmenopausal women", "patients in intensive care", "adolescents"]


def scifact_world() -> list[dict]:
    """150 abstracts of three designs (trial, knockout mouse, cohort) with their key facts."""
    r = rng_for("scifact:world")
    doc_ids = sorted(r.sample(range(1000000, 45000000), 150))
    order = list(range(150))
    r.shuffle(order)
    docs = []
    # every (gene, condition) and (marker, condition) pair is studied once, so no two abstracts
    # make conflicting statements; an agent always inhibits the same gene
    gene_cond = [(g, c) for g in range(10) for c in range(12)]
    marker_cond = [(m, c) for m in range(8) for c in range(12)]
    r.shuffle(gene_cond)
    r.shuffle(marker_cond)
    for k, i in enumerate(order):
        design = ["trial", "mouse", "cohort"][k % 3]
        if design == "cohort":
            mi, ci = marker_cond.pop()
            gi = r.randrange(10)
        else:
            gi, ci = gene_cond.pop()
            mi = r.randrange(8)
        agent = SCI_AGENTS[gi + 10 * r.randrange(2)]
        gene, gene_full = SCI_GENES[gi]
        cond, lay, outcome = SCI_CONDITIONS[ci]
        marker = SCI_MARKERS[mi]
        pop = SCI_POPULATIONS[r.randrange(5)]
        effect = r.choice(["reduced", "reduced", "increased", "none"])
        d = {"doc_id": doc_ids[i], "design": design, "agent": agent, "gene": gene, "gene_full": gene_full,
             "cond": cond, "lay": lay, "outcome": outcome, "marker": marker, "pop": pop, "effect": effect,
             "n": r.randint(6, 90) * 10, "weeks": r.choice([8, 12, 24, 52]), "dose": r.choice([5, 10, 20, 40, 80]),
             "pct": r.randint(12, 48), "fold": round(r.uniform(1.4, 3.8), 1), "ae": r.randint(3, 21),
             "hr": round(r.uniform(1.3, 2.6), 2), "years": r.randint(5, 20)}
        S = []
        if design == "trial":
            d["title"] = f"{agent.capitalize()} in {pop} with {cond}: a randomised controlled trial"
            S.append(f"{cond.capitalize()} remains a major cause of illness among {pop}.")
            S.append(f"{agent.capitalize()} is a selective inhibitor of {gene}, which is overexpressed in {cond}.")
            S.append(f"We randomly assigned {d['n']} {pop} with {cond} to {agent} or placebo.")
            S.append(f"Participants received {d['dose']} mg of {agent} daily for {d['weeks']} weeks.")
            if effect == "reduced":
                S.append(f"{agent.capitalize()} reduced {outcome} by {d['pct']}% compared with placebo (P < 0.001).")
            elif effect == "increased":
                S.append(f"Unexpectedly, {outcome} increased by {d['pct']}% in the {agent} group compared with placebo.")
            else:
                S.append(f"{outcome.capitalize()} did not differ between the {agent} and placebo groups (P = 0.{r.randint(31, 92)}).")
            d["result_idx"] = len(S) - 1
            S.append(f"Circulating {marker} fell {d['fold']}-fold during treatment.")
            d["marker_idx"] = len(S) - 1
            S.append(f"Adverse events occurred in {d['ae']}% of participants receiving {agent}.")
            d["ae_idx"] = len(S) - 1
            concl = {"reduced": f"{agent.capitalize()} is an effective treatment for {cond} in {pop}.",
                     "increased": f"{agent.capitalize()} may worsen {cond} and should not be used in {pop}.",
                     "none": f"{agent.capitalize()} offers no benefit for {cond} in {pop}."}[effect]
            S.append(concl)
            d["concl_idx"] = len(S) - 1
        elif design == "mouse":
            d["title"] = f"Loss of {gene} {'promotes' if effect != 'reduced' else 'protects against'} {cond} in mice"
            S.append(f"The role of {gene} in {cond} is poorly understood.")
            S.append(f"We generated mice lacking {gene} in all tissues.")
            S.append(f"{gene}-deficient mice and wild-type littermates were studied for {d['weeks']} weeks.")
            if effect == "reduced":
                S.append(f"{gene}-deficient mice showed {d['pct']}% lower {outcome} than wild-type mice.")
            elif effect == "increased":
                S.append(f"{gene}-deficient mice developed severe {cond}, with {d['pct']}% higher {outcome} than controls.")
            else:
                S.append(f"Loss of {gene} did not change {outcome} in mice.")
            d["result_idx"] = len(S) - 1
            S.append(f"Mechanistically, {gene} controls the release of {marker} from macrophages.")
            d["marker_idx"] = len(S) - 1
            S.append(f"Pharmacological inhibition of {gene} reproduced the effect of its loss.")
            d["ae_idx"] = len(S) - 1
            concl = {"reduced": f"{gene} promotes {cond}, and blocking it may be protective.",
                     "increased": f"{gene} protects against {cond}.",
                     "none": f"{gene} is dispensable in {cond}."}[effect]
            S.append(concl)
            d["concl_idx"] = len(S) - 1
        else:
            d["title"] = f"Circulating {marker} and the risk of {cond}: a {d['years']}-year cohort study"
            S.append(f"Whether {marker} predicts {cond} is unclear.")
            S.append(f"We followed {d['n'] * 10} {pop} for a median of {d['years']} years.")
            S.append(f"Baseline {marker} was measured in all participants.")
            if effect == "none":
                S.append(f"{marker.capitalize()} was not associated with the risk of {cond}.")
            elif effect == "increased":
                S.append(f"Participants in the highest quartile of {marker} had a lower risk of {cond} "
                         f"(hazard ratio 0.{r.randint(41, 79)}).")
            else:
                S.append(f"The highest quartile of {marker} was associated with a higher risk of {cond} "
                         f"(hazard ratio {d['hr']}).")
            d["result_idx"] = len(S) - 1
            S.append(f"Use of lipid-lowering or anti-inflammatory drugs did not modify this association.")
            d["marker_idx"] = len(S) - 1
            S.append(f"Results were similar after adjustment for age, sex and body-mass index.")
            d["ae_idx"] = len(S) - 1
            concl = {"reduced": f"Elevated {marker} is a risk marker for {cond} in {pop}.",
                     "increased": f"Higher {marker} may be protective against {cond}.",
                     "none": f"{marker.capitalize()} is not a useful predictor of {cond}."}[effect]
            S.append(concl)
            d["concl_idx"] = len(S) - 1
        d["abstract"] = S
        docs.append(d)
    docs.sort(key=lambda d: d["doc_id"])
    return docs


def scifact_claim_drafts(docs: list[dict]) -> list[dict]:
    """Claim drafts: ``{"claim", "evidence": {doc: [sets]}, "cited", "label", "doc", "hard"}``.

    ``hard`` claims use the lay condition name and the gene's full name, which the abstract never
    uses, so a lexical search often misses the gold abstract.
    """
    r = rng_for("scifact:claims")
    out = []
    for d in docs:
        D, eff = d["doc_id"], d["effect"]
        res, concl, mk = d["result_idx"], d["concl_idx"], d["marker_idx"]
        cond, lay, outc, agent, gene = d["cond"], d["lay"], d["outcome"], d["agent"], d["gene"]
        if d["design"] == "trial":
            if eff == "none":
                out.append({"claim": f"{agent.capitalize()} has a beneficial effect on {outc} in {cond}.", "label": "CONTRADICT",
                            "sets": [[res], [concl]], "doc": D, "kind": "main"})
            else:
                good = eff == "reduced"
                out.append({"claim": f"{agent.capitalize()} {'lowers' if r.random() < 0.5 else 'reduces'} {outc} in patients with {cond}.",
                            "label": "SUPPORT" if good else "CONTRADICT", "sets": [[res]], "doc": D, "kind": "main"})
                out.append({"claim": f"{agent.capitalize()} {'raises' if r.random() < 0.5 else 'increases'} {outc} in {pop_short(d)} with {cond}.",
                            "label": "CONTRADICT" if good else "SUPPORT", "sets": [[res]], "doc": D, "kind": "main2"})
                out.append({"claim": f"In a trial of {d['n']} participants, {agent} changed {outc} by more than {d['pct'] + 20}%.",
                            "label": "CONTRADICT", "sets": [[2, res]], "doc": D, "kind": "number"})
            out.append({"claim": f"Treatment with {agent} lowers circulating {d['marker']}.", "label": "SUPPORT",
                        "sets": [[mk]], "doc": D, "kind": "marker"})
            out.append({"claim": f"Inhibiting {d['gene_full']} is {'beneficial' if eff == 'reduced' else 'harmful'} in {lay}.",
                        "label": "SUPPORT" if eff != "none" else "CONTRADICT", "sets": [[1, concl]], "doc": D,
                        "kind": "hard"})
            out.append({"claim": f"{agent.capitalize()} is more effective in children than in adults with {cond}.",
                        "label": "NOINFO", "sets": [], "doc": D, "kind": "nei"})
        elif d["design"] == "mouse":
            if eff == "increased":
                out.append({"claim": f"{gene} deficiency causes {cond} in mice.", "label": "SUPPORT", "sets": [[res]], "doc": D, "kind": "main"})
                out.append({"claim": f"Mice lacking {gene} are protected from {cond}.", "label": "CONTRADICT", "sets": [[res], [concl]], "doc": D, "kind": "main2"})
                out.append({"claim": f"Loss of {d['gene_full']} makes mice prone to {lay}.", "label": "SUPPORT", "sets": [[res]], "doc": D, "kind": "hard"})
            elif eff == "reduced":
                out.append({"claim": f"Deleting {gene} protects mice against {cond}.", "label": "SUPPORT", "sets": [[res], [concl]], "doc": D, "kind": "main"})
                out.append({"claim": f"{gene} knockout worsens {cond} in mice.", "label": "CONTRADICT", "sets": [[res]], "doc": D, "kind": "main2"})
                out.append({"claim": f"Without {d['gene_full']}, mice suffer less {lay}.", "label": "SUPPORT", "sets": [[res]], "doc": D, "kind": "hard"})
            else:
                out.append({"claim": f"{gene} is required for the development of {cond}.", "label": "CONTRADICT", "sets": [[res], [concl]], "doc": D, "kind": "main"})
            out.append({"claim": f"{gene} regulates {d['marker']} release by macrophages.", "label": "SUPPORT", "sets": [[mk]], "doc": D, "kind": "marker"})
            out.append({"claim": f"{gene} variants are common in people with {cond}.", "label": "NOINFO", "sets": [], "doc": D, "kind": "nei"})
        else:
            if eff == "reduced":
                out.append({"claim": f"High {d['marker']} predicts {cond}.", "label": "SUPPORT", "sets": [[res], [concl]], "doc": D, "kind": "main"})
                out.append({"claim": f"Elevated {d['marker']} lowers the risk of {cond}.", "label": "CONTRADICT", "sets": [[res]], "doc": D, "kind": "main2"})
            elif eff == "increased":
                out.append({"claim": f"High {d['marker']} increases the risk of {cond}.", "label": "CONTRADICT", "sets": [[res]], "doc": D, "kind": "main"})
            else:
                out.append({"claim": f"{d['marker'].capitalize()} is associated with {cond} risk.", "label": "CONTRADICT", "sets": [[res], [concl]], "doc": D, "kind": "main"})
            out.append({"claim": f"Lowering {d['marker']} prevents {cond}.", "label": "NOINFO", "sets": [], "doc": D, "kind": "nei"})
    return out


def pop_short(d: dict) -> str:
    return {"adults": "adults", "older adults": "older people", "postmenopausal women": "women",
            "patients in intensive care": "critically ill patients", "adolescents": "teenagers"}[d["pop"]]


def write_scifact(out: Path) -> dict:
    """corpus.jsonl (150 abstracts) and claims_dev (40) / claims_train (60) in the released format.

    Dev has citation families (claims citing the same abstract) and claims citing two abstracts
    of which one holds the evidence.
    """
    docs = scifact_world()
    write_jsonl(out / "scifact" / "corpus.jsonl",
                [{"doc_id": d["doc_id"], "title": d["title"], "abstract": d["abstract"], "structured": False} for d in docs])
    r = rng_for("scifact:split")
    drafts = scifact_claim_drafts(docs)
    r.shuffle(drafts)
    by_doc: dict = {}
    for dr in drafts:
        by_doc.setdefault(dr["doc"], []).append(dr)
    doc_order = sorted(by_doc)
    r.shuffle(doc_order)
    want = {"dev": {"SUPPORT": 14, "CONTRADICT": 13, "NOINFO": 13}, "train": {"SUPPORT": 20, "CONTRADICT": 20, "NOINFO": 20}}
    chosen = {"dev": [], "train": []}
    hard_quota = {"dev": 4, "train": 5}
    fam_quota = 4  # dev abstracts that get two claims (a citation family)
    for D in doc_order:
        split = "dev" if len(chosen["dev"]) < 40 and (doc_order.index(D) % 5 < 2) else "train"
        if sum(want[split].values()) == len(chosen[split]):
            split = "train" if split == "dev" else "dev"
        cands = by_doc[D]
        picked = []
        for dr in sorted(cands, key=lambda x: (x["kind"] != "hard", x["kind"])):
            n_have = sum(1 for x in chosen[split] if x["label"] == dr["label"])
            if n_have >= want[split][dr["label"]]:
                continue
            if dr["kind"] == "hard":
                if hard_quota[split] == 0:
                    continue
                hard_quota[split] -= 1
            picked.append(dr)
            if len(picked) == (2 if split == "dev" and fam_quota > 0 else 1):
                break
        if split == "dev" and len(picked) == 2:
            fam_quota -= 1
        chosen[split] += picked
    doc_ids = [d["doc_id"] for d in docs]
    ids = r.sample(range(1, 1400), 100)
    records = {}
    pos = 0
    for split in ("dev", "train"):
        recs = []
        for k, dr in enumerate(chosen[split]):
            evidence = {} if dr["label"] == "NOINFO" else {
                str(dr["doc"]): [{"sentences": s_, "label": dr["label"]} for s_ in dr["sets"]]}
            cited = [dr["doc"]]
            if k % 6 == 5:  # also cites an unrelated abstract
                cited.append(doc_ids[(doc_ids.index(dr["doc"]) + 37) % len(doc_ids)])
            recs.append({"id": ids[pos + k], "claim": dr["claim"], "evidence": evidence, "cited_doc_ids": cited})
        pos += len(recs)
        recs.sort(key=lambda x: x["id"])
        records[split] = recs
        write_jsonl(out / "scifact" / f"claims_{split}.jsonl", recs)
    return records
