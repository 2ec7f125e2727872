"""A hostile store: one thread per attack, written by LangGraph's own ``SqliteSaver``, plus raw-SQL
plantings where the saver cannot write the case (an id that is not UTF-8 text).

``write_corpus(folder)`` writes ``folder/hostile-corpus.db`` and the threads' user-data folders
under ``folder/threads/<thread_id>/user-data``. Cases live in ``CASES``, a registry: a function
decorated with ``@case(...)`` receives a ``Planting`` (the open saver and connection, the folder,
helpers to put a checkpoint or run a one-node graph) and writes its thread(s). Each case lists the
fake secrets it plants (``leaked(text)`` finds any of them in an output), the text that must still
be shown, and the characters that must never reach a terminal. Add a case by decorating a function
here or in a test module imported before ``write_corpus`` runs.

``long_chars`` sets the length of the pathological texts (the tests use ~100k characters, which a
quadratic pattern would take minutes over; the browser test writes 1 MB).
"""

from __future__ import annotations

import base64
import random
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Callable, Iterable, NotRequired

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from benchmarks.worst_text import WORST
from inspector.schema.thread_state import ThreadState

DB_NAME = "hostile-corpus.db"
LONG_CHARS = 100_000
# What must never reach a terminal from the data (JSON output escapes them; tables must too).
TERMINAL_CONTROLS = ("\x1b", "\x07", "\x9b", "\x9d", "\x9c", "\u202e", "\x08", "\r", "\x00")


def _merge(a: dict | None, b: dict | None) -> dict:
    return {**(a or {}), **(b or {})}


class CorpusState(ThreadState):
    """DeerFlow's ThreadState plus two free-form fields an app of its own might keep."""

    notes: NotRequired[Annotated[dict, _merge]]
    config: NotRequired[Annotated[dict, _merge]]


@dataclass
class Planting:
    """What a case writes with: the saver and its connection, the store's folder, the texts' length."""

    folder: Path
    conn: sqlite3.Connection
    saver: SqliteSaver
    long_chars: int = LONG_CHARS

    def user_data(self, thread_id: str) -> Path:
        """The thread's user-data folder (DeerFlow's layout), created with workspace/uploads/outputs."""
        root = self.folder / "threads" / thread_id / "user-data"
        for name in ("workspace", "uploads", "outputs"):
            (root / name).mkdir(parents=True, exist_ok=True)
        return root

    def thread_data(self, thread_id: str) -> dict[str, str]:
        root = self.user_data(thread_id)
        return {f"{name}_path": str(root / name) for name in ("workspace", "uploads", "outputs")}

    def run(self, thread_id: str, *updates: dict[str, Any], metadata: dict | None = None) -> None:
        """A real graph over ``CorpusState``: one node per update, run once (checkpoints and writes)."""
        graph = StateGraph(CorpusState)
        previous = START
        for i, update in enumerate(updates):
            name = f"step_{i}"
            graph.add_node(name, lambda state, u=update: u)
            graph.add_edge(previous, name)
            previous = name
        graph.add_edge(previous, END)
        config: dict[str, Any] = {"configurable": {"thread_id": thread_id}}
        if metadata:
            config["metadata"] = metadata
        graph.compile(checkpointer=self.saver).invoke({"messages": []}, config)

    def put(self, thread_id: str, values: dict[str, Any], metadata: dict | None = None, ns: str = "",
            checkpoint_id: str | None = None, parent: str | None = None,
            writes: Iterable[tuple[str, Any]] = (), task_id: str = "task-1") -> str:
        """One checkpoint holding ``values`` as its channels, through the saver's own ``put``; returns its id."""
        checkpoint = empty_checkpoint()
        if checkpoint_id:
            checkpoint["id"] = checkpoint_id
        checkpoint["channel_values"] = dict(values)
        checkpoint["channel_versions"] = {name: 1 for name in values}
        configurable = {"thread_id": thread_id, "checkpoint_ns": ns}
        if parent:
            configurable["checkpoint_id"] = parent
        saved = self.saver.put({"configurable": configurable}, checkpoint,
                               {"source": "loop", "step": 0, "parents": {}, **(metadata or {})},
                               checkpoint["channel_versions"])
        writes = list(writes)
        if writes:
            self.saver.put_writes(saved, writes, task_id=task_id)
        return saved["configurable"]["checkpoint_id"]

    def sql(self, statement: str, params: Iterable[Any] = ()) -> None:
        """A raw write, for what no saver would store."""
        self.conn.execute(statement, tuple(params))


