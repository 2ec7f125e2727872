"""Page scripts for ``st.navigation``: each runs one page module's ``render()``."""
