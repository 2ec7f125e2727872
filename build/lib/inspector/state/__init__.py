"""One checkpoint's state, field by field, as people read it: field summaries (``fields``), the
conversation with DeerFlow's hidden and stripped messages (``conversation``, ``deerflow_messages``),
todos, interrupts, and schema drift between the state and the active schema (``drift``).

May import ``store``, ``schema`` and ``formatting``; ``model_input`` (what the model saw at a step) also
``diff.writes`` and ``media.images``.
"""
