"""Replay of the long thread, cold, as a ratio to reading and msgpack-decoding the same thread.

    python benchmarks/bench_replay.py [--db bench-data/store.db] [--thread bench-long] [-n 2]

Like with like: every ratio's two sides are measured the same way in the same run, in CPU seconds
(user + system: what a shared machine's other work moves least), each the best of ``-n``:

- whole processes, both fresh: ``read_thread_blobs.py`` (read every blob of the thread and
  msgpack-decode it: the baseline) and ``python -m inspector replay THREAD --json --quiet`` with an
  empty analysis cache (cold), start-up, imports, masking and printing the JSON included, both with
  their bytecode cached as an installed package's is (written by an untimed first run of each); their
  ratio is the target (at most 2). Twice: with the profile the data shows (printed with its evidence:
  the generated thread holds ThreadState channels only DeerFlow declares, so DeerFlow's) and with
  ``--profile deerflow`` named (the thread's real schema, DeerFlow's ThreadState: ``add_messages``
  applied and checked at every step);
- in one process whose imports are done, with DeerFlow's profile named: ``Store.iter_states`` over the
  thread (the inspector's own read + decode) and ``replay_thread`` (read + decode + the reducers + the
  comparison);
- the same replay with every step's messages rebuilt as LangChain messages (what replay did before it
  added the written dicts as stored where a step only adds messages), ``add_messages`` folded into each
  step's new messages, then called on the whole conversation at every step: what each saves.

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


def in_process(url: str, thread: str, repeats: int) -> tuple[float, float, float, float, str]:
    import importlib

    from inspector import profiles
    from inspector.diff import replay_thread
    from inspector.diff.replay_messages import MessageFold
    from inspector.store import open_store

    replay = importlib.import_module("inspector.diff.replay")
    replay.apply_writes("messages", [], [[]])  # LangChain's messages and add_messages: imported here, not timed
    with open_store(url) as store:
        shown = profiles.reading_for(store, thread).reason  # the profile the data shows
    profiles.name_profile("deerflow")

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
        dicts = best(lambda: replay_thread(store, thread))
        appended, fold_init = replay.appended, MessageFold.__init__
        replay.appended = lambda current, writes: None  # every step's messages rebuilt as LangChain messages
        try:
            folded = best(lambda: replay_thread(store, thread))
            MessageFold.__init__ = whole_list_init  # and add_messages called on the whole conversation
            whole = best(lambda: replay_thread(store, thread))
        finally:
            replay.appended, MessageFold.__init__ = appended, fold_init
    return read, dicts, folded, whole, shown


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(REPO.parent / "bench-data" / "store.db"), help="the SQLite store")
    parser.add_argument("--thread", default=LONG_THREAD)
    parser.add_argument("-n", type=int, default=2, help="runs of each, the best kept")
    args = parser.parse_args()
    url = f"sqlite:///{Path(args.db).resolve()}"
    # Bytecode cached, as an installed package runs: an environment that says not to write it (PYTHONDONTWRITEBYTECODE)
    # would have every cold run compile the inspector's modules again. One run of each first writes it.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    base_argv = [sys.executable, str(HERE / "read_thread_blobs.py"), url, args.thread]
    replay_argv = [sys.executable, "-m", "inspector", "replay", "--db", url, args.thread, "--json", "--quiet"]
    runs: dict[str, list[float]] = {"baseline": [], "chosen": [], "named": []}
    process_seconds(base_argv, env)
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
        process_seconds(replay_argv, {**env, "INSPECTOR_CACHE_DIR": cache})
    for _ in range(args.n):  # interleaved, so a busy moment of the machine falls on every kind alike
        runs["baseline"].append(process_seconds(base_argv, env))
        for kind, flags in (("chosen", []), ("named", ["--profile", "deerflow"])):
            with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
                runs[kind].append(process_seconds([*replay_argv, *flags], {**env, "INSPECTOR_CACHE_DIR": cache}))
    baseline, chosen, named = (min(runs[kind]) for kind in ("baseline", "chosen", "named"))
    read, dicts, folded, whole, shown = in_process(url, args.thread, args.n)
    print(f"whole processes: read + decode every blob {baseline:.2f} s; replay cold, the profile the data shows "
          f"({shown}) {chosen:.2f} s, ratio {chosen / baseline:.2f}; with --profile deerflow "
          f"(add_messages at every step) {named:.2f} s, ratio {named / baseline:.2f} (target at most 2)")
    print(f"in one process, DeerFlow's profile: Store.iter_states {read:.2f} s; replay_thread {dicts:.2f} s; "
          f"ratio {dicts / read:.2f}")
    print(f"the same replay with every step's messages rebuilt as LangChain messages: add_messages folded into "
          f"each step's new messages {folded:.2f} s ({folded / dicts:.2f}x); on the whole conversation "
          f"{whole:.2f} s ({whole / dicts:.2f}x)")
    return 0 if max(chosen, named) / baseline <= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
