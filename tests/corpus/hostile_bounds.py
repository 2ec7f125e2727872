"""The hostile corpus's cases that test the inspector's bounds (registered in ``hostile_corpus.CASES``): where a
thread's files may be read from, and how big a drawing may grow. Written by LangGraph's ``SqliteSaver`` through
the corpus's ``Planting``; raw SQL copies a saver-written write row for the many tasks of ``MANY_NODES``
(the saver commits once per task: 3,000 commits would take half a minute).

* ``ELSEWHERE``: its ``thread_data`` names a folder shaped ``threads/<the same id>/user-data`` in
  ``{corpus folder}-elsewhere``, beside the corpus folder and so outside its data directory; its artifacts,
  upload, attachment and viewed image name files there, each holding ``ELSEWHERE_SECRET``. The thread has
  no folder in the data directory: every file is refused, with the reason.
* ``ELSEWHERE_OWN``: the same, but the thread also has its own folder in the data directory, holding a
  ``notes.md`` of its own (``OWN_NOTES``): that folder is read, the one ``thread_data`` names is passed over.
* ``MANY_NODES``: ``STEPS`` steps of ``TASKS`` tasks each, every task a node of its own name (3,000 distinct
  node names), none triggering another (so each step leads to every task of the next: the graph's worst case
  for edges).
"""

from __future__ import annotations

from pathlib import Path

from hostile_corpus import Planting, case
from langchain_core.messages import AIMessage, HumanMessage

ELSEWHERE = "hostile-elsewhere-data"
ELSEWHERE_OWN = "hostile-elsewhere-own"
MANY_NODES = "hostile-many-nodes"
ELSEWHERE_SECRET = "elsewhere-file-never-shown-5521"  # the content of every file in the other data directory
OWN_NOTES = "the thread's own notes, read from the data directory"
STEPS, TASKS = 60, 50
OUT = "/mnt/user-data/outputs"
FOLDERS = ("workspace", "uploads", "outputs")
BOUNDS_CASES = ("elsewhere-data", "many-nodes")


def elsewhere_folder(folder: Path, thread_id: str) -> Path:
    """A user-data folder shaped like the thread's own, in another data directory beside the corpus folder."""
    root = folder.parent / f"{folder.name}-elsewhere" / "threads" / thread_id / "user-data"
    for name in FOLDERS:
        (root / name).mkdir(parents=True, exist_ok=True)
        for file in ("notes.md", "secret.txt"):
            (root / name / file).write_text(f"{ELSEWHERE_SECRET}\n")
    return root


def _reaching_elsewhere(thread_id: str, root: Path) -> dict:
    thread_data = {f"{name}_path": str(root / name) for name in FOLDERS}
    return {
        "messages": [HumanMessage(f"files of {thread_id}", id=f"e-{thread_id}", additional_kwargs={"files": [
                         {"filename": "secret.txt", "size": 32, "path": f"{OUT}/secret.txt", "status": "uploaded"}]}),
                     AIMessage("presented", id=f"ea-{thread_id}")],
        "sandbox": {"sandbox_id": "local"}, "thread_data": thread_data,
        "artifacts": [f"{OUT}/notes.md", f"{OUT}/secret.txt", str(root / "outputs" / "secret.txt")],
        "uploaded_files": [{"filename": "secret.txt", "size": 32, "path": "/mnt/user-data/uploads/secret.txt",
                            "extension": ".txt", "actual_path": str(root / "uploads" / "secret.txt")}],
        "viewed_images": {f"{OUT}/notes.md": {"mime_type": "image/png", "size": 32,
                                             "actual_path": str(root / "outputs" / "notes.md")}},
    }


@case("elsewhere-data", "thread_data naming a folder shaped threads/<the same id>/user-data in another data "
      "directory (one thread without a folder of its own in the corpus's, one with)",
      threads=[ELSEWHERE, ELSEWHERE_OWN], secrets=[ELSEWHERE_SECRET], owner="bounds")
def _elsewhere_data(p: Planting) -> None:
    for thread in (ELSEWHERE, ELSEWHERE_OWN):
        p.run(thread, _reaching_elsewhere(thread, elsewhere_folder(p.folder, thread)))
    own = p.user_data(ELSEWHERE_OWN)
    (own / "outputs" / "notes.md").write_text(f"# {OWN_NOTES}\n")


@case("many-nodes", f"{STEPS * TASKS:,} distinct node names: {STEPS} steps of {TASKS} tasks, none triggering another",
      threads=[MANY_NODES], owner="bounds")
def _many_nodes(p: Planting) -> None:
    parent = None
    for step in range(STEPS + 1):
        checkpoint = p.put(MANY_NODES, {"messages": [HumanMessage("many nodes", id="mn-1")], "title": f"step {step}"},
                           {"step": step}, checkpoint_id=f"1f0c0000-0000-6000-8{step:03x}-000000000000", parent=parent,
                           writes=[("title", f"step {step + 1}")] if step == 0 else (), task_id="task-0-0")
        if step == 0:
            p.sql("UPDATE writes SET task_path = ? WHERE thread_id = ?", ["~__pregel_pull, node-0-0", MANY_NODES])
            first = checkpoint
        if step < STEPS:
            for task in range(TASKS):
                if step or task:
                    p.sql("INSERT INTO writes SELECT thread_id, checkpoint_ns, ?, ?, ?, idx, channel, type, value "
                          "FROM writes WHERE thread_id = ? AND checkpoint_id = ? AND task_id = 'task-0-0'",
                          [checkpoint, f"task-{step}-{task}", f"~__pregel_pull, node-{step}-{task}", MANY_NODES, first])
        parent = checkpoint


__all__ = ["BOUNDS_CASES", "ELSEWHERE", "ELSEWHERE_OWN", "ELSEWHERE_SECRET", "MANY_NODES", "OWN_NOTES", "STEPS",
           "TASKS", "elsewhere_folder"]
