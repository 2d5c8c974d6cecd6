"""FEVER-style demo data: wiki pages (one sentence per fact) and claims about the world.

In:  the world of :mod:`.world`.
Out: ``fever/wiki-pages/wiki-001.jsonl`` (world pages plus distractor pages that are never
     gold), ``fever/paper_dev.jsonl`` and ``fever/train.jsonl`` in the official release format.
     SUPPORTS claims are entailed by their gold lines, REFUTES claims contradict them (a
     changed value, an entity swap, a negation of a true statement), NOT ENOUGH INFO claims
     ask about properties the wiki never states. :func:`fever_pages` is also the source of the
     conflict-QA passages (:mod:`.conflict_qa`).
"""
from __future__ import annotations

import random
from pathlib import Path

from .world import (
    PROVINCES,
    TOWN_NAMES,
    all_entities,
    fix_articles,
    page_id,
    rng_for,
    value_pools,
    wrong_value,
    write_jsonl,
)


def fever_pages(w: dict) -> tuple[list[dict], dict]:
    """Render every entity as a FEVER page.

    Returns (pages, where): pages are ``{"id", "text", "lines"}`` records and
    ``where[(entity name, attribute)]`` lists the ``(page_id, line)`` pairs that state the
    attribute (more than one where another page repeats the fact: alternative evidence).
    """
    where: dict = {}
    pages = []
    # links go by name; "Tarrow" the town wins over "Tarrow (band)", which claims name by title
    titles = {e["name"]: page_id(e["title"]) for e in w["bands"] + all_entities(w)[::-1] if e["type"] != "band"}
    titles.update({e["name"]: page_id(e["title"]) for e in w["bands"] if e["name"] not in titles})
    pid_of = {e["title"]: page_id(e["title"]) for e in all_entities(w)}
    by_name = {e["name"]: e for e in all_entities(w)}

    def add(lines, text, attrs=(), links=(), key=None):
        text = fix_articles(text)
        lines.append((text, [titles[x] for x in links if x in titles]))
        for a in attrs:
            where.setdefault((key, a), []).append((None, len(lines) - 1))

    def finish(e, lines):
        pid = pid_of[e["title"]]
        for k, locs in where.items():
            where[k] = [(pid if p is None else p, ln) for p, ln in locs]
        text = " ".join(s for s, _ in lines)
        raw = "\n".join("\t".join([str(i), s] + links) for i, (s, links) in enumerate(lines))
        pages.append({"id": pid, "text": text, "lines": raw})

    for t in w["towns"]:
        n, L = t["name"], []
        add(L, f"{n} is a town in the {t['province']} province of Varenholm.", ["province"], key=n)
        add(L, f"It lies on the {t['river']} River, about {t['river_km']} kilometres from the river's source.",
            ["river", "river_km"], [t["river"]], key=n)
        add(L, f"{n} was founded in {t['founded']} as a {t['origin']}.", ["founded", "origin"], key=n)
        add(L, f"At the 2020 census the town had a population of {t['population']:,}.", ["population"], key=n)
        add(L, f"The town lies at an elevation of {t['elevation']} metres above sea level.", ["elevation"], key=n)
        add(L, f"{n} is known for its {t['known_for']}.", ["known_for"], key=n)
        add(L, f"Its mayor since {t['mayor_since']} has been {t['mayor']}.", ["mayor", "mayor_since"], [t["mayor"]], key=n)
        add(L, f"{n} is twinned with {t['twin']}.", ["twin"], [t["twin"]], key=n)
        for c in w["companies"]:
            if c["hq"] == n:
                add(L, f"{c['name']} has its headquarters in {n}.", ["hq"], [c["name"]], key=c["name"])
        for p in w["people"]:
            if p["birthplace"] == n and len(L) < 10:
                add(L, f"The {p['occupation']} {p['name']} was born in {n}.", ["birthplace"], [p["name"]], key=p["name"])
        finish(t, L)

    for rv in w["rivers"]:
        n, L, key = rv["name"], [], rv["title"]
        add(L, f"The {n} River is a river in Varenholm, {rv['length']} kilometres long.", ["length"], key=key)
        add(L, f"It rises on the slopes of {rv['source']}.", ["source"], [rv["source"]], key=key)
        add(L, f"The {n} flows into {rv['mouth']}.", ["mouth"], key=key)
        # the FEVER river pages do not list their towns (FEVEROUS has the table), so a claim that
        # reaches a river only through a town needs a second retrieval hop
        add(L, f"Its drainage basin covers about {rv['basin']:,} square kilometres.", ["basin"], key=key)
        add(L, f"The river was first mapped in {rv['mapped']} by the surveyor {rv['surveyor']}.", ["mapped", "surveyor"], key=key)
        add(L, f"Its main tributary is the {rv['tributary']}.", ["tributary"], key=key)
        for s in w["species"]:
            if s["river"] == n:
                add(L, f"The {s['name']} is found along the {n}.", ["river"], [s["name"]], key=s["name"])
        finish(rv, L)

    for m in w["mountains"]:
        n, L = m["name"], []
        add(L, f"{n} is a mountain in Varenholm and part of the {m['range']}.", ["range"], key=n)
        add(L, f"It rises to {m['height']:,} metres above sea level.", ["height"], key=n)
        add(L, f"The first recorded ascent was made in {m['ascent_year']} by {m['climber']}.", ["ascent_year", "climber"], key=n)
        srcs = [rv["name"] for rv in w["rivers"] if rv["source"] == n]
        add(L, f"The {' and '.join(s + ' River' for s in srcs) if len(srcs) < 3 else ', '.join(srcs) + ' rivers'} "
               f"{'rise' if len(srcs) > 1 else 'rises'} on its slopes.", ["sources"], srcs, key=n)
        finish(m, L)

    for p in w["people"]:
        n, L = p["name"], []
        pro = "She" if p["gender"] == "f" else "He"
        pos = "Her" if p["gender"] == "f" else "His"
        add(L, f"{n} (born {p['birth_year']}) is a Varenholmian {p['occupation']}.", ["birth_year", "occupation"], key=n)
        add(L, f"{pro} was born in {p['birthplace']}.", ["birthplace"], [p["birthplace"]], key=n)
        add(L, f"{pro} studied at the University of {p['university']}.", ["university"], key=n)
        occ = p["occupation"]
        if occ == "musician":
            add(L, f"{n} plays {p['instrument']} in {p['band']}.", ["instrument", "band"], [p["band"]], key=n)
            add(L, f"{pro} joined the band in {p['joined']}.", ["joined"], key=n)
        elif occ == "novelist":
            add(L, f"{pos} debut novel, {p['novel']}, was published in {p['novel_year']}.", ["novel", "novel_year"], key=n)
        elif occ == "engineer":
            c = by_name[p["company"]]
            add(L, f"In {c['founded']}, {n} founded {p['company']}.", ["company"], [p["company"]], key=n)
            where.setdefault((c["name"], "founded"), []).append((None, len(L) - 1))
            where.setdefault((c["name"], "founder"), []).append((None, len(L) - 1))
        elif occ == "botanist":
            add(L, f"{pro} first described the {p['species']} in {p['species_year']}.", ["species"], [p["species"]], key=n)
            where.setdefault((p["species"], "described"), []).append((None, len(L) - 1))
            where.setdefault((p["species"], "describer"), []).append((None, len(L) - 1))
        elif occ == "politician":
            add(L, f"{n} has served as mayor of {p['mayor_of']} since {p['mayor_since']}.", ["mayor_of"], [p["mayor_of"]], key=n)
            where.setdefault((p["mayor_of"], "mayor"), []).append((None, len(L) - 1))
            add(L, f"{pro} is a member of the {p['party']}.", ["party"], key=n)
        elif occ == "painter":
            add(L, f"{pos} best-known painting, {p['painting']}, was completed in {p['painting_year']}.",
                ["painting", "painting_year"], key=n)
            add(L, f"The painting hangs in the {p['museum']}.", ["museum"], key=n)
        if p["prize_year"]:
            add(L, f"In {p['prize_year']}, {n} received the Varen Prize for {p['prize_field']}.", ["prize_year"], key=n)
        finish(p, L)

    for b in w["bands"]:
        n, L, key = b["name"], [], b["title"]
        add(L, f"{n} is a {b['genre']} band from {b['hometown']}, Varenholm.", ["genre", "hometown"], [b["hometown"]], key=key)
        add(L, f"The band was formed in {b['formed']}.", ["formed"], key=key)
        mem = b["members"]
        add(L, f"Its members are {', '.join(mem[:-1])} and {mem[-1]}.", ["members", "band_members"], mem, key=key)
        a0 = b["albums"][0]
        add(L, f"The debut album, {a0['title']}, was released in {a0['year']} on {a0['label']}.",
            ["debut", "debut_year", "label"], [a0["label"]], key=key)
        add(L, f"The band has released {len(b['albums'])} studio albums.", ["n_albums"], key=key)
        a1 = b["albums"][1]
        add(L, f"Its second album, {a1['title']}, reached number {a1['peak']} on the Varenholm album chart.",
            ["second", "second_peak"], key=key)
        if b["award_year"]:
            add(L, f"{n} won the Golden Reed award in {b['award_year']}.", ["award_year"], key=key)
        finish(b, L)
        for m in mem:
            if m in by_name:
                where.setdefault((m, "band"), []).append((pid_of[key], 2))

    for c in w["companies"]:
        n, L = c["name"], []
        add(L, f"{n} is a Varenholmian {c['industry']} company.", ["industry"], key=n)
        add(L, f"It was founded in {c['founded']} by {c['founder']}.", ["founded", "founder"], [c["founder"]], key=n)
        add(L, f"The company is headquartered in {c['hq']}.", ["hq"], [c["hq"]], key=n)
        add(L, f"It employs about {c['employees']:,} people.", ["employees"], key=n)
        if c["product"]:
            add(L, f"Its best-known product is the {c['product']}.", ["product"], key=n)
        else:
            signed = [b["name"] for b in w["bands"] if b["label"] == n]
            if signed:
                add(L, f"Artists on the label include {' and '.join(signed)}.", ["signed"], signed, key=n)
        add(L, f"In {c['revenue_year']}, {n} reported revenue of {c['revenue']} million krona.", ["revenue"], key=n)
        add(L, f"The company is {'listed on the Pellham Stock Exchange' if c['listed'] else 'privately owned'}.",
            ["listed"], key=n)
        finish(c, L)

    for s in w["species"]:
        n, L = s["name"], []
        add(L, f"The {n} ({s['binomial']}) is a species of {s['kind']} native to Varenholm.", ["kind", "binomial"], key=n)
        add(L, f"It is found mainly along the {s['river']} River.", ["river"], [s["river"]], key=n)
        add(L, f"The species was first described in {s['described']} by {s['describer']}.",
            ["described", "describer"], [s["describer"]], key=n)
        add(L, f"Adults reach a size of about {s['size']} centimetres.", ["size"], key=n)
        add(L, f"Its conservation status is {s['status']}.", ["status"], key=n)
        add(L, f"It is most often seen in {s['month']}.", ["month"], key=n)
        finish(s, L)

    pages += distractor_pages(w)
    # a fact's own page first, then pages that repeat it
    own = {e["title"]: pid_of[e["title"]] for e in all_entities(w)}
    for key, locs in where.items():
        where[key] = sorted(set(locs), key=lambda pl: (pl[0] != own[key[0]], pl[0], pl[1]))
    pages.sort(key=lambda p: p["id"])
    return pages, where


