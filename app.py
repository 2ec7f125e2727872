"""state-inspector: `streamlit run app.py [-- --db URL]`.

Resolves which store to open, then hands over to the pages in inspector/ui/.
"""

import argparse
import sys

import streamlit as st

from inspector.ui import connection, routes, sizes_views, thread_page

st.set_page_config(page_title="state-inspector", page_icon=":material/manage_search:", layout="wide")


def _db_flag(argv: list[str]) -> str | None:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--db")
    known, _ = parser.parse_known_args(argv)
    return known.db


connection.start(_db_flag(sys.argv[1:]))
sizes_views.install_panel(thread_page.THREAD_PANELS)

pages = routes.register(
    [
        st.Page("inspector/ui/pages/threads.py", title="Threads", icon=":material/list:", url_path="threads", default=True),
        st.Page("inspector/ui/pages/thread.py", title="Thread", icon=":material/timeline:", url_path="thread"),
        st.Page("inspector/ui/pages/diff.py", title="Diff", icon=":material/difference:", url_path="diff"),
        st.Page("inspector/ui/pages/health.py", title="Health", icon=":material/monitor_heart:", url_path="health"),
    ]
)
st.navigation(pages).run()