@dataclass(frozen=True)
class Case:
    name: str
    about: str
    plant: Callable[[Planting], None]
    threads: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()  # fake secrets, none of which may appear in any output
    kept: tuple[str, ...] = ()  # text around them that must still be shown (as JSON output holds it)
    owner: str = "text"


CASES: dict[str, Case] = {}


def case(name: str, about: str, threads: Iterable[str] = (), secrets: Iterable[str] = (), kept: Iterable[str] = (),
         owner: str = "text") -> Callable[[Callable[[Planting], None]], Callable[[Planting], None]]:
    """Register the decorated function as the corpus case ``name``."""
    def register(plant: Callable[[Planting], None]) -> Callable[[Planting], None]:
        if name in CASES:
            raise ValueError(f"corpus case {name!r} registered twice")
        CASES[name] = Case(name, about, plant, tuple(threads), tuple(secrets), tuple(kept), owner)
        return plant
    return register


def write_corpus(folder: str | Path, cases: Iterable[str] | None = None, long_chars: int = LONG_CHARS) -> Path:
    """Write ``folder/hostile-corpus.db`` holding ``cases`` (default: every registered case)."""
    out = Path(folder).resolve()
    out.mkdir(parents=True, exist_ok=True)
    db = out / DB_NAME
    db.unlink(missing_ok=True)
    chosen = [CASES[name] for name in (cases if cases is not None else list(CASES))]
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        planting = Planting(out, conn, saver, long_chars)
        for item in chosen:
            item.plant(planting)
        conn.commit()
    finally:
        conn.close()
    return db


def secrets(cases: Iterable[str] | None = None) -> tuple[str, ...]:
    return tuple(s for name in (cases if cases is not None else list(CASES)) for s in CASES[name].secrets)


def leaked(text: str, cases: Iterable[str] | None = None) -> list[str]:
    """The planted secrets found in ``text`` (also as the base64 a JSON encoder would make of bytes)."""
    return [s for s in secrets(cases) if s in text]


def controls_in(text: str) -> list[str]:
    """The terminal control characters in ``text`` (a line feed and a tab are fine)."""
    return [repr(c) for c in TERMINAL_CONTROLS if c in text]


def thread_ids(cases: Iterable[str] | None = None) -> list[str]:
    return [t for name in (cases if cases is not None else list(CASES)) for t in CASES[name].threads]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# -- the cases: text ---------------------------------------------------------------------------------------

LONG_THREAD = "hostile-long-text"


@case("long-text", "one message per pathological text (quadratic for a backtracking pattern), and a plain one",
      threads=[LONG_THREAD], kept=["The quarterly report"])
def _long_text(p: Planting) -> None:
    n = p.long_chars
    messages = [HumanMessage(WORST["letters"](n), id="worst-letters")]
    messages += [AIMessage(make(n), id=f"worst-{name}") for name, make in WORST.items() if name != "letters"]
    messages += [AIMessage("", id="worst-call", tool_calls=[{"name": "fetch", "args": {}, "id": "call-long"}]),
                 ToolMessage(WORST["letters"](n), tool_call_id="call-long", name="fetch", id="worst-tool")]
    messages.append(HumanMessage("The quarterly report, in short.", id="plain"))
    p.run(LONG_THREAD, {"messages": messages[:1], "title": WORST["dotted-words"](min(n, 5000))},
          {"messages": messages[1:], "todos": [{"content": WORST["letters"](n), "status": "pending"}],
           "notes": {"long": WORST["jwt-starts"](n), WORST["digits"](2000): "a long key"}})


