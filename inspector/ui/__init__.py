"""The dashboard's Streamlit code: one module per page, shared widgets beside them."""
