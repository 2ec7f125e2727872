"""A checkpoint store whose shape, not its text, is hostile: folders that lead out of the data directory,
named pipes where files should be, values nested past any sane depth.

``write_structure_store(out_dir)`` writes ``out_dir/data/structure.db`` with LangGraph's ``SqliteSaver``
(a real graph over DeerFlow's ``ThreadState``) and each thread's folders under ``out_dir/data``; the
"host's" files the threads try to reach sit in ``out_dir/host``, outside the data directory. Raw SQL plants
only what the saver cannot write: metadata that is ``[`` repeated 100,000 times and a channel value that is
a 900-deep msgpack map (LangGraph's serializer refuses to write either).

Threads:

* ``FOLDER_LINK``: its ``outputs`` folder is a symlink to the host folder; artifacts, a viewed image and
  an upload name files in it.
* ``ROOT_LINK``: its whole ``user-data`` folder is a symlink to a copy of the layout on the host.
* ``BRANCH``: branched (DeerFlow's ``branch_*`` metadata) from ``BRANCH_PARENT``, whose ``outputs``
  folder leads to the host; its image's ``actual_path`` points into that parent folder.
* ``FIFO``: an artifact and a viewed image that are named pipes (opened, they would block forever).
* ``DEEP_JSON``: one checkpoint's metadata is 100,000 nested JSON lists.
* ``DEEP_MSGPACK``: a channel value (and a pending write) that is a 900-deep msgpack map.
* ``PLAIN``: an ordinary thread, which every answer must still hold.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import msgpack
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from inspector.schema.thread_state import ThreadState

FOLDER_LINK = "folder-link"
ROOT_LINK = "root-link"
BRANCH = "branch-child"
BRANCH_PARENT = "branch-parent"
FIFO = "fifo-thread"
DEEP_JSON = "deep-json"
DEEP_MSGPACK = "deep-msgpack"
PLAIN = "plain-thread"
THREADS = (FOLDER_LINK, ROOT_LINK, BRANCH, BRANCH_PARENT, FIFO, DEEP_JSON, DEEP_MSGPACK, PLAIN)

HOST_SECRET = "root:x:0:0:host-file-never-shown"  # the content of every file on the "host"
DEEP_JSON_TEXT = "[" * 100_000
MSGPACK_DEPTH = 900
OUT = "/mnt/user-data/outputs"


def deep_msgpack(depth: int = MSGPACK_DEPTH) -> bytes:
    """A map ``{"a": {"a": ... None}}`` nested ``depth`` times, as msgpack bytes (written by hand: the
    packers refuse such depth)."""
    return b"\x81\xa1a" * depth + b"\xc0"


def _png() -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (8, 8), (10, 200, 10)).save(out, "PNG")
    return out.getvalue()


def _host(out: Path) -> Path:
    """The folder standing for the host's own files (``/etc``), outside the data directory."""
    host = out / "host"
    host.mkdir(parents=True, exist_ok=True)
    for name in ("passwd", "notes.md"):
        (host / name).write_text(HOST_SECRET + "\n")
    (host / "pic.png").write_bytes(_png())
    for folder in ("workspace", "uploads", "outputs"):
        (host / "layout" / folder).mkdir(parents=True, exist_ok=True)
        (host / "layout" / folder / "passwd").write_text(HOST_SECRET + "\n")
    return host


def _folders(data: Path, thread_id: str) -> dict[str, str]:
    root = data / "threads" / thread_id / "user-data"
    folders = {f"{name}_path": str(root / name) for name in ("workspace", "uploads", "outputs")}
    for folder in folders.values():
        Path(folder).mkdir(parents=True, exist_ok=True)
    return folders


def _link_outputs(folders: dict[str, str], host: Path) -> None:
    outputs = Path(folders["outputs_path"])
    shutil.rmtree(outputs)
    outputs.symlink_to(host, target_is_directory=True)


def _plant_files(data: Path, host: Path) -> dict[str, dict[str, str]]:
    """Each thread's folders, with the links and pipes it is named for."""
    folders = {thread: _folders(data, thread) for thread in THREADS if thread != ROOT_LINK}
    _link_outputs(folders[FOLDER_LINK], host)
    _link_outputs(folders[BRANCH_PARENT], host)
    root = data / "threads" / ROOT_LINK / "user-data"
    root.parent.mkdir(parents=True, exist_ok=True)
    root.symlink_to(host / "layout", target_is_directory=True)
    folders[ROOT_LINK] = {f"{name}_path": str(root / name) for name in ("workspace", "uploads", "outputs")}
    fifo_out = Path(folders[FIFO]["outputs_path"])
    for name in ("pipe.md", "pipe.png", "pipe.txt"):
        os.mkfifo(fifo_out / name)
    (fifo_out / "ok.md").write_text("# a plain file next to the pipes\n")
    (Path(folders[PLAIN]["outputs_path"]) / "report.md").write_text("# plain report\n")
    return folders


