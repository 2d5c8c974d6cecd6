"""Where a decomposition's items are shown: its comparison key and its link into the item explorer.

In:  the fields that name one decomposition (a report row's ``study``, ``dataset``, ``system``,
     ``format``, ``parser`` and ``budget``: ESTIMATES' columns) and, optionally, a component.
Out: the comparison key of ITEMS (``study/dataset/system/format/parser/budget``,
     ``tables.items``) and the relative URL ``items.html#comparison=<key>[&component=<c>]`` that
     opens the explorer (``report.items_page``, written beside the summary page) on it.

The explorer reads its state from the URL's fragment (``key=value`` pairs joined by ``&``, each
value percent-encoded), so a link names the comparison and the component to group its items by.
"""
from __future__ import annotations

from typing import Mapping
from urllib.parse import quote

from ..tables.items import ITEM_COMPONENTS

#: the fields of a comparison key, in the key's order
COMPARISON_FIELDS = ("study", "dataset", "system", "format", "parser", "budget")
#: the explorer's file name, beside the summary page (pipeline: results/report/; account: --out)
ITEMS_PAGE_FILE = "items.html"


def comparison_key(fields: Mapping[str, str]) -> str:
    """``study/dataset/system/format/parser/budget`` of ``fields`` (a mapping holding at least
    :data:`COMPARISON_FIELDS`, e.g. a report row with its study)."""
    return "/".join(str(fields[name]) for name in COMPARISON_FIELDS)


def items_href(key: str, component: str | None = None) -> str:
    """The explorer's URL for comparison ``key`` (relative: the explorer sits beside the page
    that links to it), grouping by ``component`` (one of ``ITEM_COMPONENTS``) when given."""
    if component is not None and component not in ITEM_COMPONENTS:
        raise ValueError(f"unknown component {component!r}; the components: {', '.join(ITEM_COMPONENTS)}")
    href = f"{ITEMS_PAGE_FILE}#comparison={quote(key, safe='/')}"
    return href if component is None else f"{href}&component={component}"
