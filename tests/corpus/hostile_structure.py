"""The hostile corpus's cases whose shape, not their text, is hostile (registered in ``hostile_corpus.CASES``):
folders that lead out of the data directory, named pipes where files should be, values nested past any
sane depth. Written by LangGraph's ``SqliteSaver`` through the corpus's ``Planting``; raw SQL plants only
what the saver cannot write (metadata that is ``[`` repeated 100,000 times, a 900-deep msgpack map).

The "host's" files the threads try to reach sit in ``{corpus folder}-host``, beside the corpus folder and
so outside its data directory; each holds ``HOST_SECRET``, listed as the cases' secret so that
``hostile_corpus.leaked`` finds it in any output.

* ``FOLDER_LINK``: its ``outputs`` folder is a symlink to the host folder; artifacts, a viewed image,
  an upload and a message's attachment name files in it. ``ETC_LINK``: its ``outputs`` is a symlink to ``/etc`` itself.
* ``ROOT_LINK``: its whole ``user-data`` folder is a symlink to a copy of the layout on the host.
* ``BRANCH``: branched (DeerFlow's ``branch_parent_thread_id`` metadata) from ``BRANCH_PARENT``, whose
  ``outputs`` folder leads to the host; its image's ``actual_path`` points into that parent folder.
* ``FIFO``: an artifact, an upload, a viewed image and a message's attachment that are named pipes (opened,
  they block forever).
* ``DEEP_JSON``: one checkpoint's metadata is 100,000 nested JSON lists.
* ``DEEP_MSGPACK``: a channel value (and a write) that is a 900-deep msgpack map, and a write that is 3,000
  extension values inside one another.
* ``PLAIN``: an ordinary thread with an artifact, which every answer must still hold.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import msgpack
from hostile_corpus import Planting, case
from langchain_core.messages import AIMessage, HumanMessage
from PIL import Image

FOLDER_LINK = "hostile-folder-link"
ETC_LINK = "hostile-etc-link"  # outputs -> /etc itself: a link to a real system folder
ROOT_LINK = "hostile-root-link"
BRANCH = "hostile-branch-child"
BRANCH_PARENT = "hostile-branch-parent"
FIFO = "hostile-fifo"
DEEP_JSON = "hostile-deep-json"
DEEP_MSGPACK = "hostile-deep-msgpack"
PLAIN = "hostile-plain"
LINK_THREADS = (FOLDER_LINK, ETC_LINK, ROOT_LINK, BRANCH, BRANCH_PARENT)

HOST_SECRET = "root:x:0:0:host-file-never-shown"  # the content of every file on the "host"
ETC_PASSWD = "root:x:0:0:"  # how the real /etc/passwd begins
DEEP_JSON_TEXT = "[" * 100_000
MSGPACK_DEPTH = 900
OUT = "/mnt/user-data/outputs"
FOLDERS = ("workspace", "uploads", "outputs")
STRUCTURE_CASES = ("folder-links", "named-pipes", "deep-values", "plain")


def deep_msgpack(depth: int = MSGPACK_DEPTH) -> bytes:
    """A map ``{"a": {"a": ... None}}`` nested ``depth`` times, as msgpack bytes (written by hand: the
    packers refuse such depth)."""
    return b"\x81\xa1a" * depth + b"\xc0"


def nested_ext(depth: int = 3000) -> bytes:
    """An extension value (LangGraph's constructor code) holding one holding one ... ``depth`` times: each is
    unpacked inside the last one's call (a few hundred overflow the C stack of a naive decoder)."""
    inner = msgpack.packb(None)
    for _ in range(depth):
        inner = msgpack.packb(msgpack.ExtType(0, b"\x93" + msgpack.packb("m") + msgpack.packb("n") + inner))
    return inner


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (10, 200, 10)).save(out, "PNG")
    return out.getvalue()


