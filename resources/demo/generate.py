#!/usr/bin/env python3
"""Write the embedded demo data of Evidence Ledger (standard library only, seeded, byte-identical).

The fictional world
-------------------
Everything here describes **Varenholm**, an invented small country with three provinces
(Eastmarch, Lowfen, High Pell), six rivers that rise on three mountains, sixteen towns on
those rivers, twenty people (musicians, novelists, engineers, botanists, politicians,
painters), eight bands, ten companies (three of them record labels) and ten native species.
Every attribute of every entity (founding years, populations, lengths, founders, members,
albums, census counts, ...) is drawn once from a seeded RNG into one in-memory world; the
wiki pages and every claim are then *rendered from that same world*, so a SUPPORTS claim is
entailed by its gold lines, a REFUTES claim contradicts them (a changed value, an entity
swap, a negation of a true statement) and a NOT ENOUGH INFO claim asks about a property the
wiki never states (festivals, hobbies, tours, ...).

A second, biomedical world (invented compounds, genes and conditions) feeds the SciFact-style
corpus; the knowledge-conflict sets (WikiContradict-style rows, NQ-CC/TQA-CC-style items and
reader runs) ask questions about Varenholm and pair a passage with the world's answer with one
that states a conflicting value.

What is written (all under ``--out``, default: the directory of this script), in the official
release formats so the same readers load the demo and the real benchmarks:

* ``fever/wiki-pages/wiki-001.jsonl``, ``fever/paper_dev.jsonl``, ``fever/train.jsonl``
* ``feverous/pages.jsonl`` (page JSON, one page a line), ``feverous/feverous_wikiv1.db``
  (SQLite ``wiki(id, data)`` built from pages.jsonl), ``feverous/dev.jsonl``,
  ``feverous/train.jsonl``, ``feverous/pool.jsonl``, ``feverous/reserved_ids.txt``
* ``scifact/corpus.jsonl``, ``scifact/claims_dev.jsonl``, ``scifact/claims_train.jsonl``
* ``wikicontradict/WikiContradict_dataset_v1_rag_qa.csv``, ``wikicontradict/human_judgements.jsonl``
* ``conflict_qa/nqcc.jsonl``, ``conflict_qa/tqacc.jsonl``,
  ``conflict_qa/reader_runs/{hybrid,generated_only,retrieved_only,closed_book}.jsonl``

Run ``python resources/demo/generate.py [--out DIR]``; two runs give byte-identical files.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import random
import re
import sqlite3
import tempfile
from pathlib import Path

SEED = 20261129


def rng_for(part: str) -> random.Random:
    """A RNG for one part of the data, seeded from (SEED, part): parts never share a stream."""
    return random.Random(f"{SEED}:{part}")


def fix_articles(text: str) -> str:
    """'a' -> 'an' before a vowel sound (templates insert values after a fixed 'a')."""
    return re.sub(r"\b([Aa]) (?=[aeiouAEIOU])", lambda m: m.group(1) + "n ", text)


def dumps(obj) -> str:
    """One JSON line as the official releases write them (", " and ": " separators, ASCII)."""
    return json.dumps(obj, ensure_ascii=True)


# ============================================================================================
# 1. The world
# ============================================================================================

PROVINCES = ["Eastmarch", "Lowfen", "High Pell"]
FEMALE = ["Ada", "Brina", "Celia", "Dorota", "Elsa", "Freya", "Greta", "Hanna", "Ilse", "Jorun",
          "Katla", "Liv", "Mira", "Nora", "Oda", "Runa"]
MALE = ["Anders", "Bram", "Casper", "Dag", "Emil", "Finn", "Gorm", "Halvard", "Ivo", "Jarle",
        "Kasimir", "Leif", "Magnus", "Nils", "Osvald", "Piet"]
SURNAMES = ["Arvedal", "Brekke", "Colvin", "Drummond", "Eskeland", "Falk", "Grimsby", "Holloway",
            "Ingram", "Juhl", "Kestrel", "Lindqvist", "Marrow", "Nyberg", "Ostrander", "Pryce",
            "Quist", "Rask", "Solberg", "Thorne", "Ulfsson", "Vance", "Wexley", "Yarrow"]
TOWN_NAMES = ["Velmora", "Daskirk", "Orrinford", "Pellham", "Quessa", "Brantwick", "Lowmere",
              "Tarrow", "Caddowick", "Skelby", "Fennor", "Marisk", "Holtby", "Ivenport",
              "Grelling", "Sundrake"]
RIVER_NAMES = ["Ossel", "Varn", "Lirren", "Caddow", "Meskel", "Orrin"]
TRIBUTARIES = ["Brook Sallow", "Kettle Water", "Nettlebeck", "Greywash", "Hobb Stream", "Tamsey Beck"]
MOUNTAINS = [("Mount Hollis", "Skarran Range"), ("Skarra Peak", "Skarran Range"),
             ("Mount Eddon", "Pell Highlands")]
MOUTHS = ["the Gullet Sea", "Lake Tamsin", "the Gullet Sea", "the Northern Sound", "Lake Tamsin",
          "the Northern Sound"]
KNOWN_FOR = ["glassmaking", "salt mining", "wool trade", "shipbuilding", "cheese making",
             "clockmaking", "paper milling", "copper smelting", "pottery", "boat racing",
             "lace weaving", "brewing", "marble quarrying", "bell founding", "rope making",
             "organ building"]
ORIGINS = ["market town", "fishing village", "garrison", "monastery settlement", "river ford"]
GENRES = ["folk rock", "synth-pop", "post-punk", "jazz fusion", "indie folk", "heavy metal",
          "dream pop", "bluegrass"]
INSTRUMENTS = ["bass guitar", "drums", "violin", "lead guitar", "keyboards", "accordion", "cello"]
BAND_NAMES = ["The Lirren Bells", "Tarrow", "Salt and Lantern", "Grey Heron Choir", "Night Ferry",
              "The Copper Saints", "Marble Owls", "Kettle Water"]
ALBUM_WORDS = ["Harbour", "Winter", "Lantern", "Copper", "Glass", "Echo", "Meadow", "North",
               "Hollow", "Ember", "Tide", "Orchard", "Signal", "Velvet", "Stone", "Ashes"]
ALBUM_WORDS2 = ["Songs", "Lights", "Roads", "Hours", "Letters", "Rooms", "Lines", "Fires"]
LABELS = ["Kestrel Records", "Lowfen Sound", "Bellwire Music"]
COMPANIES = [("Arvedal Glassworks", "glass manufacturing", "Arvedal vase"),
             ("Nordvarn Rail", "railway engineering", "NV-4 locomotive"),
             ("Pellham Instruments", "precision instruments", "Tidemark barometer"),
             ("Ossel Salt Company", "salt production", "Ossel flake salt"),
             ("Brightmere Textiles", "textile", "Brightmere wool blanket"),
             ("Quessa Shipyards", "shipbuilding", "Quessa-class ferry"),
             ("Holtby Clockworks", "clockmaking", "Holtby tower clock")]
PARTIES = ["Green Harbour Party", "Varenholm Liberal Union"]
MUSEUMS = ["National Gallery of Varenholm", "Marisk Art Museum"]
SPECIES = [("Ossel trout", "Salmo osselensis", "freshwater fish"),
           ("Velmora moth", "Noctua velmorae", "moth"),
           ("Varn heron", "Ardea varnensis", "heron"),
           ("Lirren orchid", "Dactylorhiza lirrenica", "orchid"),
           ("Caddow frog", "Rana caddowensis", "frog"),
           ("Meskel fern", "Polystichum meskelense", "fern"),
           ("Orrin crayfish", "Astacus orrinensis", "crayfish"),
           ("Pell ptarmigan", "Lagopus pellensis", "grouse"),
           ("Tamsin pike", "Esox tamsinensis", "freshwater fish"),
           ("Skarra saxifrage", "Saxifraga skarrensis", "flowering plant")]
STATUSES = ["least concern", "near threatened", "vulnerable", "endangered"]
MONTHS = ["April", "May", "June", "July", "August", "September"]
NOVEL_TITLES = ["The Salt Road", "A House on the Varn", "Lanterns for the Drowned", "The Clockmaker's Wife"]
PAINTINGS = ["Ferry at Dusk", "The Glass Harvest", "Women of Lowmere"]


def page_id(title: str) -> str:
    """FEVER page id for a title: spaces -> underscores, brackets -> -LRB-/-RRB-."""
    return title.replace(" ", "_").replace("(", "-LRB-").replace(")", "-RRB-")


def build_world() -> dict:
    """Draw every entity and attribute of Varenholm from one seeded RNG (see module docstring)."""
    r = rng_for("world")
    w: dict = {}
    # names: unique (first, last) pairs; the 20 page people get distinct surnames
    combos = [(f, s, "f") for f in FEMALE for s in SURNAMES] + [(f, s, "m") for f in MALE for s in SURNAMES]
    r.shuffle(combos)
    page_people, used_surnames, extra_names = [], set(), []
    for first, surname, g in combos:
        if len(page_people) < 20 and surname not in used_surnames and (g == "f") == (len(page_people) % 2 == 0):
            page_people.append((f"{first} {surname}", g))
            used_surnames.add(surname)
        elif surname not in used_surnames and len(extra_names) < 90:
            extra_names.append(f"{first} {surname}")
    # a surname alone names at most one page person
    extra_names = [n for n in extra_names if n.split()[-1] not in used_surnames]
    mountains = []
    for name, rng_name in MOUNTAINS:
        mountains.append({"type": "mountain", "name": name, "title": name, "range": rng_name,
                          "height": r.randint(1800, 3400), "ascent_year": r.randint(1790, 1905),
                          "climber": extra_names.pop()})
    w["mountains"] = mountains

    rivers = []
    for i, name in enumerate(RIVER_NAMES):
        rivers.append({"type": "river", "name": name, "title": f"{name} River",
                       "length": r.randint(80, 640), "source": mountains[i % 3]["name"],
                       "mouth": MOUTHS[i], "basin": r.randint(12, 95) * 100,
                       "mapped": r.randint(1688, 1850), "surveyor": extra_names.pop(),
                       "tributary": TRIBUTARIES[i], "towns": []})
    w["rivers"] = rivers

    towns = []
    known = KNOWN_FOR[:]
    r.shuffle(known)
    for i, name in enumerate(TOWN_NAMES):
        river = rivers[i % 6]
        t = {"type": "town", "name": name, "title": name, "province": PROVINCES[(i * 5) % 3],
             "river": river["name"], "river_km": r.randint(5, river["length"] - 3),
             "founded": r.randint(1120, 1880), "origin": r.choice(ORIGINS),
             "population": r.randint(32, 980) * 100 + r.randint(1, 99),
             "elevation": r.randint(3, 900), "known_for": known[i],
             "mayor_since": r.randint(2004, 2022)}
        # census history: growing mostly, one town shrinks
        p2020 = t["population"]
        hist = {2020: p2020}
        for yr, f in ((2000, r.uniform(0.8, 0.97)), (1950, r.uniform(0.45, 0.8)), (1900, r.uniform(0.2, 0.5))):
            hist[yr] = int(p2020 * f)
        if i in (3, 11):  # Pellham and Marisk shrank after 2000
            hist[2000] = int(p2020 * 1.21)
        t["census"] = hist
        river["towns"].append(name)
        towns.append(t)
    for i, t in enumerate(towns):
        t["twin"] = towns[(i + 5) % 16]["name"]
    w["towns"] = towns

    # people
    occupations = (["musician"] * 7 + ["novelist"] * 3 + ["engineer"] * 3 + ["botanist"] * 3
                   + ["politician"] * 2 + ["painter"] * 2)
    people = []
    for i, ((name, g), occ) in enumerate(zip(page_people, occupations)):
        p = {"type": "person", "name": name, "title": name, "gender": g, "occupation": occ,
             "birth_year": r.randint(1931, 1996), "birthplace": towns[(i * 3 + 1) % 16]["name"],
             "university": towns[(i * 7 + 4) % 16]["name"],
             "prize_year": None}
        if i % 3 == 0:
            p["prize_year"] = p["birth_year"] + r.randint(30, 45)
            p["prize_field"] = {"musician": "music", "novelist": "literature", "engineer": "engineering",
                                "botanist": "science", "politician": "public service",
                                "painter": "the visual arts"}[occ]
        people.append(p)
    w["people"] = people
    by_occ = {o: [p for p in people if p["occupation"] == o] for o in set(occupations)}

    # companies: 7 industrial + 3 labels
    companies = []
    for i, (name, industry, product) in enumerate(COMPANIES + [(l, "record label", None) for l in LABELS]):
        founder = by_occ["engineer"][i] if i < 3 else None
        c = {"type": "company", "name": name, "title": name, "industry": industry, "product": product,
             "hq": towns[(i * 5 + 2) % 16]["name"], "founded": r.randint(1868, 2008),
             "founder": founder["name"] if founder else extra_names.pop(),
             "employees": r.randint(4, 260) * 25, "revenue_year": 2022,
             "revenue": r.randint(12, 980), "listed": i % 2 == 0,
             "finance": {}}
        if founder:
            founder["company"] = name
            c["founded"] = min(2015, founder["birth_year"] + r.randint(24, 34))
        base = c["revenue"]
        for yr, f in ((2019, r.uniform(0.7, 0.95)), (2020, r.uniform(0.6, 0.9)), (2021, r.uniform(0.85, 1.1)), (2022, 1.0)):
            c["finance"][yr] = (max(1, int(base * f)), max(10, int(c["employees"] * r.uniform(0.85, 1.05))))
        c["finance"][2022] = (base, c["employees"])
        companies.append(c)
    w["companies"] = companies
    labels = companies[7:]

    bands = []
    musicians = by_occ["musician"]
    ins = INSTRUMENTS[:]
    r.shuffle(ins)
    aw = ALBUM_WORDS[:]
    r.shuffle(aw)
    for i, name in enumerate(BAND_NAMES):
        formed = r.randint(1968, 2012)
        members_pages = [m for j, m in enumerate(musicians) if j % 8 == i]
        others = [extra_names.pop() for _ in range(3 - len(members_pages))]
        albums = []
        year = formed + r.randint(1, 4)
        for k in range(r.randint(3, 5)):
            title = f"{aw[(i * 2 + k) % 16]} {ALBUM_WORDS2[(i + k * 3) % 8]}"
            albums.append({"title": title, "year": year, "peak": r.randint(1, 40),
                           "label": labels[(i + k) % 3]["name"]})
            year += r.randint(2, 5)
        b = {"type": "band", "name": name, "title": name if name != "Tarrow" else "Tarrow (band)",
             "genre": GENRES[i], "hometown": towns[(i * 2 + 3) % 16]["name"], "formed": formed,
             "members": [m["name"] for m in members_pages] + others, "albums": albums,
             "label": albums[0]["label"], "award_year": formed + r.randint(5, 15) if i % 2 == 1 else None}
        for m in members_pages:
            m["band"] = name
            m["band_title"] = b["title"]
            m["instrument"] = ins[musicians.index(m)]
            m["joined"] = formed + (0 if musicians.index(m) % 2 == 0 else r.randint(2, 6))
        bands.append(b)
    w["bands"] = bands

    for j, p in enumerate(by_occ["novelist"]):
        p["novel"], p["novel_year"] = NOVEL_TITLES[j], p["birth_year"] + r.randint(24, 40)
    for j, p in enumerate(by_occ["politician"]):
        t = towns[j * 6 + 2]
        p["mayor_of"], p["party"] = t["name"], PARTIES[j]
        t["mayor"] = p["name"]
        p["mayor_since"] = t["mayor_since"]
    for t in towns:
        t.setdefault("mayor", extra_names.pop())
    for j, p in enumerate(by_occ["painter"]):
        p["painting"], p["painting_year"] = PAINTINGS[j], p["birth_year"] + r.randint(25, 40)
        p["museum"] = MUSEUMS[j]

    species = []
    for i, (common, binomial, kind) in enumerate(SPECIES):
        describer = by_occ["botanist"][i] if i < 3 else None
        s = {"type": "species", "name": common, "title": common, "binomial": binomial, "kind": kind,
             "river": rivers[(i * 5 + 1) % 6]["name"], "described": r.randint(1870, 2015),
             "describer": describer["name"] if describer else extra_names.pop(),
             "size": r.randint(3, 95), "status": STATUSES[i % 4], "month": MONTHS[i % 6]}
        if describer:
            s["described"] = describer["birth_year"] + r.randint(26, 38)
            describer["species"] = common
            describer["species_year"] = s["described"]
        species.append(s)
    w["species"] = species
    w["extra_names"] = extra_names
    return w


def all_entities(w: dict) -> list[dict]:
    return w["towns"] + w["rivers"] + w["mountains"] + w["people"] + w["bands"] + w["companies"] + w["species"]


# ============================================================================================
# 2. FEVER wiki pages: one sentence per fact, with the location of every fact recorded
# ============================================================================================

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


# ============================================================================================
# 3. Claims about the world (shared by FEVER and FEVEROUS)
# ============================================================================================

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


def value_pools(w: dict) -> dict[str, list]:
    """Pools of alternative values for entity/string attributes (for REFUTES claims)."""
    return {
        "province": PROVINCES, "river": RIVER_NAMES, "known_for": KNOWN_FOR,
        "person": [p["name"] for p in w["people"]] + [t["mayor"] for t in w["towns"]],
        "town": TOWN_NAMES, "mountain": [m[0] for m in MOUNTAINS],
        "mouth": sorted(set(MOUTHS)), "tributary": TRIBUTARIES, "range": sorted({m[1] for m in MOUNTAINS}),
        "occupation": ["musician", "novelist", "engineer", "botanist", "politician", "painter"],
        "instrument": INSTRUMENTS, "band": BAND_NAMES, "novel": NOVEL_TITLES,
        "company": [c["name"] for c in w["companies"]], "species": [s[0] for s in SPECIES],
        "party": PARTIES, "painting": PAINTINGS, "museum": MUSEUMS, "genre": GENRES,
        "album": [a["title"] for b in w["bands"] for a in b["albums"]], "label": LABELS,
        "industry": sorted({c[1] for c in COMPANIES}) + ["record label"],
        "product": [c[2] for c in COMPANIES], "kind": sorted({s[2] for s in SPECIES}),
        "status": STATUSES, "month": MONTHS,
    }


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


def wrong_value(kind: str, v, pools: dict, r: random.Random, exclude=()):
    """A value of the same kind that differs from v (and from every value in exclude)."""
    bad = {v, *exclude}
    for _ in range(100):
        if kind == "year":
            cand = v + r.choice([-1, 1]) * r.randint(2, 31)
            if cand > 2024:
                continue
        elif kind == "int":
            cand = int(round(v * r.choice([0.5, 0.62, 0.75, 1.3, 1.45, 1.8])))
            if v > 1000:
                cand = cand // 10 * 10 + v % 10
        elif kind == "small":  # far enough apart that "about v" cannot cover it
            cand = v + r.choice([-1, 1]) * r.randint(max(2, v // 4), max(4, v // 2))
            if cand < 1:
                continue
        else:
            cand = r.choice(pools[kind.split(":", 1)[1]])
        if cand not in bad:
            return cand
    raise RuntimeError(f"no alternative value for {kind} {v!r}")


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


def write_jsonl(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(dumps(rec) + "\n")


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


# ============================================================================================
# 4. FEVEROUS: page JSON with infoboxes, tables, sections and lists; claims with cell evidence
# ============================================================================================

class FeverousPage:
    """Builds one FEVEROUS page JSON and the context (title, section, headers) of each element."""

    def __init__(self, title: str):
        self.title = title
        self.d: dict = {"title": title, "order": []}
        self.n = {"sentence": 0, "section": 0, "table": 0, "list": 0}
        self.section: str | None = None
        self.context: dict[str, list[str]] = {}

    def eid(self, local: str) -> str:
        return f"{self.title}_{local}"

    def _base_context(self) -> list[str]:
        ctx = [self.eid("title")]
        if self.section:
            ctx.append(self.eid(self.section))
        return ctx

    def sentence(self, text: str) -> str:
        text = fix_articles(text)
        k = f"sentence_{self.n['sentence']}"
        self.n["sentence"] += 1
        self.d["order"].append(k)
        self.d[k] = text
        self.context[self.eid(k)] = self._base_context()
        return self.eid(k)

    def add_section(self, value: str, level: int = 1) -> str:
        k = f"section_{self.n['section']}"
        self.n["section"] += 1
        self.d["order"].append(k)
        self.d[k] = {"value": value, "level": level}
        self.section = k
        return self.eid(k)

    def table(self, rows: list[list[tuple]], kind: str, caption: str | None = None, row_headers: bool = True) -> list[list[str]]:
        """rows: lists of (value, is_header[, column_span]); returns evidence ids per row/column.

        A data cell's context is title, section, its row header (column 0 when that is a header)
        and its column header (row 0 when that is a header).
        """
        t = self.n["table"]
        self.n["table"] += 1
        k = f"table_{t}"
        self.d["order"].append(k)
        table_rows, ids = [], []
        for ri, row in enumerate(rows):
            cells, row_ids = [], []
            for ci, cell in enumerate(row):
                value, is_header = cell[0], cell[1]
                span = cell[2] if len(cell) > 2 else 1
                local = f"{'header_cell' if is_header else 'cell'}_{t}_{ri}_{ci}"
                cells.append({"id": local, "value": str(value), "is_header": is_header,
                              "row_span": 1, "column_span": span})
                row_ids.append(self.eid(local))
            table_rows.append(cells)
            ids.append(row_ids)
        for ri, row in enumerate(rows):
            for ci, cell in enumerate(row):
                ctx = self._base_context()
                if row_headers and ci > 0 and rows[ri][0][1]:
                    ctx.append(ids[ri][0])
                if ri > 0 and len(rows[0]) == len(row) and rows[0][ci][1]:
                    ctx.append(ids[0][ci])
                self.context[ids[ri][ci]] = ctx
        body = {"type": kind, "table": table_rows}
        if caption is not None:
            body["caption"] = caption
            self.context[self.eid(f"table_caption_{t}")] = self._base_context()
        self.d[k] = body
        return ids

    def add_list(self, items: list[str], kind: str = "unordered_list") -> list[str]:
        li = self.n["list"]
        self.n["list"] += 1
        k = f"list_{li}"
        self.d["order"].append(k)
        entries = [{"id": f"item_{li}_{i}", "value": v, "level": 0} for i, v in enumerate(items)]
        self.d[k] = {"type": kind, "list": entries}
        ids = [self.eid(f"item_{li}_{i}") for i in range(len(items))]
        for x in ids:
            self.context[x] = self._base_context()
        return ids


def link(target: str, text: str | None = None) -> str:
    """A wiki link as FEVEROUS page text writes it: [[Target_page|anchor text]]."""
    return f"[[{target.replace(' ', '_')}|{text or target}]]"


def feverous_pages(w: dict) -> tuple[list[dict], dict, dict]:
    """The 40 FEVEROUS pages (towns, rivers, bands, companies).

    Returns (pages, ids, context): ``ids[title][name]`` gives evidence ids of the elements the
    claim templates need; ``context`` maps every evidence id to its released context list.
    """
    pages, ids, context = [], {}, {}
    people = {p["name"]: p for p in w["people"]}
    for t in w["towns"]:
        n = t["name"]
        P = FeverousPage(n)
        x = {}
        x["s0"] = P.sentence(f"{n} is a town in the {t['province']} province of Varenholm, on the "
                             f"{link(t['river'] + ' River')}.")
        rows = [[(n, True, 2)], [("Country", True), ("Varenholm", False)], [("Province", True), (t["province"], False)],
                [("River", True), (t["river"] + " River", False)], [("Founded", True), (t["founded"], False)],
                [("Population (2020)", True), (f"{t['population']:,}", False)],
                [("Elevation", True), (f"{t['elevation']} m", False)], [("Mayor", True), (t["mayor"], False)],
                [("Twin town", True), (t["twin"], False)]]
        ib = P.table(rows, "infobox")
        for key, r_ in (("province", 2), ("river", 3), ("founded", 4), ("population", 5), ("elevation", 6),
                        ("mayor", 7), ("twin", 8)):
            x["ib_" + key] = ib[r_][1]
        x["s1"] = P.sentence(f"It was founded in {t['founded']} as a {t['origin']}.")
        P.add_section("History")
        x["s2"] = P.sentence(f"For centuries the economy of {n} rested on {t['known_for']}.")
        x["s3"] = P.sentence(f"{t['mayor']} has been mayor of the town since {t['mayor_since']}.")
        P.add_section("Demographics")
        x["s4"] = P.sentence(f"The population of {n} has been counted in every national census since 1900.")
        years = [1900, 1950, 2000, 2020]
        rows = [[("Year", True), ("Population", True), ("Change", True)]]
        prev = None
        for yr in years:
            pop = t["census"][yr]
            change = "—" if prev is None else f"{(pop - prev) / prev * 100:+.1f}%"
            rows.append([(yr, False), (f"{pop:,}", False), (change, False)])
            prev = pop
        tb = P.table(rows, "table", caption=f"Population of {n} by census year", row_headers=False)
        x["census"] = {yr: tb[i + 1] for i, yr in enumerate(years)}
        x["census_caption"] = P.eid("table_caption_1")
        P.add_section("Notable people")
        natives = [p for p in w["people"] if p["birthplace"] == n]
        items = [f"{link(p['name'])} (born {p['birth_year']}), {p['occupation']}" for p in natives]
        items.append(f"{t['mayor']}, mayor")
        x["people"] = dict(zip([p["name"] for p in natives] + [t["mayor"]], P.add_list(items)))
        ids[n] = x
        pages.append(P.d)
        context.update(P.context)
    for rv in w["rivers"]:
        n = rv["title"]
        P = FeverousPage(n)
        x = {}
        x["s0"] = P.sentence(f"The {n} is a river in Varenholm.")
        rows = [[(n, True, 2)], [("Length", True), (f"{rv['length']} km", False)],
                [("Source", True), (rv["source"], False)], [("Mouth", True), (rv["mouth"].replace("the ", ""), False)],
                [("Basin size", True), (f"{rv['basin']:,} km2", False)],
                [("Main tributary", True), (rv["tributary"], False)], [("First mapped", True), (rv["mapped"], False)]]
        ib = P.table(rows, "infobox")
        for key, r_ in (("length", 1), ("source", 2), ("mouth", 3), ("basin", 4), ("tributary", 5), ("mapped", 6)):
            x["ib_" + key] = ib[r_][1]
        x["s1"] = P.sentence(f"It rises on {rv['source']} and flows into {rv['mouth']}.")
        P.add_section("Course")
        x["s2"] = P.sentence(f"The river was first mapped by {rv['surveyor']}.")
        towns = [t for t in w["towns"] if t["river"] == rv["name"]]
        towns.sort(key=lambda t: t["river_km"])
        rows = [[("Town", True), ("Distance from source (km)", True), ("Province", True)]]
        rows += [[(link(t["name"]), False), (t["river_km"], False), (t["province"], False)] for t in towns]
        tb = P.table(rows, "table", caption=f"Towns on the {n}", row_headers=False)
        x["towns"] = {t["name"]: tb[i + 1] for i, t in enumerate(towns)}
        P.add_section("Wildlife")
        sp = [s for s in w["species"] if s["river"] == rv["name"]]
        if sp:
            x["species"] = dict(zip([s["name"] for s in sp],
                                    P.add_list([f"{s['name']} ({s['binomial']})" for s in sp])))
        else:
            x["s3"] = P.sentence("No endemic species have been recorded along the river.")
        ids[n] = x
        pages.append(P.d)
        context.update(P.context)
    for b in w["bands"]:
        n = b["title"]
        P = FeverousPage(n)
        x = {}
        x["s0"] = P.sentence(f"{b['name']} is a Varenholmian {b['genre']} band formed in {link(b['hometown'])} in {b['formed']}.")
        labels = sorted({a["label"] for a in b["albums"]})
        rows = [[(b["name"], True, 2)], [("Origin", True), (f"{b['hometown']}, Varenholm", False)],
                [("Genres", True), (b["genre"], False)], [("Years active", True), (f"{b['formed']}–present", False)],
                [("Labels", True), (", ".join(labels), False)], [("Members", True), (", ".join(b["members"]), False)]]
        ib = P.table(rows, "infobox")
        for key, r_ in (("origin", 1), ("genre", 2), ("active", 3), ("labels", 4), ("members", 5)):
            x["ib_" + key] = ib[r_][1]
        P.add_section("History")
        a0 = b["albums"][0]
        x["s1"] = P.sentence(f"The band's debut album, {a0['title']}, came out in {a0['year']}.")
        if b["award_year"]:
            x["s2"] = P.sentence(f"{b['name']} won the Golden Reed award in {b['award_year']}.")
        P.add_section("Discography")
        rows = [[("Title", True), ("Year", True), ("Label", True), ("Peak position", True)]]
        rows += [[(a["title"], False), (a["year"], False), (a["label"], False), (a["peak"], False)] for a in b["albums"]]
        tb = P.table(rows, "table", caption="Studio albums", row_headers=False)
        x["albums"] = tb[1:]
        P.add_section("Members")
        items = [f"{m} – {people[m]['instrument']}" if m in people else m for m in b["members"]]
        x["members"] = dict(zip(b["members"], P.add_list(items)))
        ids[n] = x
        pages.append(P.d)
        context.update(P.context)
    for c in w["companies"]:
        n = c["name"]
        P = FeverousPage(n)
        x = {}
        x["s0"] = P.sentence(f"{n} is a Varenholmian {c['industry']} company based in {link(c['hq'])}.")
        rows = [[(n, True, 2)], [("Type", True), ("Public company" if c["listed"] else "Private company", False)],
                [("Industry", True), (c["industry"], False)], [("Founded", True), (c["founded"], False)],
                [("Founder", True), (c["founder"], False)], [("Headquarters", True), (c["hq"], False)],
                [("Employees (2022)", True), (f"{c['employees']:,}", False)]]
        ib = P.table(rows, "infobox")
        for key, r_ in (("type", 1), ("industry", 2), ("founded", 3), ("founder", 4), ("hq", 5), ("employees", 6)):
            x["ib_" + key] = ib[r_][1]
        P.add_section("History")
        x["s1"] = P.sentence(f"{c['founder']} founded the company in {c['founded']}.")
        P.add_section("Finances")
        x["s2"] = P.sentence("The table lists revenue and staff numbers reported in the annual accounts.")
        rows = [[("Year", True), ("Revenue (million krona)", True), ("Employees", True)]]
        fin_years = sorted(c["finance"])
        rows += [[(yr, False), (c["finance"][yr][0], False), (f"{c['finance'][yr][1]:,}", False)] for yr in fin_years]
        tb = P.table(rows, "table", caption="Financial results", row_headers=False)
        x["finance"] = {yr: tb[i + 1] for i, yr in enumerate(fin_years)}
        if c["product"]:
            P.add_section("Products")
            items = [c["product"], f"{n.split()[0]} service contracts", f"{n.split()[0]} spare parts"]
            x["products"] = P.add_list(items)
        else:
            P.add_section("Artists")
            signed = sorted({b["name"] for b in w["bands"] for a in b["albums"] if a["label"] == n})
            x["artists"] = dict(zip(signed, P.add_list(signed)))
        ids[n] = x
        pages.append(P.d)
        context.update(P.context)
    return pages, ids, context


N_VARIANTS = 3


def feverous_drafts(w: dict, ids: dict) -> list[dict]:
    """Candidate FEVEROUS claims: ``{"label", "claim", "sets": [[evidence ids]], "challenge", "fact"}``.

    NOT ENOUGH INFO claims carry the (insufficient) evidence an annotator would highlight, as in
    the release. Facts are keyed by (page, attribute) so dev/train/pool never share a fact.
    """
    r = rng_for("feverous:drafts")
    pools = value_pools(w)
    out = []

    def add(fact, label, claim, sets, challenge="Other", kind="plain"):
        out.append({"fact": fact, "label": label, "claim": claim, "sets": sets, "challenge": challenge, "kind": kind})

    r_variants = rng_for("feverous:variants")

    def sr(fact, kind_, v, make, sets, challenge="Other"):
        """One SUPPORTS and one REFUTES claim from a template function make(value).

        Also records training-only variants of the pair (``variants``: other phrasings of the
        true value, claims with other wrong values). They are drawn with the main stream's
        state saved and restored, so the claims above do not depend on them.
        """
        add(fact, "SUPPORTS", make(v), sets, challenge)
        wrong = wrong_value(kind_, v, pools, r)
        add(fact, "REFUTES", make(wrong), sets, challenge)
        state = r.getstate()
        out[-2]["variants"] = [make(v) for _ in range(N_VARIANTS)]
        wrongs = []
        for _ in range(N_VARIANTS):
            try:
                wrongs.append(wrong_value(kind_, v, pools, r_variants, exclude=(wrong, *wrongs)))
            except RuntimeError:  # a small pool (e.g. 3 mountains) runs out of other values
                break
        out[-1]["variants"] = [make(x) for x in wrongs]
        r.setstate(state)

    for t in w["towns"]:
        n, x = t["name"], ids[t["name"]]
        sr((n, "founded"), "year", t["founded"], lambda v: r.choice(
            [f"{n} was founded in {v}.", f"The town of {n} dates from {v}.", f"{n}, a town in Varenholm, was established in {v}."]),
           [[x["ib_founded"]], [x["s1"]]])
        sr((n, "mayor"), "pool:person", t["mayor"], lambda v: r.choice(
            [f"The mayor of {n} is {v}.", f"{v} is the mayor of {n}."]), [[x["ib_mayor"]], [x["s3"]]])
        sr((n, "elevation"), "int", t["elevation"], lambda v: f"{n} lies at an elevation of {v} metres.", [[x["ib_elevation"]]])
        sr((n, "twin"), "pool:town", t["twin"], lambda v: f"{n} has {v} as its twin town.", [[x["ib_twin"]]])
        yr = r.choice([1900, 1950, 2000])
        pop = t["census"][yr]
        sr((n, f"census{yr}"), "int", pop, lambda v: r.choice(
            [f"In {yr}, {n} had a population of {v:,}.", f"The {yr} census counted {v:,} people in {n}."]),
           [[x["census"][yr][0], x["census"][yr][1]]])
        # growth between two censuses (numerical reasoning)
        a_, b_ = r.choice([(1900, 1950), (1950, 2000), (2000, 2020)])
        grew = t["census"][b_] > t["census"][a_]
        ev = [[x["census"][a_][1], x["census"][b_][1], x["census"][a_][0], x["census"][b_][0]]]
        word = r.choice(["grew", "increased"])
        add((n, f"growth{a_}"), "SUPPORTS" if grew else "REFUTES",
            f"The population of {n} {word} between {a_} and {b_}.", ev, "Numerical Reasoning")
        add((n, f"decline{a_}"), "REFUTES" if grew else "SUPPORTS",
            f"{n} had fewer inhabitants in {b_} than in {a_}.", ev, "Numerical Reasoning")
        # table + text
        riv = t["river"]
        sr((n, "river+pop"), "int", t["population"], lambda v: f"{n}, a town on the {riv} River, had {v:,} inhabitants in 2020.",
           [[x["s0"], x["ib_population"]]], "Combining Tables and Text")
        prov = wrong_value("pool:province", t["province"], pools, r)
        add((n, "province"), "REFUTES", f"{n} is in the {prov} province and was founded in {t['founded']}.",
            [[x["ib_province"], x["ib_founded"]]], "Combining Tables and Text")
        add((n, "province"), "SUPPORTS", f"{n} is in the {t['province']} province and lies on the {riv} River.",
            [[x["ib_province"], x["ib_river"]]])
        # list
        for name, item in x["people"].items():
            if name in {p["name"] for p in w["people"]}:
                add((n, "native:" + name), "SUPPORTS", f"{name} is listed among the notable people of {n}.", [[item]])
                break
        # NOT ENOUGH INFO (evidence is what an annotator found, but it does not decide the claim)
        add((n, "nei_cathedral"), "NOT ENOUGH INFO", f"{n}, founded in {t['founded']}, has a cathedral with a copper spire.",
            [[x["ib_founded"]]])
        add((n, "nei_1980"), "NOT ENOUGH INFO", f"{n} had more than {t['census'][1950]:,} inhabitants in 1980.",
            [[x["census"][1950][1], x["census"][2000][1]]], "Numerical Reasoning")
        add((n, "nei_known"), "NOT ENOUGH INFO", f"{n}'s {t['known_for']} workshops employed {r.randint(2, 40) * 50} people in 1900.",
            [[x["s2"], x["census"][1900][1]]])
    for rv in w["rivers"]:
        n, x = rv["title"], ids[rv["title"]]
        sr((n, "length"), "int", rv["length"], lambda v: r.choice(
            [f"The {n} is {v} km long.", f"The {n} has a length of {v} kilometres."]), [[x["ib_length"]]])
        sr((n, "basin"), "int", rv["basin"], lambda v: f"The basin of the {n} covers {v:,} square kilometres.", [[x["ib_basin"]]])
        sr((n, "source"), "pool:mountain", rv["source"], lambda v: f"The {n} rises on {v}.", [[x["ib_source"]], [x["s1"]]])
        sr((n, "mapped"), "year", rv["mapped"], lambda v: f"The {n} was first mapped in {v} by {rv['surveyor']}.",
           [[x["ib_mapped"], x["s2"]]], "Combining Tables and Text")
        towns = sorted(x["towns"].items(), key=lambda kv: kv[0])
        tw = {t["name"]: t for t in w["towns"]}
        for tn, cells in towns[:2]:
            sr((n, "km:" + tn), "int", tw[tn]["river_km"],
               lambda v: f"{tn} lies {v} km from the source of the {n}.", [[cells[1], cells[0]]])
        if len(towns) >= 2:
            (t1, c1), (t2, c2) = towns[0], towns[1]
            further = tw[t1]["river_km"] > tw[t2]["river_km"]
            add((n, "order"), "SUPPORTS" if further else "REFUTES",
                f"{t1} is further from the source of the {n} than {t2}.", [[c1[1], c2[1], c1[0], c2[0]]],
                "Numerical Reasoning")
        add((n, "nei_ships"), "NOT ENOUGH INFO", f"The {n}, which is {rv['length']} km long, is navigable by cargo ships.",
            [[x["ib_length"]]])
        if "species" in x:
            sp, item = next(iter(x["species"].items()))
            add((n, "species"), "SUPPORTS", f"The {sp} lives along the {n}.", [[item]])
            add((n, "nei_species"), "NOT ENOUGH INFO", f"The {sp} is the largest animal living along the {n}.", [[item]])
    for b in w["bands"]:
        n, x = b["title"], ids[b["title"]]
        bn = b["name"]
        sr((n, "formed"), "year", b["formed"], lambda v: r.choice(
            [f"{bn} was formed in {v}.", f"{bn} has been active since {v}."]), [[x["ib_active"]], [x["s0"]]])
        sr((n, "genre"), "pool:genre", b["genre"], lambda v: f"{bn} is a {v} band.", [[x["ib_genre"]], [x["s0"]]])
        sr((n, "origin"), "pool:town", b["hometown"], lambda v: f"{bn} comes from {v}.", [[x["ib_origin"]]])
        for k, (a, cells) in enumerate(zip(b["albums"][:3], x["albums"][:3])):
            sr((n, f"peak{k}"), "small", a["peak"], lambda v: r.choice(
                [f"{a['title']} by {bn} peaked at number {v}.", f"The album {a['title']} reached number {v} on the chart."]),
               [[cells[3], cells[0]]])
            sr((n, f"year{k}"), "year", a["year"], lambda v: f"{bn} released {a['title']} in {v}.", [[cells[1], cells[0]]])
        sr((n, "n_albums"), "small", len(b["albums"]), lambda v: f"{bn} has released {v} studio albums.",
           [[row[0] for row in x["albums"]]], "Numerical Reasoning")
        best = min(range(len(b["albums"])), key=lambda k: (b["albums"][k]["peak"], k))
        add((n, "best"), "SUPPORTS", f"{b['albums'][best]['title']} is the highest-charting album by {bn}.",
            [[row[3] for row in x["albums"]] + [x["albums"][best][0]]], "Numerical Reasoning")
        other = [k for k in range(len(b["albums"])) if k != best][0]
        add((n, "best"), "REFUTES", f"{b['albums'][other]['title']} is the highest-charting album by {bn}.",
            [[row[3] for row in x["albums"]] + [x["albums"][other][0]]], "Numerical Reasoning")
        for m, item in x["members"].items():
            add((n, "member:" + m), "SUPPORTS", f"{m} is a member of {bn}.", [[item], [x["ib_members"]]])
            break
        add((n, "nei_tour"), "NOT ENOUGH INFO", f"{bn}, formed in {b['formed']}, toured Japan in {b['formed'] + 7}.",
            [[x["ib_active"]]])
        a1 = b["albums"][1]
        add((n, "nei_church"), "NOT ENOUGH INFO", f"{a1['title']}, which reached number {a1['peak']}, was recorded in a church.",
            [[x["albums"][1][3], x["albums"][1][0]]])
    for c in w["companies"]:
        n, x = c["name"], ids[c["name"]]
        sr((n, "founded"), "year", c["founded"], lambda v: r.choice(
            [f"{n} was founded in {v}.", f"{n} has existed since {v}."]), [[x["ib_founded"]], [x["s1"]]])
        sr((n, "founder"), "pool:person", c["founder"], lambda v: f"{n} was founded by {v}.", [[x["ib_founder"]], [x["s1"]]])
        sr((n, "hq"), "pool:town", c["hq"], lambda v: f"{n} has its headquarters in {v}.", [[x["ib_hq"]], [x["s0"]]])
        sr((n, "employees"), "int", c["employees"], lambda v: f"{n} had {v:,} employees in 2022.", [[x["ib_employees"]]])
        yr = r.choice([2019, 2020, 2021])
        sr((n, f"rev{yr}"), "int", c["finance"][yr][0], lambda v: r.choice(
            [f"{n} reported revenue of {v} million krona in {yr}.", f"In {yr}, the revenue of {n} was {v} million krona."]),
           [[x["finance"][yr][1], x["finance"][yr][0]]])
        up = c["finance"][2021][0] > c["finance"][2020][0]
        add((n, "rev_trend"), "SUPPORTS" if up else "REFUTES", f"{n}'s revenue rose from 2020 to 2021.",
            [[x["finance"][2020][1], x["finance"][2021][1]]], "Numerical Reasoning")
        add((n, "type"), "SUPPORTS" if c["listed"] else "REFUTES", f"{n} is a public company.", [[x["ib_type"]]])
        if "products" in x:
            add((n, "product"), "SUPPORTS", f"{n} makes the {c['product']}.", [[x["products"][0]]])
        elif x.get("artists"):
            band, item = next(iter(x["artists"].items()))
            add((n, "artist"), "SUPPORTS", f"{band} has released music on {n}.", [[item]])
        add((n, "nei_brazil"), "NOT ENOUGH INFO", f"{n}, based in {c['hq']}, has an office in Brazil.", [[x["ib_hq"]]])
        add((n, "nei_staff2018"), "NOT ENOUGH INFO", f"{n} had more than {c['finance'][2019][1]:,} employees in 2018.",
            [[x["finance"][2019][2]]], "Numerical Reasoning")
    return out


def feverous_record(cid: int, d: dict, context: dict) -> dict:
    """One claim line in the released FEVEROUS format (key order as released)."""
    evidence = []
    for content in d["sets"]:
        evidence.append({"content": list(content), "context": {e: context[e] for e in content}})
    ops = [{"operation": "start", "value": "start", "time": "0"},
           {"operation": "search", "value": d["claim"].split(" ")[0], "time": "3.5"}]
    ops += [{"operation": "Highlighting", "value": e, "time": f"{10 + i}.0"} for i, e in enumerate(d["sets"][0])]
    ops.append({"operation": "finish", "value": "finish", "time": "60.0"})
    return {"evidence": evidence, "id": cid, "claim": fix_articles(d["claim"]), "label": d["label"],
            "annotator_operations": ops, "challenge": d["challenge"]}


FEVEROUS_HEADER = {"evidence": [], "id": "", "claim": "", "label": "", "annotator_operations": [], "challenge": ""}


def split_feverous(drafts: list[dict]) -> dict[str, list[dict]]:
    """Split drafts by fact into dev (100), train (300) and pool (80), about 40/40/20 per label,
    plus ``train_extra`` (SUPPORTS / REFUTES training claims of train-only facts, see
    :func:`train_extra`; written after the first 300 train lines, ids drawn after the pool's,
    so dev, pool and those 300 lines do not depend on it).

    The pool also gets family members of its reserved claims (a one-number mutation, a negation and
    an exact duplicate modulo case) so that excluding reserved families removes more than the
    reserved ids themselves.
    """
    r = rng_for("feverous:split")
    facts = sorted({d["fact"] for d in drafts}, key=str)
    r.shuffle(facts)
    order = {f: i for i, f in enumerate(facts)}
    ds = sorted(drafts, key=lambda d: (order[d["fact"]], d["label"], d["claim"]))
    targets = {"dev": {"SUPPORTS": 40, "REFUTES": 40, "NOT ENOUGH INFO": 20},
               "pool": {"SUPPORTS": 30, "REFUTES": 30, "NOT ENOUGH INFO": 16},
               "train": {"SUPPORTS": 120, "REFUTES": 120, "NOT ENOUGH INFO": 60}}
    out = {k: [] for k in targets}
    fact_split: dict = {}
    seen_claims = set()
    for d in ds:
        key = d["claim"].lower()
        if key in seen_claims:
            continue
        split = fact_split.get(d["fact"])
        if split is None:
            for cand in ("dev", "pool", "train"):
                if sum(1 for x in out[cand] if x["label"] == d["label"]) < targets[cand][d["label"]]:
                    split = cand
                    break
            if split is None:
                continue
            fact_split[d["fact"]] = split
        if sum(1 for x in out[split] if x["label"] == d["label"]) >= targets[split][d["label"]]:
            continue
        out[split].append(d)
        seen_claims.add(key)
    out["train_extra"] = train_extra(ds, fact_split, seen_claims)
    return out


def train_extra(ds: list[dict], fact_split: dict, seen_claims: set) -> list[dict]:
    """Extra SUPPORTS / REFUTES training claims (appended after the first 300 train lines):
    the unused drafts of facts that are not in dev or pool, then the variants of the train
    pairs (other phrasings of a true value, other wrong values); balanced per label by
    cutting the larger class.

    Why: the demo verifier is a tiny model trained from random initialisation; with 240
    training examples it memorises the training entities and stays at chance on dev. Claims
    that differ only in the value force it to compare the claim's value with the evidence,
    which is what carries over to dev claims about other facts.
    """
    extra = []

    def take(d, claim):
        key = claim.lower()
        if key not in seen_claims:
            seen_claims.add(key)
            extra.append({**d, "claim": claim, "variants": []})

    for d in ds:
        if d["label"] != "NOT ENOUGH INFO" and fact_split.get(d["fact"], "train") == "train":
            take(d, d["claim"])
    for d in ds:
        if fact_split.get(d["fact"], "train") == "train":
            for claim in d.get("variants", []):
                take(d, claim)
    n = min(sum(d["label"] == l for d in extra) for l in ("SUPPORTS", "REFUTES"))
    kept = {"SUPPORTS": 0, "REFUTES": 0}
    out = []
    for d in extra:
        if kept[d["label"]] < n:
            kept[d["label"]] += 1
            out.append(d)
    return out


def feverous_pool_families(pool: list[dict]) -> tuple[list[dict], list[int]]:
    """Add mutation/negation/duplicate partners of four pool claims; return (pool, reserved indices)."""
    reserved = []
    extra = []
    def numbers(text):
        return [tok for tok in text.rstrip(".").split() if tok.replace(",", "").isdigit()]

    numeric = [i for i, d in enumerate(pool) if d["label"] == "SUPPORTS" and len(numbers(d["claim"])) == 1
               and d["challenge"] == "Other"]
    for i in numeric[:2]:
        d = pool[i]
        m = numbers(d["claim"])[0]
        new = str(int(m.replace(",", "")) + 3)
        extra.append({**d, "label": "REFUTES", "kind": "mutation", "claim": d["claim"].replace(m, new, 1)})
        reserved.append(i)
    for i, d in enumerate(pool):
        # only verbs where the negation inserts one "not" (a narrow negation mutation)
        verb = next((v for v in (" was founded in ", " was founded by ", " is a ", " is the ") if v in d["claim"]), None)
        if d["label"] == "SUPPORTS" and verb and i not in reserved:
            negated = verb.replace(" was ", " was not ").replace(" is ", " is not ")
            extra.append({**d, "label": "REFUTES", "kind": "negation", "claim": d["claim"].replace(verb, negated, 1)})
            reserved.append(i)
            break
    for i, d in enumerate(pool):
        if d["label"] == "REFUTES" and i not in reserved:
            extra.append({**d, "kind": "duplicate", "claim": d["claim"].lower().rstrip(".")})
            reserved.append(i)
            break
    return pool + extra, reserved


def write_feverous(w: dict, out: Path) -> dict:
    """Write pages.jsonl, the SQLite wiki built from it, dev/train/pool claims and reserved ids."""
    pages, ids, context = feverous_pages(w)
    fdir = out / "feverous"
    write_jsonl(fdir / "pages.jsonl", pages)
    build_feverous_db(fdir / "pages.jsonl", fdir / "feverous_wikiv1.db")
    drafts = feverous_drafts(w, ids)
    splits = split_feverous(drafts)
    splits["pool"], reserved_idx = feverous_pool_families(splits["pool"])
    r = rng_for("feverous:ids")
    total = sum(len(v) for v in splits.values())
    all_ids = r.sample(range(1000, 90000), total)
    records = {}
    pos = 0
    for split in ("dev", "train", "pool", "train_extra"):
        recs = [feverous_record(all_ids[pos + i], d, context) for i, d in enumerate(splits[split])]
        pos += len(recs)
        records[split] = recs
    records["train"] += records.pop("train_extra")
    for split in ("dev", "train", "pool"):
        write_jsonl(fdir / f"{split}.jsonl", [FEVEROUS_HEADER] + records[split])
    reserved = sorted(records["pool"][i]["id"] for i in reserved_idx)
    with open(fdir / "reserved_ids.txt", "w", encoding="utf-8", newline="\n") as fh:
        fh.write("".join(f"{i}\n" for i in reserved))
    return {"pages": len(pages), **records, "reserved": reserved}


def build_feverous_db(pages_jsonl: Path, db_path: Path) -> None:
    """SQLite wiki as released: table ``wiki(id TEXT PRIMARY KEY, data TEXT)``, data = page JSON.

    Written to a temporary file and moved into place, rows inserted in pages.jsonl order, so
    the file is byte-identical across runs with one SQLite version.
    """
    db_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".db", dir=db_path.parent)
    os.close(fd)
    os.unlink(tmp)
    con = sqlite3.connect(tmp)
    try:
        con.execute("CREATE TABLE wiki (id TEXT PRIMARY KEY, data TEXT)")
        with open(pages_jsonl, encoding="utf-8") as fh:
            rows = [(json.loads(line)["title"], line.rstrip("\n")) for line in fh]
        con.executemany("INSERT INTO wiki (id, data) VALUES (?, ?)", rows)
        con.commit()
    finally:
        con.close()
    os.replace(tmp, db_path)


# ============================================================================================
# 5. SciFact: an invented biomedical literature
# ============================================================================================

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


# ============================================================================================
# 6. WikiContradict-style rows and human judgements
# ============================================================================================

WIKICONTRADICT_COLUMNS = ["question_ID", "question", "context1", "context2", "answer1", "answer2", "contradictType",
                          "samepassage", "merged_context", "ref_answer", "WikipediaArticleTitle", "url"]


def wikicontradict_rows(w: dict) -> list[dict]:
    """20 rows: 12 explicit and 8 implicit contradictions, 5 of them inside one passage ("Same")."""
    r = rng_for("wikicontradict")
    rows = []
    towns, people, bands, rivers, comps = w["towns"], w["people"], w["bands"], w["rivers"], w["companies"]

    def row(question, c1, c2, a1, a2, implicit, same, title):
        if same and c1 != c2:  # one passage holds both statements
            c1 = c2 = f"{c1} {c2}"
        rows.append({"question": question, "context1": c1, "context2": c2, "answer1": a1, "answer2": a2,
                     "contradictType": "Implicit (reasoning required)" if implicit else "Explicit",
                     "samepassage": "Same" if same else "Different", "WikipediaArticleTitle": title,
                     "url": f"https://wiki.varenholm.example/wiki/{page_id(title)}"})

    for k, t in enumerate(towns[:6]):  # founding year: explicit, one implicit via an anniversary
        alt = t["founded"] + r.randint(8, 40)
        c1 = f"{t['name']} was founded in {t['founded']} as a {t['origin']} on the {t['river']} River."
        if k < 3:
            c2 = f"Town records date the founding of {t['name']} to {alt}, when a market charter was granted."
            row(f"When was {t['name']} founded?", c1, c2, str(t["founded"]), str(alt), False, k == 2, t["title"])
        elif k < 5:
            n = r.choice([300, 400, 500])
            c2 = f"In {alt + n}, {t['name']} celebrated the {n}th anniversary of its founding with a week of festivities."
            row(f"In what year was {t['name']} founded?", c1, c2, str(t["founded"]), str(alt), True, False, t["title"])
        else:
            both = (f"{t['name']} was founded in {t['founded']} as a {t['origin']}. Some historians instead give {alt} "
                    f"as the founding year, citing a lost charter.")
            row(f"When was {t['name']} founded?", both, both, str(t["founded"]), str(alt), False, True, t["title"])
    for k, p in enumerate(people[:5]):  # birth year: explicit, or implicit via an age at a dated event
        alt = p["birth_year"] + r.choice([-3, -2, 2, 4])
        pro = "she" if p["gender"] == "f" else "he"
        c1 = f"{p['name']} (born {p['birth_year']}) is a Varenholmian {p['occupation']} from {p['birthplace']}."
        if k < 2:
            c2 = f"{p['name']} was born in {alt} in {p['birthplace']}."
            row(f"In which year was {p['name']} born?", c1, c2, str(p["birth_year"]), str(alt), False, False, p["title"])
        elif k < 4:
            age = r.randint(20, 35)
            c2 = f"In {alt + age}, at the age of {age}, {pro} moved to {p['university']}."
            row(f"When was {p['name']} born?", c1, c2, str(p["birth_year"]), str(alt), True, False, p["title"])
        else:
            both = f"{p['name']} was born in {p['birth_year']}, although {pro} has said in interviews that {pro} was born in {alt}."
            row(f"What year was {p['name']} born?", both, both, str(p["birth_year"]), str(alt), False, True, p["title"])
    for k, b in enumerate(bands[:4]):  # formation year / hometown
        if k < 2:
            alt = b["formed"] + r.randint(1, 4)
            c1 = f"{b['name']} is a {b['genre']} band from {b['hometown']}, formed in {b['formed']}."
            c2 = (f"{b['name']} played their first concert in {alt}, a month after the band was formed."
                  if k == 1 else f"The band {b['name']} was formed in {alt}.")
            row(f"When was {b['name']} formed?", c1, c2, str(b["formed"]), str(alt), k == 1, False, b["title"])
        else:
            other = wrong_value("pool:town", b["hometown"], value_pools(w), r)
            c1 = f"{b['name']} was formed in {b['hometown']} in {b['formed']}."
            c2 = f"The members of {b['name']} met at school in {other}, where the band was founded."
            row(f"In which town was {b['name']} formed?", c1, c2, b["hometown"], other, k == 3, k == 2, b["title"])
    for k, rv in enumerate(rivers[:3]):  # length: explicit or implicit by comparison
        alt = rv["length"] + r.randint(15, 60)
        c1 = f"The {rv['title']} is {rv['length']} kilometres long and flows into {rv['mouth']}."
        if k < 2:
            c2 = f"With a length of {alt} km, the {rv['name']} is one of the longest rivers of Varenholm."
            row(f"How long is the {rv['title']}?", c1, c2, f"{rv['length']} km", f"{alt} km", False, k == 1, rv["title"])
        else:
            ref = rivers[5]
            c2 = f"The {rv['name']} is {alt - ref['length']} kilometres longer than the {ref['title']}, which is {ref['length']} km long."
            row(f"How long is the {rv['title']}?", c1, c2, f"{rv['length']} km", f"{alt} km", True, False, rv["title"])
    for k, c in enumerate(comps[:2]):  # employees, implicit by doubling
        alt = c["employees"] * 2 + 50
        c1 = f"{c['name']} employs about {c['employees']:,} people at its headquarters in {c['hq']}."
        c2 = f"The workforce of {c['name']} doubled after 2015 from {(alt // 2):,} to its present size."
        row(f"How many people does {c['name']} employ?", c1, c2, f"{c['employees']:,}", f"{alt:,}", True, False, c["title"])
    ids = list(range(1, len(rows) + 1))
    for qid, rw in zip(ids, rows):
        rw["question_ID"] = qid
        rw["merged_context"] = rw["context1"] if rw["samepassage"] == "Same" else rw["context1"] + "\n" + rw["context2"]
        rw["ref_answer"] = rw["answer1"] + "|" + rw["answer2"]
    r.shuffle(rows)  # the release is not sorted by question_ID either
    return rows


def human_judgements(rows: list[dict]) -> list[dict]:
    """30 project-written human labels of template-5 responses (rubric of SPEC section 7)."""
    r = rng_for("wikicontradict:human")
    by_id = sorted(rows, key=lambda x: x["question_ID"])
    out = []
    kinds = ["neutral", "attributed", "one", "prefer", "both_true", "wrong", "extra", "neutral", "one", "alternatives"]
    for k in range(30):
        rw = by_id[k % len(by_id)]
        a1, a2 = rw["answer1"], rw["answer2"]
        kind = kinds[(k * 3 + k // 10) % len(kinds)]
        if kind == "neutral":
            resp, lab = f"The passages conflict: one gives {a1}, while the other gives {a2}.", "correct"
        elif kind == "attributed":
            resp, lab = f"According to the first passage the answer is {a1}; the second passage says {a2}.", "correct"
        elif kind == "alternatives":
            resp, lab = f"It is either {a1} or {a2}; the sources disagree.", "correct"
        elif kind == "one":
            resp, lab = f"{a1 if k % 2 else a2}.", "partially correct"
        elif kind == "prefer":
            resp, lab = f"The answer is {a1}. One passage says {a2}, but that is probably a mistake.", "partially correct"
        elif kind == "extra":
            resp, lab = f"The answer is {a2}, or possibly the year 1900.", "partially correct"
        elif kind == "both_true":
            resp, lab = f"The answer is {a1} and {a2}.", "incorrect"
        else:
            resp, lab = "The passages do not say.", "incorrect"
        out.append({"question_ID": rw["question_ID"], "model": ["qwen3", "llama31"][k % 2], "template": "5",
                    "response": resp, "human_label": lab})
    return out


def write_wikicontradict(w: dict, out: Path) -> dict:
    rows = wikicontradict_rows(w)
    path = out / "wikicontradict" / "WikiContradict_dataset_v1_rag_qa.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.StringIO()
    wr = csv.DictWriter(buf, fieldnames=WIKICONTRADICT_COLUMNS, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
    wr.writeheader()
    for rw in rows:
        wr.writerow({k: rw[k] for k in WIKICONTRADICT_COLUMNS})
    path.write_text(buf.getvalue(), encoding="utf-8", newline="")
    judgements = human_judgements(rows)
    write_jsonl(out / "wikicontradict" / "human_judgements.jsonl", judgements)
    return {"rows": rows, "judgements": judgements}


# ============================================================================================
# 7. NQ-CC / TQA-CC-style context-conflict items and reader runs
# ============================================================================================

def conflict_questions(w: dict, style: str) -> list[dict]:
    """Question, gold answers, a wrong answer and the wiki passage that gives the gold answer."""
    r = rng_for("conflict:" + style)
    pools = value_pools(w)
    pages = {p["id"]: p for p in fever_pages(w)[0]}

    def passage(e, k=4):
        lines = pages[page_id(e["title"])]["lines"].split("\n")
        return " ".join(l.split("\t")[1] for l in lines[:k])

    qs = []
    for t in w["towns"]:
        wrong = wrong_value("year", t["founded"], pools, r)
        q = (f"when was {t['name']} founded" if style == "nq" else
             f"In which year was the Varenholmian town of {t['name']}, known for its {t['known_for']}, founded?")
        qs.append({"question": q, "answer": [str(t["founded"])], "wrong": str(wrong), "entity": t,
                   "passage": passage(t), "attr": "founded"})
        q = (f"what river does {t['name']} lie on" if style == "nq" else
             f"On which river does the town of {t['name']} stand?")
        qs.append({"question": q, "answer": [f"{t['river']} River", t["river"]],
                   "wrong": f"{wrong_value('pool:river', t['river'], pools, r)} River", "entity": t,
                   "passage": passage(t, 2), "attr": "river"})
    for c in w["companies"]:
        q = f"who founded {c['name']}" if style == "nq" else f"Which person founded the company {c['name']}?"
        qs.append({"question": q, "answer": [c["founder"]], "wrong": wrong_value("pool:person", c["founder"], pools, r),
                   "entity": c, "passage": passage(c, 3), "attr": "founder"})
    for b in w["bands"]:
        q = f"what genre of music does {b['name']} play" if style == "nq" else f"{b['name']} is a band of which musical genre?"
        qs.append({"question": q, "answer": [b["genre"]], "wrong": wrong_value("pool:genre", b["genre"], pools, r),
                   "entity": b, "passage": passage(b, 2), "attr": "genre"})
    for p in w["people"]:
        q = f"where was {p['name']} born" if style == "nq" else f"In which town was the {p['occupation']} {p['name']} born?"
        qs.append({"question": q, "answer": [p["birthplace"]], "wrong": wrong_value("pool:town", p["birthplace"], pools, r),
                   "entity": p, "passage": passage(p, 3), "attr": "birthplace"})
    r.shuffle(qs)
    return qs


def generated_passages(q: dict, answer: str, r: random.Random) -> list[str]:
    """Two or three LLM-style generated contexts of different lengths, all stating `answer`."""
    e = q["entity"]
    name = e["name"]
    core = {"founded": f"{name} was founded in {answer}.",
            "river": f"{name} is a town built on the banks of the {answer}.",
            "founder": f"{name} was founded by {answer}.",
            "genre": f"{name} is a Varenholmian {answer} band.",
            "birthplace": f"{name} was born in {answer}."}[q["attr"]]
    filler = [f"{name} is often mentioned in guides to Varenholm.",
              f"Local historians have written extensively about {name}.",
              f"Visitors to the region frequently ask about {name} and its history.",
              f"Much of what is known about {name} comes from regional newspapers.",
              f"{name} has been the subject of several documentary programmes."]
    r.shuffle(filler)
    short = fix_articles(core)
    medium = fix_articles(" ".join([filler[0], core, filler[1]]))
    long = fix_articles(" ".join([filler[2], filler[3], core, filler[4], filler[0]]))
    out = [short, medium, long]
    return out[: r.choice([2, 3])] if r.random() < 0.5 else out


def conflict_items(w: dict, style: str, n: int) -> list[dict]:
    """Reader-input items: about half with a wrong generated context (retrieved right), about a
    third with a wrong retrieved passage (a page about another entity; generated right), the
    rest with both right.
    """
    r = rng_for(f"conflict-items:{style}")
    qs = conflict_questions(w, style)[:n]
    by_type = {}
    for e in all_entities(w):
        by_type.setdefault(e["type"], []).append(e)
    items = []
    for k, q in enumerate(qs):
        gold = q["answer"][0]
        case = ["gen_wrong", "ret_wrong", "gen_wrong", "both_right", "ret_wrong", "gen_wrong"][k % 6]
        gen_ans = q["wrong"] if case == "gen_wrong" else gold
        gen = generated_passages(q, gen_ans, r)
        if case == "ret_wrong":
            others = [e for e in by_type[q["entity"]["type"]] if e["name"] != q["entity"]["name"]]
            other = others[r.randrange(len(others))]
            val = {"founded": lambda e: str(e["founded"]), "river": lambda e: f"{e['river']} River",
                   "founder": lambda e: e["founder"], "genre": lambda e: e["genre"],
                   "birthplace": lambda e: e["birthplace"]}[q["attr"]](other)
            if val in q["answer"]:
                val = q["wrong"]
            ret_passage = conflict_questions_passage(w, other, q["attr"])
            ret_ans = val
        else:
            ret_passage = q["passage"]
            ret_ans = gold
        items.append({"question": q["question"], "answer": q["answer"], "generated_passage": gen,
                      "retrieved_passage": [ret_passage], "generated_answer": gen_ans, "retrieved_answer": ret_ans,
                      "_case": case})
    return items


def conflict_questions_passage(w: dict, e: dict, attr: str) -> str:
    """The first wiki sentences of another entity's page (a retrieval error), enough to answer attr."""
    pages = {p["id"]: p for p in fever_pages(w)[0]}
    k = {"founded": 3, "river": 2, "founder": 3, "genre": 2, "birthplace": 3}[attr]
    lines = pages[page_id(e["title"])]["lines"].split("\n")
    return " ".join(l.split("\t")[1] for l in lines[:k])


