"""The item explorer: one self-contained HTML page of the items behind each decomposition.

In:  aligned lists of ITEMS and ITEM_TEXTS Parquet paths (``tables.items``; ``item_texts[i]`` is
     the table written beside ``items[i]``: one pair per accounting, e.g. Study 1's, Study 2's,
     each accounted system's, or an ``account --out`` directory's).
Out: one HTML file (``items.html``) that needs no server and fetches nothing: its style, its
     script (``templates/items.js``) and its data are inline. The data are compressed payloads
     (``report.item_payloads``: one per comparison, one per dataset, one per chunk of a dataset's
     texts) that the page decompresses when it shows them, and a small index (JSON) of the
     comparisons and payloads. The page is written in windows-1252, so that each byte of a
     payload is one character of it (``item_payloads.escaped``); everything else on it is ASCII
     (other characters as HTML character references or JSON / JavaScript escapes).

In the browser: choose a comparison (or its study, dataset, system, format, parser, budget) and
a component (gain, E0, A1, A0, E1, interaction); its items are grouped by the sign of their share
of that component (raise it, lower it, leave it), largest share first, with the count of each
group; filter by gold label, transition pattern and text; open an item to read its claim, gold,
each source's evidence and each run's answers. The state is the URL's fragment
(``report.item_links``), so a link opens the page on one view; ``#status`` and each group's
``data-count`` expose what is shown to a headless browser.
"""
from __future__ import annotations

import functools
import json
import logging
import os
from pathlib import Path
from typing import BinaryIO, Mapping, Sequence

import jinja2
from markupsafe import Markup

from ..files.safe_files import atomic_file
from ..tables.items import ITEM_CELLS, ITEM_COMPONENTS
from .item_payloads import Payload, comparison_payloads, text_payloads
from .study1_rows import STUDY1_CELLS, STUDY1_COMPONENTS

log = logging.getLogger(__name__)

#: the component the page groups by when its address names none: the evidence part of the gain
DEFAULT_COMPONENT = "E0"
#: the type of a payload's script element (not JavaScript: the browser only keeps its text)
PAYLOAD_TYPE = "application/x-evidence-ledger-gzip"
TITLE = "Evidence Ledger: the items behind each decomposition"
LEDE = ("A component of a decomposition (gain, E0, A1, A0, E1, interaction) is a mean over items: an item's share is "
        "its own T01 − T00 for E0 (and so on; T_ab scores source-a answers with source-b evidence, in points), and "
        "the mean of the shares over a comparison's items is the component. Choose a comparison and a component: "
        "the items that raise it, lower it and leave it, largest share first; filter them, and open one to read "
        "its claim, its evidence and its answers. The page's address holds what it shows, so a link opens the "
        "same view.")