MEGABYTE_THREAD = "hostile-one-long-message"


@case("one-long-message", "one message of long_chars letters (the old linkify pattern's worst case) beside short ones",
      threads=[MEGABYTE_THREAD], kept=["Summarise this"])
def _one_long_message(p: Planting) -> None:
    p.run(MEGABYTE_THREAD, {"messages": [HumanMessage("Summarise this", id="m0"),
                                         HumanMessage(WORST["letters"](p.long_chars), id="m1")],
                            "title": "one long message"},
          {"messages": [AIMessage("It is one long word.", id="m2")]})


NAMES_THREAD = "hostile-secret-names"
# values shaped like nothing: masked only because of the name they sit under
DB_PASSWORD_CAMEL = "camelPwFake4411"
OPENAI_CAMEL = "camelOpenaiFake9931"
GITHUB_CAMEL = "camelGithubFake5521"
PG_ENV = "pgEnvFake7781"
DB_PASS = "dbPassFake3321"
PWD = "pwdFake6612"
PASS = "passFake8843"
CLIENT_SECRET_CAMEL = "clientSecretFake2290"
NAME_SECRETS = (DB_PASSWORD_CAMEL, OPENAI_CAMEL, GITHUB_CAMEL, PG_ENV, DB_PASS, PWD, PASS, CLIENT_SECRET_CAMEL)
# names that hold no secret: their values stay readable
KEPT_VALUES = {"max_tokens": 4096, "maxTokens": 2048, "token_usage": {"input_tokens": 12, "output_tokens": 34},
               "passage": "passage-kept-1", "compass": "compass-kept-2", "bypass": "bypass-kept-3",
               "passport": "passport-kept-4", "password_policy_url": "policy-kept-5", "tokenizer": "tokenizer-kept-6",
               "keyboard": "keyboard-kept-7", "passes": 3}


@case("secret-names", "secrets under names as people write them: camelCase, run-together, abbreviated",
      threads=[NAMES_THREAD], secrets=NAME_SECRETS,
      kept=["passage-kept-1", "compass-kept-2", "bypass-kept-3", "passport-kept-4", "policy-kept-5",
            "tokenizer-kept-6", "keyboard-kept-7", "psql -h db.internal"])
def _secret_names(p: Planting) -> None:
    config = {"dbPassword": DB_PASSWORD_CAMEL, "openaiApiKey": OPENAI_CAMEL, "githubToken": GITHUB_CAMEL,
              "DB_PASS": DB_PASS, "pwd": PWD, "pass": PASS, "clientSecret": CLIENT_SECRET_CAMEL, **KEPT_VALUES}
    text = (f"Run it as PGPASSWORD={PG_ENV} psql -h db.internal, with DB_PASS={DB_PASS} and pwd: {PWD}; "
            f'the config is {{"dbPassword": "{DB_PASSWORD_CAMEL}", "openaiApiKey": "{OPENAI_CAMEL}"}} '
            f"and githubToken={GITHUB_CAMEL}, pass={PASS}.")
    p.run(NAMES_THREAD, {"messages": [HumanMessage(text, id="names-1")], "config": config},
          {"messages": [AIMessage("Connecting.", id="names-2", tool_calls=[
              {"id": "c1", "name": "connect", "args": {"dbPassword": DB_PASSWORD_CAMEL, "pwd": PWD,
                                                      "max_tokens": 4096}}])]},
          metadata={"githubToken": GITHUB_CAMEL, "passage": "passage-kept-1"})