def distractor_pages(w: dict) -> list[dict]:
    """Pages that share names and vocabulary with the claim pages but are never gold evidence.

    Universities, castles, bridges, stations and festivals named after towns and rivers make
    BM25 page retrieval miss some gold pages, as on the real wiki.
    """
    r = rng_for("distractors")
    out = []

    def page(title, sents):
        pid = page_id(title)
        out.append({"id": pid, "text": " ".join(sents),
                    "lines": "\n".join(f"{i}\t{x}" for i, x in enumerate(sents))})

    for t in w["towns"]:
        n = t["name"]
        kind = r.choice(["University", "Castle", "Station", "Festival"])
        if kind == "University":
            page(f"University of {n}", [
                f"The University of {n} is a public university in {n}, Varenholm.",
                f"It was founded in {r.randint(1450, 1960)} and has about {r.randint(30, 290) * 100:,} students.",
                f"The university is known for its departments of music, botany and engineering.",
                f"Its main campus lies on the {t['river']} River, {r.randint(1, 9)} kilometres from the town centre.",
                f"Several Varenholmian musicians, novelists and painters studied there."])
        elif kind == "Castle":
            page(f"{n} Castle", [
                f"{n} Castle is a ruined castle near {n} in the {t['province']} province.",
                f"It was built in {r.randint(1100, 1500)} by the counts of {r.choice(PROVINCES)}.",
                f"The castle was besieged in {r.randint(1500, 1700)} and abandoned soon after.",
                f"Its keep is {r.randint(14, 40)} metres high.",
                f"The ruins have been owned by the town since {r.randint(1880, 1990)}."])
        elif kind == "Station":
            page(f"{n} railway station", [
                f"{n} railway station serves the town of {n}, Varenholm.",
                f"It opened in {r.randint(1850, 1910)} on the line along the {t['river']} River.",
                f"The station has {r.randint(2, 8)} platforms and about {r.randint(1, 40) * 250:,} passengers a day.",
                f"It was rebuilt in {r.randint(1950, 2015)} by Nordvarn Rail."])
        else:
            page(f"{n} Festival", [
                f"The {n} Festival is an annual music festival held in {n}.",
                f"It was first held in {r.randint(1960, 2010)}.",
                f"Folk rock, jazz fusion and indie folk bands from Varenholm have played there.",
                f"The festival draws about {r.randint(5, 90) * 1000:,} visitors each summer."])
    for rv in w["rivers"]:
        n = rv["name"]
        page(f"{n} Bridge", [
            f"The {n} Bridge is a stone bridge over the {n} River.",
            f"It was completed in {r.randint(1600, 1900)} and is {r.randint(40, 400)} metres long.",
            f"The bridge was founded on oak piles and restored in {r.randint(1950, 2020)}."])
    return out

