"""One checkpoint's state, field by field, as people read it: field summaries (``fields``), the
conversation with the hidden and stripped messages of the thread's app (``conversation``, through
its profile's chat rules), todos, interrupts, and schema drift between the state and the active
schema (``drift``).

May import ``store``, ``schema``, ``formatting`` and ``profiles``; ``model_input`` (what the model saw at a step) also
``diff.writes``, ``history.attribution`` and ``media.images``.
"""
