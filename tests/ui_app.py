"""Running the dashboard in AppTest: open a page of app.py with query parameters."""

from __future__ import annotations

import re
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
    """Every piece of text the page shows (markdown, titles, captions, alerts), escapes resolved."""
    parts = []
    for kind in ("markdown", "title", "header", "subheader", "caption", "error", "warning", "info", "success", "code"):
        parts += [shown(e.value) if kind != "code" else str(e.value) for e in getattr(at, kind)]
    return "\n".join(parts)


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