# (entity type, attribute) -> (value kind, [true predicate templates], negated template).
# Value kinds: "year", "int" (any count), "small" (a small count such as a chart peak),
# "pool:<name>" (another value of the same attribute, or of the named pool).
PREDICATES = {
    ("town", "province"): ("pool:province", ["is a town in the {v} province", "is located in {v} province",
                                             "belongs to the province of {v}"], "is not in the {v} province"),
    ("town", "river"): ("pool:river", ["lies on the {v} River", "is situated on the banks of the {v} River",
                                       "is a town on the {v} River"], "does not lie on the {v} River"),
    ("town", "founded"): ("year", ["was founded in {v}", "was established in {v}", "dates back to {v}"],
                          "was not founded in {v}"),
    ("town", "population"): ("int", ["had a population of {v:,} at the 2020 census",
                                     "had {v:,} inhabitants in 2020", "was home to {v:,} people in 2020"],
                             "did not have {v:,} inhabitants in 2020"),
    ("town", "elevation"): ("int", ["lies {v} metres above sea level", "has an elevation of {v} metres"],
                            "is not {v} metres above sea level"),
    ("town", "known_for"): ("pool:known_for", ["is known for its {v}", "is famous for {v}"],
                            None),
    ("town", "mayor"): ("pool:person", ["has {v} as its mayor", "is governed by mayor {v}"],
                        "does not have {v} as its mayor"),
    ("town", "twin"): ("pool:town", ["is twinned with {v}", "has a twinning arrangement with {v}"],
                       None),
    ("river", "length"): ("int", ["is {v} kilometres long", "has a length of {v} km", "runs for {v} kilometres"],
                          "is not {v} kilometres long"),
    ("river", "source"): ("pool:mountain", ["rises on {v}", "has its source on {v}"], "does not rise on {v}"),
    ("river", "mouth"): ("pool:mouth", ["flows into {v}", "empties into {v}"], "does not flow into {v}"),
    ("river", "basin"): ("int", ["has a drainage basin of about {v:,} square kilometres",
                                "drains roughly {v:,} square kilometres"], None),
    ("river", "mapped"): ("year", ["was first mapped in {v}", "was surveyed for the first time in {v}"],
                          "was not first mapped in {v}"),
    ("river", "tributary"): ("pool:tributary", ["has the {v} as its main tributary", "is fed mainly by the {v}"], None),
    ("mountain", "height"): ("int", ["is {v:,} metres high", "rises to {v:,} metres"], "is not {v:,} metres high"),
    ("mountain", "range"): ("pool:range", ["is part of the {v}", "belongs to the {v}"], "is not part of the {v}"),
    ("mountain", "ascent_year"): ("year", ["was first climbed in {v}", "saw its first recorded ascent in {v}"],
                                  "was not first climbed in {v}"),
    ("person", "birth_year"): ("year", ["was born in {v}", "was born in the year {v}"], "was not born in {v}"),
    ("person", "birthplace"): ("pool:town", ["was born in {v}", "is a native of {v}", "comes from {v}"],
                               "was not born in {v}"),
    ("person", "occupation"): ("pool:occupation", ["is a {v}", "works as a {v}", "is a Varenholmian {v}"],
                               None),
    ("person", "university"): ("pool:town", ["studied at the University of {v}", "attended the University of {v}"],
                               None),
    ("person", "instrument"): ("pool:instrument", ["plays {v}", "is the {v} player of a band"], None),
    ("person", "band"): ("pool:band", ["plays in {v}", "is a member of {v}"], None),
    ("person", "joined"): ("year", ["joined {band} in {v}", "became a member of {band} in {v}"], None),
    ("person", "novel"): ("pool:novel", ["wrote the novel {v}", "is the author of {v}"], None),
    ("person", "novel_year"): ("year", ["published a debut novel in {v}", "made a literary debut in {v}"], None),
    ("person", "company"): ("pool:company", ["founded {v}", "is the founder of {v}"], None),
    ("person", "species"): ("pool:species", ["first described the {v}", "gave the first description of the {v}"], None),
    ("person", "mayor_of"): ("pool:town", ["is the mayor of {v}", "serves as mayor of {v}"], "is not the mayor of {v}"),
    ("person", "party"): ("pool:party", ["is a member of the {v}", "belongs to the {v}"], "is not a member of the {v}"),
    ("person", "painting"): ("pool:painting", ["painted {v}", "is the painter of {v}"], None),
    ("person", "museum"): ("pool:museum", ["has a painting hanging in the {v}"], None),
    ("person", "prize_year"): ("year", ["received the Varen Prize in {v}", "won the Varen Prize in {v}"],
                               None),
    ("band", "genre"): ("pool:genre", ["is a {v} band", "plays {v}"], "is not a {v} band"),
    ("band", "hometown"): ("pool:town", ["is a band from {v}", "comes from {v}"], "is not from {v}"),
    ("band", "formed"): ("year", ["was formed in {v}", "formed in {v}", "got together in {v}"], "was not formed in {v}"),
    ("band", "debut"): ("pool:album", ["released the debut album {v}", "debuted with the album {v}"], None),
    ("band", "debut_year"): ("year", ["released its debut album in {v}", "put out its first album in {v}"],
                             "did not release its debut album in {v}"),
    ("band", "label"): ("pool:label", ["released its debut album on {v}", "put out its first record on {v}"], None),
    ("band", "n_albums"): ("small", ["has released {v} studio albums", "has {v} studio albums"],
                           "has not released {v} studio albums"),
    ("band", "second_peak"): ("small", ["reached number {v} on the Varenholm album chart with its second album",
                                        "had a second album that peaked at number {v}"], None),
    ("band", "award_year"): ("year", ["won the Golden Reed award in {v}", "received a Golden Reed in {v}"],
                             "did not win the Golden Reed award in {v}"),
    ("company", "industry"): ("pool:industry", ["is a {v} company", "works in {v}"], "is not a {v} company"),
    ("company", "founded"): ("year", ["was founded in {v}", "was established in {v}", "has existed since {v}"],
                             "was not founded in {v}"),
    ("company", "founder"): ("pool:person", ["was founded by {v}", "was started by {v}"], "was not founded by {v}"),
    ("company", "hq"): ("pool:town", ["is headquartered in {v}", "has its head office in {v}", "is based in {v}"],
                        "is not headquartered in {v}"),
    ("company", "employees"): ("int", ["employs about {v:,} people", "has around {v:,} employees"],
                               "does not employ {v:,} people"),
    ("company", "product"): ("pool:product", ["makes the {v}", "is best known for the {v}"], None),
    ("company", "revenue"): ("int", ["reported revenue of {v} million krona in 2022",
                                     "had 2022 revenue of {v} million krona"], None),
    ("species", "kind"): ("pool:kind", ["is a {v}", "is a species of {v}"], "is not a {v}"),
    ("species", "river"): ("pool:river", ["is found along the {v} River", "lives mainly by the {v} River"],
                           "is not found along the {v} River"),
    ("species", "described"): ("year", ["was first described in {v}", "was scientifically described in {v}"],
                               "was not described in {v}"),
    ("species", "describer"): ("pool:person", ["was first described by {v}", "was named by {v}"], None),
    ("species", "size"): ("small", ["reaches about {v} centimetres", "grows to about {v} centimetres"], None),
    ("species", "status"): ("pool:status", ["is classified as {v}", "has the conservation status {v}"],
                            "is not classified as {v}"),
    ("species", "month"): ("pool:month", ["is most often seen in {v}"], None),
}

