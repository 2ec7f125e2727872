"""A support case for bundle tests: a real run of the demo graph, with images on disk, an artifact and a
fake API key in the user's message, the artifact's text, the tool call and the run's metadata."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.demo import images
from inspector.demo.model import Script, Turn, act, call, say, user_message
from inspector.demo.threads import RECURSION_LIMIT, Demo
from inspector.demo.tools import CURRENT_TOOLS

CASE = "support-case"
FAKE_KEY = "sk-proj-" + "Zq7Xv2Lm9Tr4Hs8Kd1Pw6Yb3Nc5Gf0Ju"
OUT = "/mnt/user-data/outputs"
UP = "/mnt/user-data/uploads"


def support_script() -> Script:
    uploads = {"chart.png": images.bar_chart_png("Errors per hour", ["09", "10", "11"], [3, 41, 7]),
               "board.jpg": images.whiteboard_jpeg(seed=5)}
    ask = f"Deploys fail since 10:00. Our settings: OPENAI_API_KEY={FAKE_KEY}. The chart and the board are attached."
    notes = f"# Notes\n\nThe customer pasted a live key ({FAKE_KEY}); it must be rotated.\n"
    return Script(CASE, "Deploy failures after 10:00", (Turn(ask, uploads=uploads, replies=(
        act("Looking at both images.", call("view_image", image_path=f"{UP}/chart.png"),
            call("view_image", image_path=f"{UP}/board.jpg")),
        act("Writing notes.", call("write_file", path=f"{OUT}/notes.md", content=notes)),
        act("", call("present_files", file_paths=[f"{OUT}/notes.md"])),
        say("The error spike starts at 10:00. Rotate the key you pasted; the notes are in `notes.md`."),
    )),))


def write_support_case(db: Path, base: Path) -> None:
    """Run the support case into ``db`` (created with SqliteSaver.setup() when new), files under ``base``."""
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        run_support_case(saver, base)
        conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def run_support_case(saver, base: Path) -> None:
    demo = Demo(base, saver)
    script = support_script()
    graph = demo.agent(script, tools=CURRENT_TOOLS, before_model=())
    files = [demo.upload(CASE, name, data) for name, data in script.turns[0].uploads.items()]
    config = {"configurable": {"thread_id": CASE}, "recursion_limit": RECURSION_LIMIT,
              "metadata": {"customer_api_key": FAKE_KEY}}
    graph.invoke({"messages": [user_message(script, 0, files)]}, config)


def put_checkpoint(db: Path, thread_id: str, values: dict) -> None:
    """One root checkpoint holding ``values`` as its channels, written by LangGraph's SqliteSaver into ``db``."""
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        saver = SqliteSaver(conn)
        saver.setup()
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = values
        checkpoint["channel_versions"] = {name: 1 for name in values}
        saver.put({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}, checkpoint,
                  {"source": "input", "step": -1, "parents": {}}, {})
        conn.commit()


def deflated_zip(path: Path, members: dict[str, bytes], zeros: dict[str, int] | None = None) -> Path:
    """A zip of ``members`` (deflated), then of members holding only zero bytes (name -> how many), each
    compressed once and copied: thousands of 1 MB members cost one compression, not thousands. Written
    field by field (the zip format's local headers, central directory and end record, no zip64), since
    ``zipfile`` compresses every member it writes."""
    import struct
    import zlib

    def deflate(data: bytes) -> bytes:
        packer = zlib.compressobj(9, zlib.DEFLATED, -15)
        return packer.compress(data) + packer.flush()

    entries = [(name, zlib.crc32(data), deflate(data), len(data)) for name, data in members.items()]
    packed: dict[int, tuple[int, bytes]] = {}
    for name, size in (zeros or {}).items():
        if size not in packed:
            packed[size] = (zlib.crc32(bytes(size)), deflate(bytes(size)))
        entries.append((name, *packed[size], size))
    central, offset = [], 0
    with path.open("wb") as out:
        for name, crc, data, size in entries:
            encoded = name.encode()
            out.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 33, crc, len(data), size, len(encoded), 0))
            out.write(encoded)
            out.write(data)
            central.append(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 33, crc, len(data), size,
                                       len(encoded), 0, 0, 0, 0, 0, offset) + encoded)
            offset += 30 + len(encoded) + len(data)
        directory = b"".join(central)
        out.write(directory)
        out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(directory), offset, 0))
    return path
