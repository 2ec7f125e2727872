"""Running the dashboard in AppTest: open a page of app.py with query parameters."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Callable

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parent.parent / "app.py")
PAGES = {"threads": "inspector/ui/pages/threads.py", "thread": "inspector/ui/pages/thread.py",
         "diff": "inspector/ui/pages/diff.py", "health": "inspector/ui/pages/health.py",
         "retention": "inspector/ui/pages/retention.py", "memory": "inspector/ui/pages/memory.py"}


def open_page(page: str = "threads", started: Callable[[], None] | None = None, timeout: float = 60,
              **params: str) -> AppTest:
    """Run app.py once, then the page ``page`` with ``params`` in the URL (``started`` is called in between;
    each run within ``timeout`` s)."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.run()
    if started is not None:
        started()
    if page != "threads":
        at.switch_page(PAGES[page])
    at.query_params.clear()
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def shown(markdown: object) -> str:
    """What a Markdown source the dashboard wrote reads as: backslash escapes resolved, line breaks kept.

    Text from the data reaches Markdown elements escaped (``inspector.safety.inert_text``); AppTest sees the source.
    """
    return _ESCAPED.sub(r"\1", str(markdown).replace("  \n", "\n"))


def all_text(at: AppTest) -> str:
    """Every piece of text the page shows (markdown, titles, captions, alerts, the conversation's messages drawn
    as HTML), escapes resolved."""
    parts = []
    for kind in ("markdown", "title", "header", "subheader", "caption", "error", "warning", "info", "success", "code"):
        parts += [shown(e.value) if kind != "code" else str(e.value) for e in getattr(at, kind)]
    return "\n".join(parts + html_shown(at, "si-chat"))


_VOID = {"br", "hr", "img", "input", "meta", "link", "wbr", "source", "col", "area", "base", "embed"}


class _Shown(HTMLParser):
    """The text an HTML element shows (no style or script), whole and by the elements of the classes asked for."""

    def __init__(self, markup: str, classes: tuple[str, ...] = ()):
        super().__init__(convert_charrefs=True)
        self.classes, self.text, self.by_class, self._open, self._skip = classes, [], [], [], 0
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self._skip += 1
        if tag in _VOID:
            return
        names = (dict(attrs).get("class") or "").split()
        for stack in self._open:
            stack[0] += 1
        if any(c in names for c in self.classes):
            self._open.append([1, len(self.text)])

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self._skip -= 1
        if tag in _VOID:
            return
        for stack in list(self._open):
            stack[0] -= 1
            if stack[0] == 0:
                self._open.remove(stack)
                self.by_class.append("".join(self.text[stack[1]:]))

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def html_shown(at_or_node, *classes: str) -> list[str]:
    """The text of each element of ``classes`` in the ``st.html`` elements drawn (as the browser shows it: tags
    dropped, entities resolved), or with no class, of each ``st.html`` element whole (its styles left out)."""
    found: list[str] = []
    for element in at_or_node.get("html"):
        shown_html = _Shown(element.proto.body, classes)
        found += shown_html.by_class if classes else ["".join(shown_html.text)]
    return found


def messages_drawn(at: AppTest) -> list[str]:
    """Each message the conversation draws, in order: a Streamlit bubble's text (``all_text``), or the text of one
    bubble of a run drawn as HTML (``conversation_html``)."""
    drawn: list[str] = []

    def walk(node) -> None:
        if node.type == "chat_message":
            drawn.append(all_text(node))
            return
        if node.type == "html" and 'class="si-msg ' in node.proto.body:
            drawn.extend(_Shown(node.proto.body, ("si-msg",)).by_class)
            return
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at.main)
    return drawn


def cells(element, column: str) -> list[str]:
    """What the cells of ``column`` of an AppTest dataframe show: a table drawn from a pandas Styler (sizes, each cell
    in a unit of its own) sends its display values beside the data, which ``element.value`` holds."""
    from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

    return list(convert_arrow_bytes_to_pandas_df(element.proto.arrow_data.styler.display_values)[column])


def in_page_links(at: AppTest) -> dict:
    """Label -> button of each link to the page being shown (``routes.link``): a button that moves the page and its
    URL (a page link to the page already shown would leave the URL behind); click one and read ``at.query_params``."""
    return {button.label: button for button in at.button if (button.key or "").startswith("link-")}


def param(at: AppTest, name: str) -> str | None:
    """Query parameter ``name`` of the page as it was left (one value; AppTest holds a list after a run)."""
    value = at.query_params.get(name)
    return value[-1] if isinstance(value, list) else value


def html_text(at: AppTest) -> str:
    """The HTML of every ``st.html`` element the page drew (a Play frame's words, a graph's lit caption)."""
    return "\n".join(el.proto.body for el in at.get("html"))


def every_node(node) -> list:
    """``node`` and every block and element below it (an AppTest's ``at._tree`` for the whole page)."""
    children = getattr(node, "children", None)
    below = [n for child in children.values() for n in every_node(child)] if isinstance(children, dict) else []
    return [node, *below]


def _native(at: AppTest, key: str):
    """The custom component element (``native_controls``) keyed ``key``, or None."""
    for node in every_node(at._tree):
        if type(node).__name__ != "UnknownElement":
            continue
        bidi = node.proto  # a custom component's BidiComponent message, or another element Streamlit's test lacks
        if getattr(bidi, "component_name", "").startswith("inspector.") and bidi.id.endswith(f"-{key}"):
            return bidi
    return None


def native_control(at: AppTest, key: str) -> dict | None:
    """The data of the native control (``native_controls``) keyed ``key`` on the page: its label, labels and
    index; None when the page has none."""
    bidi = _native(at, key)
    return json.loads(bidi.json) if bidi is not None else None


def pick(at: AppTest, key: str, index: int) -> AppTest:
    """Run ``at`` as if the native control ``key`` had picked ``index`` in the browser (its trigger value)."""
    from streamlit.components.v2.bidi_component.main import _make_trigger_id
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    bidi = _native(at, key)
    assert bidi is not None, f"no native control {key} on the page"
    states = at._tree.get_widget_states()
    states.widgets.append(WidgetState(id=_make_trigger_id(bidi.id, "events"),
                                      json_trigger_value=json.dumps([{"event": "picked", "value": index}])))
    return at._run(states)