NEI_PREDICATES = {
    "town": ["hosts an annual jazz festival", "has a cathedral with a copper spire", "has two railway stations",
             "was briefly the seat of the provincial government", "has a football club in the national league",
             "is home to the oldest library in {prov}", "was badly flooded in {year}",
             "opened its first hospital in {year}"],
    "river": ["is navigable by large cargo ships", "freezes over every winter", "was dammed in {year}",
              "is popular with kayakers", "carried timber rafts until {year}"],
    "mountain": ["has a ski resort on its northern slope", "is an extinct volcano", "was first climbed in winter"],
    "person": ["is left-handed", "speaks four languages", "has a twin brother", "once lived in Paris",
               "trained as a pilot", "collects antique clocks", "moved to {town} in {year}",
               "taught at a school in {town}"],
    "band": ["toured Japan in {year}", "recorded its debut album in a church", "broke up in {year}",
             "once played a concert in {town}", "was named after a ferry"],
    "company": ["plans to open a factory in {town}", "was sued by a competitor in {year}",
                "has an office in Brazil", "sponsors a cycling team", "was nearly bankrupt in {year}"],
    "species": ["is eaten as a delicacy in {town}", "appeared on a postage stamp in {year}",
                "is kept as a pet in {town}", "can live for more than 20 years"],
}


