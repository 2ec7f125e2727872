"""The analysis cache: facts derived from checkpoints, kept between runs so a second look costs only what is new.

What may be kept here: facts computed from checkpoints that never change once written (per-field stored
bytes, replay verdicts, image entries, each thread's profile evidence), each store's growth rows per day,
channel and part, and the cuts that date them. Never a stored value itself, never a secret in clear: text is
masked before it is kept (``facts``), content fingerprints are sealed under the cache's own key
(``fingerprints``), and the embedded file is private to the user (``files``). A fact that does not read back as
written is a miss, computed again from the store.

- ``embedded``: the default, a SQLite file in ``cache_dir`` (``open_cache`` picks the backend);
- ``postgres``: tables in a PostgreSQL database (``cache_url``) that dashboard replicas share;
- ``facts``: what both backends offer (``FactCache``) and the SQL they share; ``growth``: the growth tables;
  ``search``: the thread search's index (texts masked before they reach it, marks bare: FTS5 or PostgreSQL's
  full-text search).

May import ``store`` (ids and keys), ``safety`` (masking) and ``settings``; nothing above them.
"""
from ..settings import default_cache_dir
from .embedded import FILE_NAME, AnalysisCache, open_cache
from .facts import CacheError, FactCache, pack, unpack
from .fingerprints import Fingerprint

__all__ = ["FILE_NAME", "AnalysisCache", "CacheError", "FactCache", "Fingerprint", "default_cache_dir", "open_cache",
           "pack", "unpack"]
