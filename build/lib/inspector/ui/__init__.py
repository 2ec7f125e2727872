"""The dashboard's Streamlit code: one module per page, shared widgets beside them; ``panels``
declares the thread page's panels and field views; ``pages/`` holds one thin script per page.

The only package that imports Streamlit. May import every package of ``inspector`` except ``cli``;
pages render the core's rows and keep no logic of their own.
"""