def reader_runs(items: list[dict], part: str = "reader-runs") -> dict[str, list[dict]]:
    """Four official-style reader-output runs over the NQ-CC items (``response`` = [answer]).

    Built so that AIG and AIR are both non-empty after the official filters: three items have an
    "unknown"-like answer, four have a closed-book answer equal to a context answer, and hybrid
    answers follow the retrieved answer, the generated one, the closed-book one or something else.
    """
    r = rng_for(part)
    runs = {k: [] for k in ("hybrid", "generated_only", "retrieved_only", "closed_book")}
    unknown = ["unknown", "I don't know", "Unknown."]
    for k, it in enumerate(items):
        gen, ret = it["generated_answer"], it["retrieved_answer"]
        gen_resp = unknown[k // 13 % 3] if k in (7, 20, 33) else gen
        ret_resp = ret if k != 20 else "unknown"
        if k in (4, 15, 26, 37):
            closed = gen if k % 2 == 0 else ret
        else:
            closed = ["unknown", "I'm not sure", "Lowfen", "1850", "Nils Brekke"][k % 5]
        roll = r.random()
        if roll < 0.45:
            hybrid = gen_resp
        elif roll < 0.8:
            hybrid = ret_resp
        elif roll < 0.9:
            hybrid = closed
        else:
            hybrid = "Varenholm"
        if k % 7 == 3 and hybrid == ret:
            hybrid = "the " + hybrid  # an article: equal after SQuAD normalisation
        base = {"question": it["question"], "answer": it["answer"], "generated_passage": it["generated_passage"],
                "retrieved_passage": it["retrieved_passage"]}
        runs["hybrid"].append({**base, "response": [hybrid]})
        runs["generated_only"].append({**base, "response": [gen_resp]})
        runs["retrieved_only"].append({**base, "response": [ret_resp]})
        runs["closed_book"].append({**base, "response": [closed]})
    return runs


def write_conflict_qa(w: dict, out: Path) -> dict:
    cdir = out / "conflict_qa"
    nq = conflict_items(w, "nq", 40)
    tqa = conflict_items(w, "tqa", 25)
    runs = reader_runs(nq)
    tqa_hybrid = reader_runs(tqa, "reader-runs:tqacc")["hybrid"]

    def record(it, hybrid):
        # the official reader-output field ``response`` holds the hybrid reader's answer
        rec = {k: v for k, v in it.items() if not k.startswith("_")}
        rec["response"] = hybrid["response"]
        return rec

    write_jsonl(cdir / "nqcc.jsonl", [record(it, h) for it, h in zip(nq, runs["hybrid"])])
    write_jsonl(cdir / "tqacc.jsonl", [record(it, h) for it, h in zip(tqa, tqa_hybrid)])
    for name, recs in runs.items():
        write_jsonl(cdir / "reader_runs" / f"{name}.jsonl", recs)
    return {"nqcc": nq, "tqacc": tqa, "runs": runs}


# ============================================================================================
# 9. Entry point
# ============================================================================================

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent,
                    help="output directory (default: the directory of this script)")
    args = ap.parse_args(argv)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    w = build_world()
    write_fever(w, out)
    write_feverous(w, out)
    write_scifact(out)
    write_wikicontradict(w, out)
    write_conflict_qa(w, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
