"""state-inspector: `streamlit run app.py [-- --db URL | --deerflow-home DIR] [--schema MODULE:CLASS] [--profile NAME]`.

Resolves which store to open, then hands over to the pages in inspector/ui/.
"""

import sys
from pathlib import Path

import streamlit as st

from inspector.settings import profile_flag, schema_flag, store_flag
from inspector.ui import audit_trail, connection, gate, heap, page_css, routes

# A local icon: a Material icon name here would make the browser fetch it from another host.
ICON = Path(__file__).resolve().parent / "inspector" / "ui" / "favicon.png"

st.set_page_config(page_title="state-inspector", page_icon=str(ICON), layout="wide")
page_css.apply()  # first: the rules load while the page computes
heap.freeze_once()  # the first run, before any store is read: modules are not garbage
gate.gate()  # only the login prompt is drawn until a permitted login is present
connection.use_schema(schema_flag(sys.argv[1:]), profile_flag(sys.argv[1:]))
connection.start(store_flag(sys.argv[1:]))

pages = routes.register(
    [
        st.Page("inspector/ui/pages/threads.py", title="Threads", icon=":material/list:", url_path="list", default=True),
        # the same list at /threads, for people who type the page's name
        st.Page("inspector/ui/pages/threads.py", title="Threads", icon=":material/list:", url_path="threads",
                visibility="hidden"),
        st.Page("inspector/ui/pages/thread.py", title="Thread", icon=":material/timeline:", url_path="thread"),
        st.Page("inspector/ui/pages/diff.py", title="Diff", icon=":material/difference:", url_path="diff"),
        st.Page("inspector/ui/pages/health.py", title="Health", icon=":material/monitor_heart:", url_path="health"),
        st.Page("inspector/ui/pages/retention.py", title="Retention", icon=":material/auto_delete:", url_path="retention"),
        st.Page("inspector/ui/pages/memory.py", title="Memory", icon=":material/psychology:", url_path="memory"),
    ]
)
page = st.navigation(pages)
audit_trail.page_opened(page.url_path)
routes.opened(page.url_path)
page.run()