def subject_forms(e: dict) -> list[str]:
    """Ways a claim names an entity (the first is the plain name)."""
    n = e["name"]
    return {
        "town": [n, f"The town of {n}", n],
        "river": [f"The {n} River", f"The {n}", f"The {n} River"],
        "mountain": [n, n],
        "person": [n, n, n.split()[-1]],
        "band": [n, f"The band {n}" if not n.startswith("The ") else n, n],
        "company": [n, n],
        "species": [f"The {n}", f"The {n} ({e.get('binomial')})", f"The {n}"],
    }[e["type"]]

def attr_value(e: dict, attr: str):
    """The world's value of an attribute (None when the entity does not have it)."""
    if e["type"] == "band":
        if attr == "debut":
            return e["albums"][0]["title"]
        if attr == "debut_year":
            return e["albums"][0]["year"]
        if attr == "n_albums":
            return len(e["albums"])
        if attr == "second_peak":
            return e["albums"][1]["peak"]
    if e["type"] == "company" and attr == "product" and not e.get("product"):
        return None
    return e.get(attr)

def fmt_pred(template: str, v, e: dict) -> str:
    return template.format(v=v, band=e.get("band", ""))


def single_fact_claims(w: dict, where: dict, r: random.Random) -> list[dict]:
    """All single-fact claim drafts: per (entity, attribute), one SUPPORTS, one REFUTES, negations.

    A draft is ``{"label", "claim", "groups": [[(page, line), ...], ...], "fact", "kind", "value"}``.
    ``kind`` is "plain", "negation" (claim with "not") or "mutation" (one value changed).
    """
    pools = value_pools(w)
    out = []
    for e in all_entities(w):
        for (etype, attr), (kind, preds, neg) in PREDICATES.items():
            if etype != e["type"]:
                continue
            v = attr_value(e, attr)
            locs = where.get((e["title"], attr))
            if v is None or not locs:  # noqa: E501 (attribute absent for this entity)
                continue
            groups = [[loc] for loc in locs]
            subj = r.choice(subject_forms(e))
            pred = r.choice(preds)
            wv = wrong_value(kind, v, pools, r)
            if kind.startswith("pool:") and attr in ("birthplace", "hometown", "hq") and wv == e.get("name"):
                wv = wrong_value(kind, v, pools, r, exclude=[e["name"]])
            base = {"fact": (e["title"], attr), "groups": groups, "etype": etype}
            out.append({**base, "label": "SUPPORTS", "claim": f"{subj} {fmt_pred(pred, v, e)}.", "kind": "plain",
                        "value": v, "pred": pred, "subj": subj})
            out.append({**base, "label": "REFUTES", "claim": f"{subj} {fmt_pred(r.choice(preds), wv, e)}.",
                        "kind": "plain", "value": wv, "pred": pred, "subj": subj})
            if neg:
                out.append({**base, "label": "REFUTES", "claim": f"{subj} {fmt_pred(neg, v, e)}.", "kind": "negation",
                            "value": v, "pred": neg, "subj": subj})
                out.append({**base, "label": "SUPPORTS", "claim": f"{subj} {fmt_pred(neg, wv, e)}.", "kind": "negation",
                            "value": wv, "pred": neg, "subj": subj})
    return out


