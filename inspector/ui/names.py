"""Names from the data as the pages show them: namespaces (``node:task_id|…``) and the node names in them, masked
where they hold a secret's shape (``Redactor.name``: a node called ``sk-proj-…`` or ``ghp_…``; ``get_token:<task
id>`` stays as it is), and the way back from what a page shows to what the store holds.

A namespace is also a key: the thread page looks its checkpoints up by it. So the pages keep the stored namespace
for every lookup and every click (a select box's option, a button's arguments), show it masked, and name it in a
URL or a chart's data as shown (``param``); what a URL or a click hands back is turned into the stored namespace
by ``stored``, among the namespaces the thread holds. Marks are keyed per process unless the setting
``redact_hash_key`` is set, so a link naming a masked namespace holds while the dashboard runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable
from typing import Any

from ..history.location import Location, url_id
from ..history.tree_chart import TreeData
from ..safety.redaction import MARK_PREFIX
from ..store.not_utf8 import token


def shown(text: str) -> str:
    """A name from the data (a namespace, a node's name, a label built from them) with its secret shapes masked."""
    from .data import redactor

    return redactor().name(text) if isinstance(text, str) else text


def stored_location(location: Location, namespaces: Iterable[str]) -> Location:
    """``location`` with its namespace as the thread holds it among ``namespaces`` (a URL names a masked one as
    shown: ``param``)."""
    ns = stored(location.ns, namespaces) if location.ns else ""
    return location if ns == location.ns else dataclasses.replace(location, ns=ns)


def param(ns: str) -> str:
    """A namespace as a URL, a chart's data or a widget's key names it: as shown where masking changes it, else
    as ``location.url_id`` spells it."""
    masked = shown(ns)
    return masked if masked != ns else url_id(ns)


def stored(text: str, namespaces: Iterable[str]) -> str:
    """The namespace among ``namespaces`` (the thread's) that ``text`` names: its shown spelling (``param``), or
    itself; ``text`` as it is when none matches."""
    if MARK_PREFIX not in text:
        return text
    found = [ns for ns in dict.fromkeys(namespaces) if shown(ns) == text]
    return found[0] if len(found) == 1 else text


def picked(point: dict[str, Any], namespaces: Iterable[str]) -> tuple[str, str]:
    """The key a click on a chart names: the point's checkpoint, in the namespace it names as shown."""
    return (stored(point.get("ns") or "", namespaces), point["checkpoint"])


def shown_records(records: list[dict[str, Any]], fields: Collection[str]) -> list[dict[str, Any]]:
    """``records`` with the texts in ``fields`` masked as names (the same list when nothing changed)."""
    from .data import redactor

    name = redactor().name  # once: a page of the history tree holds hundreds of names
    out, changed = [], False
    for record in records:
        masked = {k: name(v) if k in fields and isinstance(v, str) else v for k, v in record.items()}
        differs = any(masked[k] is not record[k] for k in record)
        changed |= differs
        out.append(masked if differs else record)
    return out if changed else records


TREE_NAMES = ("ns", "namespace", "branch", "label", "text")


def shown_tree(data: TreeData) -> TreeData:
    """A history tree's rows as a page sends them: names masked, a point's ``ns`` as shown (``stored`` finds the
    stored one back from a click)."""
    return TreeData(shown_records(data.points, TREE_NAMES), data.edges, shown_records(data.labels, TREE_NAMES),
                    data.lanes, data.rows)


def key_text(*parts: object) -> str:
    """Widget keys and file names built from ids: Streamlit encodes them as UTF-8, which an id a hostile SQLite
    store holds as text that is not UTF-8 is not; such an id is spelled as its ``not_utf8.token``, so two ids
    never share a key. A key reaches the browser: a name holding a secret's shape is spelled masked
    (``shown``)."""
    return "_".join(token(shown(p) if isinstance(p, str) else str(p)) for p in parts)
