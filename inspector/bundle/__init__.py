"""Support bundles: one thread of a checkpoint store, its files and a manifest, in a zip.

``write_bundle`` reads the thread through ``store_ops``' ``export_thread`` (the source is
only read), masks every value with the redaction rules (``masking``, the one
call point), writes it back in LangGraph's own format (``rewrite``, ``rows``)
into a new SqliteSaver database, and adds the files its state names
(``files``). ``inspector.store.bundle`` opens a bundle as a read-only store.
Imports ``inspector.store``, ``inspector.store_ops``, ``inspector.media.folders``, ``inspector.settings``,
``inspector.safety.redaction``, ``inspector.profiles`` (the thread's profile finds its folders) and
LangGraph's SqliteSaver (for ``setup()`` only).
"""

from .masking import Masker
from .writer import write_bundle

__all__ = ["Masker", "write_bundle"]
