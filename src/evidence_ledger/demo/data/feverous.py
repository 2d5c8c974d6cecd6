"""FEVEROUS-style demo data: page JSON with infoboxes, tables, sections and lists; claims with cell evidence.

In:  the world of :mod:`.world`.
Out: ``feverous/pages.jsonl``, ``feverous/feverous_wikiv1.db`` (SQLite ``wiki(id, data)`` built
     from pages.jsonl), ``feverous/dev.jsonl``, ``feverous/train.jsonl``, ``feverous/pool.jsonl``
     and ``feverous/reserved_ids.txt``, in the official release formats.
"""
from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from pathlib import Path

from .world import fix_articles, rng_for, value_pools, wrong_value, write_jsonl


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
