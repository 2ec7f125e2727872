"""The state inspector's core: plain Python, no Streamlit (only ``inspector.ui`` imports it).

The store package (``inspector.store``) imports nothing else of the inspector; the schema a
delta channel is folded with is handed to it. Here the inspector hands over its active schema
(``inspector.schema.active``) as the stores' default, loaded only when a channel is rebuilt.
"""

from .store import delta as _delta


def _active_schema() -> "_delta.Reducers":
    from .schema import active  # LangGraph's reducers: loaded only when a channel is rebuilt

    return active()


_delta.set_default_schema(_active_schema)