SHAPES_THREAD = "hostile-long-shapes"
AWS_NEAR_DATA_URL = "AKIAFAKE0123456789QZ"
PASSWORD_NEAR_BASE64 = "B64neighbourFake1"
GHP_IN_BASE64_TEXT = "ghp_FakeInsideBase64Run0123456789abcdef"
SHAPE_SECRETS = (AWS_NEAR_DATA_URL, PASSWORD_NEAR_BASE64, GHP_IN_BASE64_TEXT)


def _base64_payload(n: int) -> str:
    return _b64(random.Random(3).randbytes(n))


@case("long-shapes", "key shapes next to long base64 runs and data URLs",
      threads=[SHAPES_THREAD], secrets=SHAPE_SECRETS, kept=["the key is"])
def _long_shapes(p: Planting) -> None:
    payload = _base64_payload(9000)
    texts = [
        f"data:image/png;base64,{payload} the key is {AWS_NEAR_DATA_URL}",
        f"{payload}\npassword={PASSWORD_NEAR_BASE64}\n{payload}",
        f"{payload}\n{GHP_IN_BASE64_TEXT}",
        f"{payload}\n{AWS_NEAR_DATA_URL}",
    ]
    p.run(SHAPES_THREAD, {"messages": [HumanMessage(t, id=f"shape-{i}") for i, t in enumerate(texts)],
                          "notes": {"image": f"data:image/png;base64,{payload}\n{AWS_NEAR_DATA_URL}"}})


BYTES_THREAD = "hostile-bytes"
BYTES_TEXT_SECRET = "AKIAFAKEBYTES0000ZZ9"
BYTES_UNDER_NAME = b"\x00\x01rawBytesSecretFake77"
BYTES_KEY_VALUE = b"bytesKeyPwFake5544"
BYTES_BINARY_SHAPE = "ghp_FakeBinaryShape0123456789abcdefghij"
BYTES_KEY_STR_VALUE = "strUnderBytesKeyFake66"
BYTES_SECRETS = (BYTES_TEXT_SECRET, _b64(f"aws {BYTES_TEXT_SECRET} here".encode()), "rawBytesSecretFake77",
                 _b64(BYTES_UNDER_NAME), BYTES_KEY_VALUE.decode(), _b64(BYTES_KEY_VALUE), BYTES_BINARY_SHAPE,
                 _b64(b"\xff\xfe" + BYTES_BINARY_SHAPE.encode() + b"\x00"), BYTES_KEY_STR_VALUE)


@case("bytes", "bytes values and bytes map keys: UTF-8 text, binary under a secret name, binary holding a shape",
      threads=[BYTES_THREAD], secrets=BYTES_SECRETS, kept=["bytes-kept-plain"])
def _bytes(p: Planting) -> None:
    p.put(BYTES_THREAD, {
        "messages": [HumanMessage("bytes below", id="b1")],
        "blob_text": f"aws {BYTES_TEXT_SECRET} here".encode(),
        "blob_plain": b"bytes-kept-plain",
        "notes": {"apiKey": BYTES_UNDER_NAME, b"password": BYTES_KEY_VALUE, b"dbPassword": BYTES_KEY_STR_VALUE,
                  b"plain-bytes-key": b"\xff\xfe" + BYTES_BINARY_SHAPE.encode() + b"\x00"},
    }, writes=[("notes", {b"password": BYTES_KEY_VALUE})])


ESCAPES_THREAD = "hostile-esc-\x1b]0;pwned-title\x07-\x1b[2J"
ESCAPE_TITLE = "\x1b]8;;http://osc8.invalid/\x1b\\click me\x1b]8;;\x1b\\ \x1b[31mred\x1b[0m\rover"


@case("escapes", "terminal escapes (ESC, BEL, CSI, OSC 0 and 8, CR, backspace, C1) in ids, titles, messages",
      threads=[ESCAPES_THREAD], kept=["click me"])