@functools.cache
def page_templates() -> jinja2.Environment:
    """The templates of this package (``templates/items_top.html``, ``items_bottom.html``,
    ``items.css``, ``items.js``), autoescaped."""
    return jinja2.Environment(loader=jinja2.PackageLoader(__package__, "templates"), autoescape=True,
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def template_text(name: str) -> str:
    """A template file's text as it is (the style sheet, the script)."""
    environment = page_templates()
    return environment.loader.get_source(environment, name)[0]


def script_safe_json(document) -> str:
    """``document`` as ASCII JSON that cannot end or confuse the script element holding it:
    ``<``, ``>`` and ``&`` written as ``\\u003c``, ``\\u003e``, ``\\u0026`` (the same string to
    ``JSON.parse``)."""
    text = json.dumps(document, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def ascii_html(text: str) -> bytes:
    """Rendered HTML as ASCII bytes, other characters as character references (the page is
    windows-1252, which would misread UTF-8)."""
    return text.encode("ascii", "xmlcharrefreplace")


def write_payload(out: BinaryIO, payload: Payload) -> None:
    """One payload as a script element of type :data:`PAYLOAD_TYPE` (its bytes hold no ``<``)."""
    out.write(f'<script type="{PAYLOAD_TYPE}" id="{payload.name}">'.encode("ascii") + payload.data
              + b"</script>\n")


def definitions() -> dict[str, str]:
    """cell or component -> its definition (the summary page's Study 1 wording)."""
    return dict(STUDY1_CELLS + STUDY1_COMPONENTS)


def unique_keys(comparisons: Sequence[Mapping], parts: Sequence[Mapping]) -> None:
    """Two comparisons with one key (from two tables) would make a link ambiguous: ValueError
    naming both tables."""
    first: dict[str, int] = {}
    for c in comparisons:
        if c["key"] in first and first[c["key"]] != c["part"]:
            raise ValueError(f"comparison {c['key']!r} is in both {parts[first[c['key']]]['items']} and "
                             f"{parts[c['part']]['items']}; one page cannot tell them apart")
        first.setdefault(c["key"], c["part"])


def write_part(out: BinaryIO, part: int, items, item_texts, page_dir: Path) -> tuple[dict, list[dict]]:
    """One ITEMS / ITEM_TEXTS pair's payloads written to ``out``; returns its index entry
    (where its tables are, relative to the page, and its datasets' payloads) and its comparisons
    (sorted by key)."""
    comparisons = []
    for entry, payload in comparison_payloads(items, f"p{part}"):
        write_payload(out, payload)
        comparisons.append(dict(entry, part=part))
    datasets = {}
    for entry, payload in text_payloads(item_texts, f"p{part}"):
        write_payload(out, payload)
        if "chunks" in entry:
            datasets[entry["dataset"]] = {"payload": entry["payload"], "items": entry["items"],
                                          "chunks": entry["chunks"]}
    where = {"items": os.path.relpath(items, page_dir), "item_texts": os.path.relpath(item_texts, page_dir)}
    return dict(where, datasets=datasets), sorted(comparisons, key=lambda c: c["key"])


def write_items_page(*, items: Sequence, item_texts: Sequence, html_out, title: str = TITLE,
                     summary_href: str | None = "summary.html") -> Path:
    """Write the item explorer of the ITEMS tables ``items`` and the ITEM_TEXTS tables
    ``item_texts`` (aligned lists of paths) to ``html_out`` (atomically), and return its path.
    ``summary_href``: the summary page's URL relative to the page (a link in its header; None:
    no link). The tables are read batch by batch and each payload is written as soon as it is
    complete. Deterministic: the same tables give the same bytes. Lists of different lengths,
    a comparison in two tables, or a table that breaks its contract raise ValueError."""
    if len(items) != len(item_texts):
        raise ValueError(f"{len(items)} ITEMS tables but {len(item_texts)} ITEM_TEXTS tables: give one of each "
                         "per accounting, in the same order")
    html_out = Path(html_out)
    page_dir = html_out.parent.resolve()
    templates = page_templates()
    parts, comparisons = [], []
    with atomic_file(html_out) as tmp, open(tmp, "wb") as out:
        out.write(ascii_html(templates.get_template("items_top.html").render(
            title=title, lede=LEDE, summary_href=summary_href, css=Markup(template_text("items.css")))))
        for part, (items_path, texts_path) in enumerate(zip(items, item_texts)):
            entry, found = write_part(out, part, Path(items_path).resolve(), Path(texts_path).resolve(), page_dir)
            parts.append(entry)
            comparisons += found
        unique_keys(comparisons, parts)
        index = {"components": list(ITEM_COMPONENTS), "cells": list(ITEM_CELLS),
                 "default_component": DEFAULT_COMPONENT, "definitions": definitions(), "parts": parts,
                 "comparisons": comparisons}
        # the script is ASCII (a test keeps it so): a character reference would not be read in it
        out.write(templates.get_template("items_bottom.html").render(
            index_json=Markup(script_safe_json(index)), script=Markup(template_text("items.js"))).encode("ascii"))
    log.info("item explorer: %d comparisons of %d tables -> %s", len(comparisons), len(parts), html_out)
    return html_out
