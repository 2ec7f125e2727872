"""Control page: the file named by $HOSTILE_MARKDOWN rendered as raw Markdown, the way the dashboard must never do it."""

import os
from pathlib import Path

import streamlit as st

st.markdown(Path(os.environ["HOSTILE_MARKDOWN"]).read_text())