def _escapes(p: Planting) -> None:
    first = p.put(ESCAPES_THREAD, {
        "messages": [HumanMessage("line\x1b[2J\x1b[Hcleared\x07\x08\x08\x9b31m tail", id="esc-1")],
        "title": ESCAPE_TITLE, "todos": [{"content": "\x1b]0;todo-title\x07", "status": "pending\x1b[5m"}],
        "artifacts": ["/mnt/user-data/outputs/\x1b[31mred.md"],
    }, metadata={"source": "loop\x1b[1m", "note\x1b[4m": "\x1b]8;;http://meta.invalid/\x07x"},
        checkpoint_id="1f0-esc-\x1b[31m-0000", writes=[("messages", "\x1b[2J write")], task_id="task\x07")
    p.put(ESCAPES_THREAD, {"title": "ns \x1b[2J"}, ns="sub\x1b[2J:task", checkpoint_id="1f0-esc-ns-\x07")
    p.put(ESCAPES_THREAD, {"title": ESCAPE_TITLE}, checkpoint_id="1f0-esc-\x1b[31m-0001", parent=first)


BAD_UTF8_VICTIM = "hostile-bad-utf8-source"
BAD_UTF8_THREAD = b"bad-\xff\xfe-thread"  # what the id holds, as bytes
BAD_UTF8_NS = b"ns-\xc3(\xa0"
BAD_UTF8_CHECKPOINT = b"1f0-bad-\xed\xa0\x80-id"
GOOD_AFTER_BAD = "hostile-listed-after-bad"
BAD_IDS_INSIDE = "hostile-bad-ids-inside"


@case("invalid-utf8-ids", "thread, namespace and checkpoint ids stored as text that is not UTF-8 (raw SQL)",
      threads=[GOOD_AFTER_BAD, BAD_IDS_INSIDE])
def _invalid_utf8(p: Planting) -> None:
    p.put(BAD_UTF8_VICTIM, {"messages": [HumanMessage("the id of this thread is not UTF-8", id="u1")],
                            "title": "undecodable id"}, writes=[("messages", "pending")])
    copy_checkpoint = ("INSERT INTO checkpoints SELECT CAST(? AS TEXT), {ns}, {cp}, parent_checkpoint_id, type, "
                       "checkpoint, metadata FROM checkpoints WHERE thread_id = ?")
    copy_writes = ("INSERT INTO writes SELECT CAST(? AS TEXT), {ns}, {cp}, task_id, task_path, idx, channel, type, "
                   "value FROM writes WHERE thread_id = ?")
    for thread, ns, cp, extra in ((BAD_UTF8_THREAD, "checkpoint_ns", "checkpoint_id", []),
                                  (BAD_UTF8_THREAD + b"-ns", "CAST(? AS TEXT)", "checkpoint_id", [BAD_UTF8_NS]),
                                  (BAD_UTF8_THREAD + b"-cp", "checkpoint_ns", "CAST(? AS TEXT)", [BAD_UTF8_CHECKPOINT])):
        for statement in (copy_checkpoint, copy_writes):
            p.sql(statement.format(ns=ns, cp=cp), [thread, *extra, BAD_UTF8_VICTIM])
    # a thread whose id is fine, holding one checkpoint and one namespace whose ids are not UTF-8
    good = p.put(BAD_IDS_INSIDE, {"messages": [HumanMessage("first", id="v1")], "title": "ids inside are bad"})
    p.sql("INSERT INTO checkpoints SELECT thread_id, checkpoint_ns, CAST(? AS TEXT), checkpoint_id, type, checkpoint, "
          "metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?",
          [b"1f0-\xff-child", BAD_IDS_INSIDE, good])
    p.sql("INSERT INTO checkpoints SELECT thread_id, CAST(? AS TEXT), checkpoint_id, NULL, type, checkpoint, "
          "metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_id = ?", [b"sub-\xfe", BAD_IDS_INSIDE, good])
    p.sql("DELETE FROM checkpoints WHERE thread_id = ?", [BAD_UTF8_VICTIM])
    p.sql("DELETE FROM writes WHERE thread_id = ?", [BAD_UTF8_VICTIM])
    p.put(GOOD_AFTER_BAD, {"messages": [HumanMessage("an ordinary thread", id="g1")], "title": "still listed"})


