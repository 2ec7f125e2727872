"""state-inspector: `streamlit run app.py [-- --db URL | --deerflow-home DIR] [--schema MODULE:CLASS]`.

Resolves which store to open, then hands over to the pages in inspector/ui/.
"""

import sys

import streamlit as st

from inspector.settings import schema_flag, store_flag
from inspector.ui import connection, routes

st.set_page_config(page_title="state-inspector", page_icon=":material/manage_search:", layout="wide")
connection.use_schema(schema_flag(sys.argv[1:]))
connection.start(store_flag(sys.argv[1:]))

pages = routes.register(
    [
        st.Page("inspector/ui/pages/threads.py", title="Threads", icon=":material/list:", url_path="threads", default=True),
        st.Page("inspector/ui/pages/thread.py", title="Thread", icon=":material/timeline:", url_path="thread"),
        st.Page("inspector/ui/pages/diff.py", title="Diff", icon=":material/difference:", url_path="diff"),
        st.Page("inspector/ui/pages/health.py", title="Health", icon=":material/monitor_heart:", url_path="health"),
    ]
)
st.navigation(pages).run()