def host_folder(folder: Path) -> Path:
    """The folder standing for the host's own files (``/etc``), beside the corpus folder."""
    host = folder.parent / f"{folder.name}-host"
    for where in (host, *(host / "layout" / f for f in FOLDERS)):
        where.mkdir(parents=True, exist_ok=True)
        for name in ("passwd", "notes.md"):
            (where / name).write_text(HOST_SECRET + "\n")
        (where / "pic.png").write_bytes(png())
    return host


def _link(path: Path, target: Path) -> None:
    shutil.rmtree(path)
    path.symlink_to(target, target_is_directory=True)


def _attaching(path: str) -> list:
    """A user's message with ``path`` attached, as DeerFlow's uploads middleware keeps it."""
    name = path.rsplit("/", 1)[-1]
    return [HumanMessage(f"attached: {name}", id=f"attach-{name}",
                         additional_kwargs={"files": [{"filename": name, "size": 10, "path": path, "status": "uploaded"}]})]


def _reaching_files(thread_data: dict[str, str]) -> dict:
    """Artifacts, a viewed image, an upload and a message's attachment, all in the thread's ``outputs``."""
    return {"thread_data": thread_data, "artifacts": [f"{OUT}/passwd", f"{OUT}/notes.md"],
            "messages": _attaching(f"{OUT}/passwd"),
            "viewed_images": {f"{OUT}/pic.png": {"mime_type": "image/png", "size": len(png()),
                                                 "actual_path": f"{thread_data['outputs_path']}/pic.png"}},
            "uploaded_files": [{"filename": "passwd", "size": 10, "path": f"{OUT}/passwd", "extension": ""}]}


def _message(thread_id: str) -> dict:
    """The first step of each thread; its ``sandbox`` (with ``thread_data``) makes it a DeerFlow thread."""
    return {"messages": [HumanMessage(f"hello {thread_id}", id=f"h-{thread_id}"),
                         AIMessage(f"done in {thread_id}", id=f"ai-{thread_id}")], "title": f"{thread_id} title",
            "sandbox": {"sandbox_id": "local"}}


@case("folder-links", "user-data folders that are symlinks out of the data directory (outputs -> the host's "
      "files; the whole user-data folder; a branch parent's outputs)",
      threads=LINK_THREADS, secrets=[HOST_SECRET, ETC_PASSWD], owner="structure")
def _folder_links(p: Planting) -> None:
    host = host_folder(p.folder)
    data = p.thread_data(ETC_LINK)
    _link(Path(data["outputs_path"]), Path("/etc"))
    p.run(ETC_LINK, _message(ETC_LINK), {"thread_data": data, "artifacts": [f"{OUT}/passwd", f"{OUT}/hostname"],
                                         "uploaded_files": [{"filename": "passwd", "path": f"{OUT}/passwd"}]})
    for thread in (FOLDER_LINK, BRANCH_PARENT):
        data = p.thread_data(thread)
        _link(Path(data["outputs_path"]), host)
        p.run(thread, _message(thread), _reaching_files(data))
    root = p.user_data(ROOT_LINK)
    _link(root, host / "layout")
    p.run(ROOT_LINK, _message(ROOT_LINK), _reaching_files({f"{f}_path": str(root / f) for f in FOLDERS}))
    data = p.thread_data(BRANCH)
    parent_outputs = p.user_data(BRANCH_PARENT) / "outputs"
    p.run(BRANCH, _message(BRANCH), {
        "thread_data": data,
        "viewed_images": {f"{OUT}/pic.png": {"mime_type": "image/png", "size": len(png()),
                                             "actual_path": f"{parent_outputs}/pic.png"}},
        "uploaded_files": [{"filename": "notes.md", "size": 10, "path": f"{parent_outputs}/notes.md"}],
    }, metadata={"branch_parent_thread_id": BRANCH_PARENT})


@case("named-pipes", "an artifact, an upload and a viewed image that are named pipes", threads=[FIFO],
      kept=["a plain file next to the pipes"], owner="structure")