def multi_fact_claims(w: dict, where: dict, r: random.Random) -> list[dict]:
    """Claims whose evidence group needs two sentences (same page conjunctions and two-page hops)."""
    pools = value_pools(w)
    by_name = {e["name"]: e for e in all_entities(w)}
    out = []

    def loc(name, attr):
        return where[(name, attr)][0]

    # conjunctions on one entity
    conj = {"town": [("founded", "river"), ("province", "known_for"), ("population", "elevation")],
            "person": [("birth_year", "birthplace"), ("occupation", "university")],
            "band": [("genre", "formed"), ("hometown", "n_albums")],
            "company": [("hq", "employees"), ("industry", "founded")],
            "species": [("river", "status")], "river": [("length", "mouth")]}
    for e in all_entities(w):
        for a, b in conj.get(e["type"], []):
            ka, pa, _ = PREDICATES[(e["type"], a)]
            kb, pb, _ = PREDICATES[(e["type"], b)]
            va, vb = attr_value(e, a), attr_value(e, b)
            la, lb = loc(e["title"], a), loc(e["title"], b)
            if la == lb:
                continue
            subj = subject_forms(e)[0]
            text = f"{subj} {fmt_pred(r.choice(pa), va, e)} and {fmt_pred(r.choice(pb), vb, e)}."
            out.append({"label": "SUPPORTS", "claim": text, "groups": [[la, lb]], "kind": "conjunction",
                        "fact": (e["title"], a + "+" + b), "etype": e["type"]})
            wb = wrong_value(kb, vb, pools, r, exclude=[e["name"]])
            text = f"{subj} {fmt_pred(r.choice(pa), va, e)} and {fmt_pred(r.choice(pb), wb, e)}."
            out.append({"label": "REFUTES", "claim": text, "groups": [[la, lb]], "kind": "conjunction",
                        "fact": (e["title"], a + "+" + b), "etype": e["type"]})

    # two-page hops: the second page is not named in the claim
    rivers = {rv["name"]: rv for rv in w["rivers"]}
    towns = {t["name"]: t for t in w["towns"]}
    for t in w["towns"]:
        rv = rivers[t["river"]]
        g = [loc(t["name"], "river"), loc(rv["title"], "length")]
        out.append({"label": "SUPPORTS", "claim": f"{t['name']} lies on a river that is {rv['length']} kilometres long.",
                    "groups": [g], "kind": "hop", "fact": (t["name"], "hop_length"), "etype": "town"})
        wl = wrong_value("int", rv["length"], pools, r)
        out.append({"label": "REFUTES", "claim": f"The river flowing through {t['name']} is {wl} kilometres long.",
                    "groups": [g], "kind": "hop", "fact": (t["name"], "hop_length"), "etype": "town"})
        g = [loc(t["name"], "river"), loc(rv["title"], "source")]
        mt = rv["source"] if t["founded"] % 2 else wrong_value("pool:mountain", rv["source"], pools, r)
        out.append({"label": "SUPPORTS" if mt == rv["source"] else "REFUTES",
                    "claim": f"The river at {t['name']} has its source on {mt}.", "groups": [g], "kind": "hop",
                    "fact": (t["name"], "hop_source"), "etype": "town"})
    for c in w["companies"]:
        f = by_name.get(c["founder"])
        hq = towns[c["hq"]]
        g = [loc(c["name"], "hq"), loc(hq["name"], "province")]
        prov = hq["province"] if c["founded"] % 3 else wrong_value("pool:province", hq["province"], pools, r)
        out.append({"label": "SUPPORTS" if prov == hq["province"] else "REFUTES",
                    "claim": f"{c['name']} is based in a town in the {prov} province.", "groups": [g], "kind": "hop",
                    "fact": (c["name"], "hop_province"), "etype": "company"})
        if f:
            g = [loc(c["name"], "founder"), loc(f["name"], "birthplace")]
            out.append({"label": "SUPPORTS", "claim": f"The founder of {c['name']} was born in {f['birthplace']}.",
                        "groups": [g], "kind": "hop", "fact": (c["name"], "hop_founder_birth"), "etype": "company"})
            wt = wrong_value("pool:town", f["birthplace"], pools, r)
            out.append({"label": "REFUTES", "claim": f"{c['name']} was founded by someone born in {wt}.",
                        "groups": [g], "kind": "hop", "fact": (c["name"], "hop_founder_birth"), "etype": "company"})
    for b in w["bands"]:
        ht = towns[b["hometown"]]
        g = [loc(b["title"], "hometown"), loc(ht["name"], "founded")]
        out.append({"label": "SUPPORTS", "claim": f"{b['name']} comes from a town founded in {ht['founded']}.",
                    "groups": [g], "kind": "hop", "fact": (b["title"], "hop_town_founded"), "etype": "band"})
        for m in b["members"]:
            if m in by_name:
                p = by_name[m]
                g = [loc(b["title"], "members"), loc(m, "birthplace")]
                out.append({"label": "SUPPORTS", "claim": f"A member of {b['name']} was born in {p['birthplace']}.",
                            "groups": [g], "kind": "hop", "fact": (b["title"], "hop_member_birth"), "etype": "band"})
                break
    # descriptive subjects: the entity is named only through another fact about it
    described = {e["title"]: f"The town twinned with {e['twin']}" for e in w["towns"]}
    described.update({b["title"]: f"The band whose debut album is {b['albums'][0]['title']}" for b in w["bands"]})
    player = {"bass guitar": "bass guitarist", "drums": "drummer", "violin": "violinist", "lead guitar": "lead guitarist",
              "keyboards": "keyboard player", "accordion": "accordionist", "cello": "cellist"}
    described.update({p["title"]: f"The {player[p['instrument']]} of {p['band']}" for p in w["people"]
                      if p["occupation"] == "musician"})
    ident = {"town": "twin", "band": "debut", "person": "band"}
    for e in all_entities(w):
        if e["title"] not in described:
            continue
        for attr in {"town": ["founded", "population", "river", "province"], "band": ["formed", "genre", "hometown"],
                     "person": ["birth_year", "birthplace", "university"]}[e["type"]]:
            kind, preds, _ = PREDICATES[(e["type"], attr)]
            v = attr_value(e, attr)
            g = [loc(e["title"], ident[e["type"]]), loc(e["title"], attr)]
            if g[0] == g[1]:
                g = g[:1]
            label = "SUPPORTS" if r.random() < 0.5 else "REFUTES"
            if label == "REFUTES":
                v = wrong_value(kind, v, pools, r, exclude=[e["name"]])
            out.append({"label": label, "claim": f"{described[e['title']]} {fmt_pred(r.choice(preds), v, e)}.",
                        "groups": [g], "kind": "described", "fact": (e["title"], "described:" + attr),
                        "etype": e["type"]})
    for s in w["species"]:
        rv = rivers[s["river"]]
        g = [loc(s["name"], "river"), loc(rv["title"], "mouth")]
        mo = rv["mouth"] if s["size"] % 2 else wrong_value("pool:mouth", rv["mouth"], pools, r)
        out.append({"label": "SUPPORTS" if mo == rv["mouth"] else "REFUTES",
                    "claim": f"The {s['name']} lives along a river that flows into {mo}.", "groups": [g],
                    "kind": "hop", "fact": (s["name"], "hop_mouth"), "etype": "species"})
    return out