def _values(thread_id: str, folders: dict[str, str]) -> dict:
    """What the thread's one step writes."""
    values: dict = {"thread_data": folders, "title": f"{thread_id} title"}
    if thread_id in (FOLDER_LINK, ROOT_LINK, BRANCH_PARENT):
        values["artifacts"] = [f"{OUT}/passwd", f"{OUT}/notes.md"]
        values["viewed_images"] = {f"{OUT}/pic.png": {"mime_type": "image/png", "size": len(_png()),
                                                      "actual_path": f"{folders['outputs_path']}/pic.png"}}
        values["uploaded_files"] = [{"filename": "passwd", "size": 10, "path": f"{OUT}/passwd", "extension": ""}]
    elif thread_id == BRANCH:
        parent_outputs = Path(folders["outputs_path"]).parents[2] / BRANCH_PARENT / "user-data" / "outputs"
        values["viewed_images"] = {f"{OUT}/pic.png": {"mime_type": "image/png", "size": len(_png()),
                                                      "actual_path": f"{parent_outputs}/pic.png"}}
        values["uploaded_files"] = [{"filename": "notes.md", "size": 10, "path": f"{parent_outputs}/notes.md"}]
    elif thread_id == FIFO:
        values["artifacts"] = [f"{OUT}/pipe.md", f"{OUT}/pipe.txt", f"{OUT}/ok.md"]
        values["viewed_images"] = {f"{OUT}/pipe.png": {"mime_type": "image/png", "size": 100,
                                                       "actual_path": f"{folders['outputs_path']}/pipe.png"}}
        values["uploaded_files"] = [{"filename": "pipe.txt", "size": 3, "path": f"{OUT}/pipe.txt"}]
    elif thread_id == PLAIN:
        values["artifacts"] = [f"{OUT}/report.md"]
    return values


def _graph(saver: SqliteSaver, folders: dict[str, dict[str, str]]):
    def write(state: dict, config) -> dict:
        thread_id = config["configurable"]["thread_id"]
        return {**_values(thread_id, folders[thread_id]),
                "messages": [AIMessage(f"done in {thread_id}", id=f"ai-{thread_id}")]}

    graph = StateGraph(ThreadState)
    graph.add_node("write", write)
    graph.add_edge(START, "write")
    graph.add_edge("write", END)
    return graph.compile(checkpointer=saver)


def _plant_deep_json(conn: sqlite3.Connection) -> None:
    conn.execute("UPDATE checkpoints SET metadata = ? WHERE thread_id = ? AND checkpoint_id = "
                 "(SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ?)",
                 [DEEP_JSON_TEXT.encode(), DEEP_JSON, DEEP_JSON])


def _with_deep_value(blob: bytes) -> bytes:
    """A checkpoint blob with one more channel, ``notes``, holding the deep map."""
    value = msgpack.unpackb(blob, raw=False, strict_map_key=False)
    marker = "DEEP-VALUE-MARKER"
    value["channel_values"]["notes"] = marker
    packed = msgpack.packb(value, use_bin_type=True)
    encoded = msgpack.packb(marker)
    assert packed.count(encoded) == 1
    return packed.replace(encoded, deep_msgpack())


def _plant_deep_msgpack(conn: sqlite3.Connection) -> None:
    rows = conn.execute("SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = ? AND type = 'msgpack'",
                        [DEEP_MSGPACK]).fetchall()
    newest = max(r[0] for r in rows)
    for checkpoint_id, blob in rows:
        if checkpoint_id == newest:
            conn.execute("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = ? AND checkpoint_id = ?",
                         [_with_deep_value(bytes(blob)), DEEP_MSGPACK, checkpoint_id])
    conn.execute("UPDATE writes SET value = ? WHERE thread_id = ? AND channel = 'title' AND type = 'msgpack'",
                 [deep_msgpack(), DEEP_MSGPACK])


def write_structure_store(out_dir: str | Path) -> Path:
    """Write ``out_dir/data/structure.db``, the threads' folders and the host folder; returns the database."""
    out = Path(out_dir).resolve()
    if out.exists():
        shutil.rmtree(out)
    data = out / "data"
    data.mkdir(parents=True)
    host = _host(out)
    folders = _plant_files(data, host)
    db = data / "structure.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        graph = _graph(saver, folders)
        for thread in THREADS:
            metadata = {}
            if thread == BRANCH:
                metadata = {"branch_parent_thread_id": BRANCH_PARENT}
            config = {"configurable": {"thread_id": thread}, "metadata": metadata}
            graph.invoke({"messages": [HumanMessage(f"hello {thread}", id=f"h-{thread}")]}, config)
        _plant_deep_json(conn)
        _plant_deep_msgpack(conn)
        conn.commit()
    finally:
        conn.close()
    return db


__all__ = ["BRANCH", "BRANCH_PARENT", "DEEP_JSON", "DEEP_MSGPACK", "FIFO", "FOLDER_LINK", "HOST_SECRET", "PLAIN",
           "ROOT_LINK", "THREADS", "deep_msgpack", "write_structure_store"]
