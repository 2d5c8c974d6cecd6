"""Where a decomposition's items are shown: its comparison key and its link into the item explorer.

In:  the fields that name one decomposition (a report row's ``study``, ``dataset``, ``system``,
     ``format``, ``parser`` and ``budget``: ESTIMATES' columns) and, optionally, a component.
Out: the comparison key of ITEMS (``study/dataset/system/format/parser/budget``,
     ``tables.items``), the relative URL ``items.html#comparison=<key>[&component=<c>]`` that
     opens the explorer (``report.items_page``, written beside the summary page) on it, and the
     summary page's line of links to a decomposition's components (:func:`estimates_items_links`:
     Study 1's section and each accounted system's).

The explorer reads its state from the URL's fragment (``key=value`` pairs joined by ``&``, each
value percent-encoded), so a link names the comparison and the component to group its items by.
"""
from __future__ import annotations

from urllib.parse import quote

from ..tables.items import ITEM_COMPONENTS, comparison_key
from .sources import SourceTable, find_row
from .summary import Link, Paragraph

#: the explorer's file name, beside the summary page (pipeline: results/report/; account: --out)
ITEMS_PAGE_FILE = "items.html"


def items_href(key: str, component: str | None = None) -> str:
    """The explorer's URL for comparison ``key`` (relative: the explorer sits beside the page
    that links to it), grouping by ``component`` (one of ``ITEM_COMPONENTS``) when given."""
    if component is not None and component not in ITEM_COMPONENTS:
        raise ValueError(f"unknown component {component!r}; the components: {', '.join(ITEM_COMPONENTS)}")
    href = f"{ITEMS_PAGE_FILE}#comparison={quote(key, safe='/')}"
    return href if component is None else f"{href}&component={component}"


def components_links(key: str) -> Paragraph:
    """A line linking each component of comparison ``key`` to its view in the explorer."""
    fragments: tuple = ("The items behind each component, in the item explorer: ",)
    for i, component in enumerate(ITEM_COMPONENTS):
        fragments += ((" · ",) if i else ()) + (Link(component, items_href(key, component)),)
    return Paragraph(fragments + (".",), style="links")


def estimates_items_links(estimates: SourceTable | None, study: str) -> tuple[Paragraph, ...]:
    """:func:`components_links` of the comparison whose Study 1 estimates TSV this is (its row of
    population ``all``, quantity ``gain``, replicate -1 names the dataset, system, format,
    parser and budget; the TSV has no study column, so ``study`` gives it); () without that row."""
    row = None if estimates is None else find_row(estimates, population="all", quantity="gain", part="",
                                                  replicate="-1")
    if row is None:
        return ()
    return (components_links(comparison_key({**estimates.rows[row], "study": study})),)
