"""What leaves the core, and who may see it: secrets masked in every value (``redaction``'s text rules and
marks, the walk over a decoded value in ``value_masking``, the names that hold a secret in ``secret_names``,
a secret read through the invisible characters inside it in ``invisible``),
text from the data made inert before a browser renders it (``inert_text``; its bidi controls and cuts for
display in ``display_text``), the dashboard's allow-list of signed-in users (``access``) and the append-only
audit trail (``audit``).

May import ``store`` and ``settings``; every other layer may use it.
"""