def _named_pipes(p: Planting) -> None:
    data = p.thread_data(FIFO)
    outputs = Path(data["outputs_path"])
    for name in ("pipe.md", "pipe.png", "pipe.txt"):
        os.mkfifo(outputs / name)
    (outputs / "ok.md").write_text("# a plain file next to the pipes\n")
    p.run(FIFO, _message(FIFO), {
        "thread_data": data, "artifacts": [f"{OUT}/pipe.md", f"{OUT}/pipe.txt", f"{OUT}/ok.md"],
        "messages": _attaching(f"{OUT}/pipe.txt"),
        "viewed_images": {f"{OUT}/pipe.png": {"mime_type": "image/png", "size": 100,
                                              "actual_path": f"{outputs}/pipe.png"}},
        "uploaded_files": [{"filename": "pipe.txt", "size": 3, "path": f"{OUT}/pipe.txt"}]})


def _with_deep_value(blob: bytes) -> bytes:
    """A checkpoint blob with one more channel, ``notes``, holding the deep map."""
    value = msgpack.unpackb(blob, raw=False, strict_map_key=False)
    marker = "DEEP-VALUE-MARKER"
    value["channel_values"]["notes"] = marker
    packed, encoded = msgpack.packb(value, use_bin_type=True), msgpack.packb(marker)
    assert packed.count(encoded) == 1
    return packed.replace(encoded, deep_msgpack())


def _newest(p: Planting, thread: str) -> tuple[str, bytes]:
    return p.conn.execute("SELECT checkpoint_id, checkpoint FROM checkpoints WHERE thread_id = ? "
                          "ORDER BY checkpoint_id DESC LIMIT 1", [thread]).fetchone()


@case("deep-values", "metadata that is 100,000 nested JSON lists; a channel value and a write that are a 900-deep "
      "msgpack map (raw SQL: the saver refuses both)", threads=[DEEP_JSON, DEEP_MSGPACK], owner="structure")
def _deep_values(p: Planting) -> None:
    for thread in (DEEP_JSON, DEEP_MSGPACK):
        p.run(thread, _message(thread), {"thread_data": p.thread_data(thread), "title": f"{thread} title"})
    checkpoint_id, _ = _newest(p, DEEP_JSON)
    p.sql("UPDATE checkpoints SET metadata = ? WHERE thread_id = ? AND checkpoint_id = ?",
          [DEEP_JSON_TEXT.encode(), DEEP_JSON, checkpoint_id])
    checkpoint_id, blob = _newest(p, DEEP_MSGPACK)
    p.sql("UPDATE checkpoints SET checkpoint = ? WHERE thread_id = ? AND checkpoint_id = ?",
          [_with_deep_value(bytes(blob)), DEEP_MSGPACK, checkpoint_id])
    p.sql("UPDATE writes SET value = ? WHERE thread_id = ? AND channel = 'title' AND type = 'msgpack'",
          [deep_msgpack(), DEEP_MSGPACK])
    p.sql("UPDATE writes SET value = ? WHERE thread_id = ? AND channel = 'thread_data' AND type = 'msgpack'",
          [nested_ext(), DEEP_MSGPACK])


@case("plain", "an ordinary thread with an artifact, next to the hostile ones", threads=[PLAIN],
      kept=["plain report"], owner="structure")
def _plain(p: Planting) -> None:
    data = p.thread_data(PLAIN)
    (Path(data["outputs_path"]) / "report.md").write_text("# plain report\n")
    p.run(PLAIN, _message(PLAIN), {"thread_data": data, "artifacts": [f"{OUT}/report.md"]})


__all__ = ["BRANCH", "BRANCH_PARENT", "DEEP_JSON", "DEEP_MSGPACK", "ETC_LINK", "ETC_PASSWD", "FIFO", "FOLDER_LINK",
           "HOST_SECRET", "PLAIN", "ROOT_LINK", "STRUCTURE_CASES", "deep_msgpack", "host_folder", "nested_ext", "png"]
