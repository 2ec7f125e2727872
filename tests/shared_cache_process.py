"""One dashboard process for the shared-cache test: AppTest opens a thread's Size panel on the store
``INSPECTOR_DB`` names, with the analysis cache ``INSPECTOR_CACHE_URL`` names, and prints as JSON how many
checkpoints of that thread it read from the store for sizes, and the cache's hits and misses on their
size facts.

    python tests/shared_cache_process.py THREAD_ID
"""

from __future__ import annotations

import json
import sys
import time

from ui_app import open_page

from inspector.analysis_cache_postgres import PostgresAnalysisCache
from inspector.sizes.cached import KIND
from inspector.store.postgres import PostgresStore

read = {"checkpoints": 0}
caches: list[PostgresAnalysisCache] = []
real_iter, real_init = PostgresStore.iter_field_sizes, PostgresAnalysisCache.__init__


def counting_iter(self, thread_id, ns=None, keys=None, **kwargs):
    for row in real_iter(self, thread_id, ns, keys, **kwargs):
        read["checkpoints"] += thread_id == sys.argv[1]
        yield row


real_get = PostgresAnalysisCache.get
asked = {"hits": 0, "misses": 0}


def counting_get(self, store, thread, kind, keys):
    keys = list(keys)
    found = real_get(self, store, thread, kind, keys)
    if thread == sys.argv[1] and kind == KIND:
        asked["hits"] += len(found)
        asked["misses"] += len(keys) - len(found)
    return found


def remembering_init(self, *args, **kwargs):
    real_init(self, *args, **kwargs)
    caches.append(self)


PostgresStore.iter_field_sizes = counting_iter
PostgresAnalysisCache.__init__ = remembering_init
PostgresAnalysisCache.get = counting_get

started = time.perf_counter()
at = open_page("thread", thread=sys.argv[1])
at.segmented_control(key="thread_panel").set_value("Size").run()
seconds = time.perf_counter() - started
print(json.dumps({"exception": [e.value for e in at.exception], "checkpoints_read": read["checkpoints"],
                  "hits": asked["hits"], "misses": asked["misses"], "caches": len(caches),
                  "metrics": {m.label: m.value for m in at.metric}, "seconds": seconds}))
