"""The state inspector's core: plain Python, no Streamlit (only ``inspector.ui`` imports it).

The store package (``inspector.store``) imports nothing else of the inspector; the schema a
delta channel is folded with is handed to it. Here the inspector hands over its active schema
(``inspector.schema.active``) as the stores' default, loaded only when a channel is rebuilt,
and the AES key of encrypted stores (the ``aes_key`` setting, else LangGraph's
``LANGGRAPH_AES_KEY``), read only when the first encrypted value is.
"""

from .store import delta as _delta
from .store import encryption as _encryption


def _active_schema() -> "_delta.Reducers":
    from .schema import active  # LangGraph's reducers: loaded only when a channel is rebuilt

    return active()


_delta.set_default_schema(_active_schema)


def _operator_key() -> str | None:
    import os

    from .settings import load_settings

    try:
        key = load_settings().aes_key
    except ValueError:  # invalid settings are reported where they are used; the environment's key still counts
        key = None
    return key or os.environ.get(_encryption.KEY_ENV) or None


_encryption.set_key_source(_operator_key)
