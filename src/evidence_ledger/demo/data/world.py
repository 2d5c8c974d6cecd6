"""Varenholm, the demo's invented country, drawn once from seeded RNGs; shared by every benchmark module.

In:  nothing but :data:`SEED`. Every part of the data draws from its own stream
     (:func:`rng_for`: ``random.Random(f"{SEED}:{part}")``), so parts never share a stream and
     the order in which the benchmark modules run does not change what they write.
Out: :func:`build_world`, a dict of towns, rivers, mountains, people, bands, companies and
     species with every attribute (founding years, populations, lengths, founders, members,
     albums, census counts, ...); the FEVER, FEVEROUS, WikiContradict and NQ-CC/TQA-CC files
     are all rendered from it. Also the helpers the benchmark modules share: the value pools
     and :func:`wrong_value` (REFUTES claims and conflicting answers), :func:`page_id`,
     :func:`fix_articles` and the JSONL writer in the official releases' format.

Standard library only.
"""
from __future__ import annotations

import json
import random
import re
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

def write_jsonl(path: Path, records) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for rec in records:
            fh.write(dumps(rec) + "\n")

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
