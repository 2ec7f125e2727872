"""Time one analysis inside a process whose imports are already done: what the work costs, start-up apart.

    python benchmarks/run_analysis.py URL THREAD {sizes,health,replay,images} CACHE_DIR

Prints the seconds of the analysis alone. ``bench_analyses.py`` runs it cold (an
empty cache folder) and warm (the same folder again).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import inspector.diff.replay  # noqa: E402,F401  (the reducers: imported here, not timed)
import inspector.schema  # noqa: E402,F401
from inspector.cache import AnalysisCache  # noqa: E402
from inspector.diff import replay_thread  # noqa: E402
from inspector.profiles.deerflow.files.media_report import media_report  # noqa: E402
from inspector.sizes.accounting import measure_thread  # noqa: E402
from inspector.sizes.health import thread_health  # noqa: E402
from inspector.store import open_store  # noqa: E402


def main() -> int:
    url, thread, analysis, cache_dir = sys.argv[1:5]
    with open_store(url) as store, AnalysisCache(cache_dir) as cache:
        store.timeline_keys(thread)  # connections opened, pools filled: not the analysis
        run = {
            "sizes": lambda: measure_thread(store, thread, cache=cache),
            "health": lambda: thread_health(store, thread, cache=cache),
            "replay": lambda: replay_thread(store, thread, cache=cache),
            "images": lambda: media_report(store, thread, artifacts=False, cache=cache),  # as `images` does
        }[analysis]
        started = time.perf_counter()
        run()
        print(f"{time.perf_counter() - started:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
