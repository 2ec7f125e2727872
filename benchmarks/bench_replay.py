"""Replay of the long thread, cold, as a ratio to reading and msgpack-decoding the same thread.

    python benchmarks/bench_replay.py [--db bench-data/store.db] [--thread bench-long] [-n 2]

Three measurements in CPU seconds (user + system: what a shared machine's other work moves least),
each the best of ``-n``, all in the same run:

- whole processes: ``read_thread_blobs.py`` (read every blob of the thread and msgpack-decode
  it: the baseline) and ``python -m inspector replay THREAD --json --quiet`` with an empty
  analysis cache (cold); their ratio is the target (at most 2);
- in one process whose imports are done: ``Store.iter_states`` over the thread (the inspector's
  own read + decode) and ``replay_thread`` (read + decode + the reducers + the comparison);
- the same replay with ``add_messages`` applied to the whole conversation at every step (what
  replay did before it folded each step's new messages alone), to show what the fold saves.

Generate the store first: ``python benchmarks/store_generator.py sqlite bench-data/store.db``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from benchmarks.store_generator import LONG_THREAD  # noqa: E402


def process_seconds(argv: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one whole process."""
    proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # replay exits 1 on a mismatch
        sys.exit(f"{' '.join(argv)} failed ({code}): {proc.stderr.read().decode()}")
    return usage.ru_utime + usage.ru_stime


def in_process(url: str, thread: str, repeats: int) -> tuple[float, float, float]:
    import inspector.diff.replay  # noqa: F401  (the reducers: imported here, not timed)
    from inspector.diff import replay_thread
    from inspector.diff.replay_messages import MessageFold
    from inspector.store import open_store

    def whole_list_init(self, reducer, result, base=None):
        self.reducer, self.result, self.base, self.tail = reducer, result, base, None

    def best(action) -> float:
        times = []
        for _ in range(repeats):
            started = time.process_time()
            action()
            times.append(time.process_time() - started)
        return min(times)

    with open_store(url) as store:
        store.timeline_keys(thread)
        read = best(lambda: sum(1 for _ in store.iter_states(thread, "")))
        folded = best(lambda: replay_thread(store, thread))
        fold_init = MessageFold.__init__
        MessageFold.__init__ = whole_list_init
        try:
            whole = best(lambda: replay_thread(store, thread))
        finally:
            MessageFold.__init__ = fold_init
    return read, folded, whole


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(REPO.parent / "bench-data" / "store.db"), help="the SQLite store")
    parser.add_argument("--thread", default=LONG_THREAD)
    parser.add_argument("-n", type=int, default=2, help="runs of each, the best kept")
    args = parser.parse_args()
    url = f"sqlite:///{Path(args.db).resolve()}"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    baseline = min(process_seconds([sys.executable, str(HERE / "read_thread_blobs.py"), url, args.thread], env)
                   for _ in range(args.n))
    colds = []
    for _ in range(args.n):
        with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
            colds.append(process_seconds([sys.executable, "-m", "inspector", "replay", "--db", url, args.thread,
                                          "--json", "--quiet"], {**env, "INSPECTOR_CACHE_DIR": cache}))
    cold = min(colds)
    read, folded, whole = in_process(url, args.thread, args.n)
    print(f"whole process: read + decode every blob {baseline:.2f} s; replay cold {cold:.2f} s; "
          f"ratio {cold / baseline:.2f} (target at most 2)")
    print(f"in one process: Store.iter_states {read:.2f} s; replay_thread {folded:.2f} s; ratio {folded / read:.2f}")
    print(f"add_messages on the whole conversation at every step: replay_thread {whole:.2f} s "
          f"({whole / folded:.2f}x the folded replay)")
    return 0 if cold / baseline <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