def nei_claims(w: dict, r: random.Random) -> list[dict]:
    """Claims about properties the wiki never states (NOT ENOUGH INFO)."""
    out = []
    for e in all_entities(w):
        preds = NEI_PREDICATES[e["type"]]
        for pred in r.sample(preds, min(3, len(preds))):
            # a year after the entity exists, so the wiki cannot refute it by dates
            lo = {"person": e.get("birth_year", 0) + 18, "town": e.get("founded"), "company": e.get("founded"),
                  "band": e.get("formed"), "species": e.get("described")}.get(e["type"]) or 1850
            text = pred.format(prov=e.get("province", "Lowfen"), year=r.randint(max(lo, 1850), 2023),
                               town=r.choice([t for t in TOWN_NAMES if t != e["name"]]))
            subj = r.choice(subject_forms(e))
            out.append({"label": "NOT ENOUGH INFO", "claim": f"{subj} {text}.", "groups": [], "kind": "nei",
                        "fact": (e["title"], "nei:" + pred), "etype": e["type"]})
    return out


def negation_matches(pred: str, neg: str | None) -> bool:
    """True when the negated template is the predicate with one "not" added (a narrow mutation)."""
    return bool(neg) and neg.replace(" not", "", 1) == pred


def pick_claims(w: dict, where: dict, part: str, n_dev: int, n_train: int,
                singles: list[dict], multis: list[dict], neis: list[dict]) -> tuple[list[dict], list[dict]]:
    """Choose the dev and train claim drafts from the candidate drafts.

    Facts (entity, attribute) are split between dev and train, so no fact is asked about in both.
    Dev gets numeric mutation pairs, negation pairs and two case/punctuation duplicates on top of
    a label-balanced draw; train is a label-balanced draw from the other facts.
    """
    r = rng_for(part + ":pick")
    pools = value_pools(w)
    facts = sorted({d["fact"] for d in singles + multis + neis}, key=str)
    r.shuffle(facts)
    dev_facts = set(facts[: int(len(facts) * 0.4)])
    used = set()
    by_title = {e["title"]: e for e in all_entities(w)}

    def take(cands, label, k, split_facts, kinds=None):
        got = []
        for d in cands:
            if len(got) == k:
                break
            if d["label"] != label or d["fact"] not in split_facts or d["fact"] in used:
                continue
            if kinds and d["kind"] not in kinds:
                continue
            got.append(dict(d))
            used.add(d["fact"])
        return got

    singles = singles[:]
    multis = multis[:]
    neis = neis[:]
    r.shuffle(singles)
    r.shuffle(multis)
    r.shuffle(neis)
    dev: list[dict] = []
    # numeric mutation pairs (same wording, one number changed) and negation pairs
    n_mut = n_neg = 0
    for d in singles:
        if d["fact"] not in dev_facts or d["fact"] in used or d["label"] != "SUPPORTS" or d["kind"] != "plain":
            continue
        kind, preds, neg = PREDICATES[(d["etype"], d["fact"][1])]
        e = by_title[d["fact"][0]]
        if kind in ("year", "int", "small") and n_mut < 6:
            wv = wrong_value(kind, d["value"], pools, r)
            orig = {**d, "claim": f"{d['subj']} {fmt_pred(d['pred'], d['value'], e)}."}
            mut = {**d, "label": "REFUTES", "kind": "mutation", "claim": f"{d['subj']} {fmt_pred(d['pred'], wv, e)}."}
            dev += [orig, mut]
            used.add(d["fact"])
            n_mut += 1
        elif negation_matches(preds[0], neg) and n_neg < 5:
            orig = {**d, "claim": f"{d['subj']} {fmt_pred(preds[0], d['value'], e)}."}
            negd = {**d, "label": "REFUTES", "kind": "negation", "claim": f"{d['subj']} {fmt_pred(neg, d['value'], e)}."}
            dev += [orig, negd]
            used.add(d["fact"])
            n_neg += 1
    # two duplicates modulo case / punctuation
    dup_src = [dev[0], dev[4]]
    dev.append({**dup_src[0], "kind": "duplicate", "claim": dup_src[0]["claim"].rstrip(".").lower()})
    dev.append({**dup_src[1], "kind": "duplicate", "claim": dup_src[1]["claim"].replace(".", " !").upper()[:1]
                + dup_src[1]["claim"].replace(".", " !")[1:]})
    per_label = n_dev // 3
    for label in ("SUPPORTS", "REFUTES"):
        have = sum(1 for d in dev if d["label"] == label)
        n_multi = per_label // 3
        dev += take(multis, label, n_multi // 2, dev_facts, kinds=("described",))
        dev += take(multis, label, 2, dev_facts, kinds=("conjunction",))
        dev += take(multis, label, n_multi - n_multi // 2 - 2, dev_facts, kinds=("hop",))
        n_negated = 3 if label == "SUPPORTS" else 0  # "X is not Y" claims that are true
        dev += take(singles, label, n_negated, dev_facts, kinds=("negation",))
        dev += take(singles, label, per_label - have - n_multi - n_negated + (1 if label == "SUPPORTS" else 0),
                    dev_facts, kinds=("plain",))
    dev += take(neis, "NOT ENOUGH INFO", n_dev - len(dev), dev_facts)
    train_facts = set(facts) - dev_facts
    train: list[dict] = []
    per_label = n_train // 3
    for label in ("SUPPORTS", "REFUTES"):
        train += take(multis, label, per_label // 8, train_facts, kinds=("described",))
        train += take(multis, label, per_label // 4 - per_label // 8, train_facts, kinds=("conjunction", "hop"))
        train += take(singles, label, 4, train_facts, kinds=("negation",))
        train += take(singles, label, per_label - per_label // 4 - 4, train_facts, kinds=("plain",))
    train += take(neis, "NOT ENOUGH INFO", n_train - len(train), train_facts)
    return dev, train


def fever_records(drafts: list[dict], part: str, ids: list[int]) -> list[dict]:
    """FEVER claim records: integer ids, ``verifiable``, evidence groups of [ann, ev, page, line]."""
    r = rng_for(part + ":ids")
    ann = 100000 + r.randint(0, 50000)
    ev = 200000 + r.randint(0, 50000)
    out = []
    for cid, d in zip(ids, drafts):
        if d["label"] == "NOT ENOUGH INFO":
            ann += 1
            evidence = [[[ann, None, None, None]]]
        else:
            evidence = []
            groups = list(d["groups"])
            if r.random() < 0.25:  # a second annotator found the same evidence
                groups.append(groups[0])
            for g in groups:
                ann += 1
                grp = []
                for page, line in g:
                    ev += 1
                    grp.append([ann, ev, page, line])
                evidence.append(grp)
        out.append({"id": cid, "verifiable": "NOT VERIFIABLE" if d["label"] == "NOT ENOUGH INFO" else "VERIFIABLE",
                    "label": d["label"], "claim": fix_articles(d["claim"]), "evidence": evidence})
    return out

def write_fever(w: dict, out: Path) -> dict:
    """Write the FEVER wiki and claim files; return label counts for the README."""
    pages, where = fever_pages(w)
    write_jsonl(out / "fever" / "wiki-pages" / "wiki-001.jsonl", pages)
    singles = single_fact_claims(w, where, rng_for("fever:singles"))
    multis = multi_fact_claims(w, where, rng_for("fever:multis"))
    neis = nei_claims(w, rng_for("fever:nei"))
    dev, train = pick_claims(w, where, "fever", 100, 150, singles, multis, neis)
    ids = rng_for("fever:ids").sample(range(10000, 230000), len(dev) + len(train))  # unique across splits
    dev_rec = fever_records(dev, "fever:dev", ids[:len(dev)])
    train_rec = fever_records(train, "fever:train", ids[len(dev):])
    write_jsonl(out / "fever" / "paper_dev.jsonl", dev_rec)
    write_jsonl(out / "fever" / "train.jsonl", train_rec)
    return {"pages": len(pages), "dev": dev_rec, "train": train_rec}