# A real thread named with a backslash, and a planted one whose id is the bytes ``victim`` + 0xFF: the escaped
# spelling of the planted id is the real thread's id, so they must never be taken for each other.
VICTIM_REAL = "victim\\xff"
VICTIM_PLANTED = b"victim\xff"
VICTIM_REAL_TEXT = "the real thread named victim-backslash-x-f-f"
VICTIM_PLANTED_TEXT = "planted: its id ends in the byte 0xFF"


@case("not-utf8-collision", "a real thread named victim\\xff and a planted one whose id is victim + byte 0xFF",
      threads=[VICTIM_REAL])
def _not_utf8_collision(p: Planting) -> None:
    first = p.put(VICTIM_REAL, {"messages": [HumanMessage(VICTIM_REAL_TEXT, id="r1")], "title": "real"})
    p.put(VICTIM_REAL, {"messages": [HumanMessage(VICTIM_REAL_TEXT, id="r1")], "title": "real"}, parent=first,
          writes=[("title", "real")])
    source = "hostile-planted-victim-source"
    p.put(source, {"messages": [HumanMessage(VICTIM_PLANTED_TEXT, id="p1")], "title": "planted"},
          writes=[("messages", "pending planted write")])
    for table, columns in (("checkpoints", "checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, "
                                           "metadata"),
                           ("writes", "checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, value")):
        p.sql(f"INSERT INTO {table} SELECT CAST(? AS TEXT), {columns} FROM {table} WHERE thread_id = ?",
              [VICTIM_PLANTED, source])
        p.sql(f"DELETE FROM {table} WHERE thread_id = ?", [source])


ARTIFACT_THREAD = "hostile-artifact-secret"
ARTIFACT_SECRET = "artifactPwFake3390"
ARTIFACT_KEY = "AKIAFAKEARTIFACT00QZ"


@case("artifact-secret", "a text artifact holding secrets (copied into a bundle masked)",
      threads=[ARTIFACT_THREAD], secrets=(ARTIFACT_SECRET, ARTIFACT_KEY), kept=["All services are up"])
def _artifact_secret(p: Planting) -> None:
    data = p.thread_data(ARTIFACT_THREAD)
    outputs = Path(data["outputs_path"])
    (outputs / "deploy.md").write_text(f"# Deploy\n\ndbPassword={ARTIFACT_SECRET}\naws {ARTIFACT_KEY}\n"
                                       "All services are up.\n")
    (outputs / "env.txt").write_text(f"PGPASSWORD={ARTIFACT_SECRET}\n")
    p.run(ARTIFACT_THREAD, {"messages": [HumanMessage("deploy please", id="a1")], "thread_data": data,
                            "artifacts": ["/mnt/user-data/outputs/deploy.md", "/mnt/user-data/outputs/env.txt"]},
          {"messages": [ToolMessage("done", tool_call_id="c1", id="a2", name="deploy")]})


# The cases whose shape is hostile (folder symlinks, named pipes, deep values) live in their own module.
import corpus.hostile_bounds  # noqa: E402, F401 - registers its cases
import corpus.hostile_cache  # noqa: E402, F401 - registers its cases
import corpus.hostile_formats  # noqa: E402, F401 - registers its case
import corpus.hostile_memory  # noqa: E402, F401 - registers its cases
import corpus.hostile_names  # noqa: E402, F401 - registers its case
import corpus.hostile_operations  # noqa: E402, F401 - registers its cases
import corpus.hostile_rows  # noqa: E402, F401 - registers its cases
import corpus.hostile_structure  # noqa: E402, F401 - registers its cases

__all__ = ["CASES", "Case", "CorpusState", "LONG_CHARS", "Planting", "TERMINAL_CONTROLS", "case", "controls_in",
           "leaked", "secrets", "thread_ids", "write_corpus"]
