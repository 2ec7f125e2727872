"""The statements that would apply a retention plan, for an operator to review and run.

One transaction, in the store's dialect (SQLite or PostgreSQL), naming every
thread and namespace it touches: writes first, then checkpoints, then the
parent of each checkpoint that becomes the first of its line is set to NULL (as
LangGraph's own ``prune`` does), then (PostgreSQL) the blob rows no remaining
checkpoint references, each deletion re-checking that at run time. Ranges
(``checkpoint_id <= ...``) are used only where every id of the namespace is an
ASCII uuid6, so a checkpoint written after the preview is never caught by one.

Ids are compared as the plan compares them, by their bytes, whatever the
database's collation: a range orders ids with ``COLLATE "C"`` (PostgreSQL; an
ICU or libc locale such as ``en-US`` orders ``1f0a`` before ``1F0B`` where the
bytes order it after) or ``COLLATE BINARY`` (SQLite, where a table may declare
its id columns ``NOCASE``); every SQLite comparison of an id carries
``COLLATE BINARY``, so ``'a'`` never stands for ``'A'``. PostgreSQL equality is
exact under every deterministic collation, and a database's default collation
always is one, so equalities stay plain there and its primary key serves them;
only where an id column has a nondeterministic collation (``StorageFacts.exact_ids``
false) does every comparison carry ``COLLATE "C"``. The inspector prints these
statements; it never runs them.

Comment lines spell the data's ids as every other output does (``not_utf8.spelled``:
control, bidi and other invisible characters as their escapes); the string
literals keep every id exact (``literal``).

A name the caller masks (``statements(plan, names=...)``: a namespace or a channel named by a key-shaped node)
is written as its bytes, so the statement names it exactly without spelling it out; comments are masked so too.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from typing import Callable, Iterable, Sequence

from ..formatting import human_bytes
from ..store.not_utf8 import is_blob, is_not_utf8, quoted, spelled, stored_bytes
from .plan import NamespaceAction, Plan, ThreadPlan

CHUNK = 500
_AS_BYTES: ContextVar[frozenset[str]] = ContextVar("names written as their bytes", default=frozenset())

TABLES = {
    "sqlite": {"checkpoints": "checkpoints", "writes": "writes"},
    "postgres": {"checkpoints": "checkpoints", "writes": "checkpoint_writes", "blobs": "checkpoint_blobs"},
}


# control characters a terminal acts on (C0 but tab, DEL, C1) and the bidi controls; a line feed too, so that an id
# holding one keeps its statement on one line (a line of its own would read as a statement of its own)
_TERMINAL_UNSAFE = re.compile("[\x01-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def literal(value: str, dialect: str = "sqlite") -> str:
    """A SQL string literal of ``dialect``. A NUL character has no quoted form: a SQLite id holding one (Python's
    driver stores it) is written as its bytes, ``CAST(X'..' AS TEXT)``; on PostgreSQL it is refused.

    Quotes are doubled. On PostgreSQL a value holding a backslash is written as an escape string
    (``E'a\\b'``), whose meaning does not depend on the server's ``standard_conforming_strings``: with
    that setting off, a backslash in a plain literal would escape the quote after it. A control character
    (ESC, BEL, CR, C1, a bidi control) is never written as itself, so printed statements cannot drive the
    terminal: ``char(27)`` joined in on SQLite, ``\\u001b`` in an escape string on PostgreSQL.

    A SQLite id that is not UTF-8 (``store.not_utf8``) is written as its stored bytes, ``CAST(X'..' AS TEXT)``:
    it equals that text and nothing else (never the valid id its escaped spelling would read as). An id stored as
    bytes (a BLOB, ``not_utf8.is_blob``) is written as those bytes, ``X'..'``: it equals that BLOB and no text.
    """
    if is_blob(value):
        if dialect != "sqlite":
            raise ValueError(f"an id stored as bytes cannot be written as {dialect} text: {quoted(value)}")
        return f"X'{stored_bytes(value).hex().upper()}'"
    if value in _AS_BYTES.get():  # a masked name: exact, yet not spelled out
        hexed = stored_bytes(value).hex().upper()
        return f"CAST(X'{hexed}' AS TEXT)" if dialect == "sqlite" else f"convert_from(decode('{hexed}', 'hex'), 'UTF8')"
    if is_not_utf8(value):
        if dialect != "sqlite":
            raise ValueError(f"an id that is not UTF-8 cannot be written as {dialect} text: {quoted(value)}")
        return f"CAST(X'{stored_bytes(value).hex().upper()}' AS TEXT)"
    if "\x00" in value:  # no quoted form: SQLite takes its bytes; PostgreSQL text cannot hold a NUL at all
        if dialect != "sqlite":
            raise ValueError(f"an id contains a NUL character and cannot be written as SQL: {quoted(value)}")
        return f"CAST(X'{value.encode().hex().upper()}' AS TEXT)"
    unsafe = _TERMINAL_UNSAFE.search(value) is not None  # written as code points: the statements are read on a terminal
    if dialect == "postgres" and ("\\" in value or unsafe):
        escaped = value.replace("\\", "\\\\").replace("'", "''")
        return "E'" + _TERMINAL_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", escaped) + "'"
    if unsafe:  # SQLite: the safe pieces joined with char(n) for each control character
        pieces = []
        for piece in _TERMINAL_UNSAFE.split(value.replace("'", "''")):
            pieces.append(f"'{piece}'")
        chars = [f"char({ord(c)})" for c in _TERMINAL_UNSAFE.findall(value)]
        joined = [pieces[0]]
        for char, piece in zip(chars, pieces[1:]):
            joined += [char, piece]
        return "(" + " || ".join(joined) + ")"
    return "'" + value.replace("'", "''") + "'"


def comment(text: str) -> str:
    """A one-line SQL comment. Ids and names come from the data, spelled as every other output spells them
    (``not_utf8.spelled``): a line break is ``\\n``, so it cannot end the comment and turn the rest into a
    statement; a terminal control (ESC, C1 such as CSI, OSC and ST) or a bidi control (U+202E) is its escape,
    so it cannot drive the terminal or reorder the line; an id that is not UTF-8 shows its bytes, marked."""
    return "-- " + spelled(text)


class _Columns:
    """How the statements of one dialect compare an id column with a value: as the plan compares ids (by their
    bytes), whatever collation the column or the database has (see the module's docstring)."""

    def __init__(self, dialect: str, exact_ids: bool = True) -> None:
        self.dialect = dialect
        self.exact = dialect == "postgres" and exact_ids  # plain equality is already byte equality

    def __call__(self, column: str, ordered: bool = False) -> str:
        """``column`` as the left operand of a comparison (``ordered``: of ``<=``, which orders)."""
        if self.dialect == "sqlite":
            return f"{column} COLLATE BINARY"
        return column if self.exact and not ordered else f'{column} COLLATE "C"'


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _in_list(values: Sequence[str], dialect: str) -> str:
    return ", ".join(literal(v, dialect) for v in values)


def _chunks(values: Sequence, size: int = CHUNK) -> Iterable[Sequence]:
    for start in range(0, len(values), size):
        yield values[start:start + size]


def _where(col: _Columns, thread_id: str, ns: str | None = None) -> str:
    dialect = col.dialect
    where = f"{col('thread_id')} = {literal(thread_id, dialect)}"
    return where if ns is None else f"{where} AND {col('checkpoint_ns')} = {literal(ns, dialect)}"


def _conditions(col: _Columns, thread_id: str, action: NamespaceAction) -> list[str]:
    """One WHERE clause per statement that together select the checkpoints (and their writes) that go."""
    dialect = col.dialect
    base = _where(col, thread_id, action.checkpoint_ns)
    if action.whole:
        return [base]
    if action.upto is not None:
        where = f"{base} AND {col('checkpoint_id', ordered=True)} <= {literal(action.upto, dialect)}"
        if not action.except_ids:
            return [where]
        return [f"{where} AND {col('checkpoint_id')} NOT IN ({_in_list(action.except_ids, dialect)})"]
    return [f"{base} AND {col('checkpoint_id')} IN ({_in_list(chunk, dialect)})" for chunk in _chunks(action.ids)]


def _thread(plan: Plan, thread: ThreadPlan) -> list[str]:
    tables = TABLES[plan.dialect]
    col = _Columns(plan.dialect, plan.facts.exact_ids)
    note = f"{thread.checkpoints} checkpoint(s), {thread.writes} write(s)"
    if plan.dialect == "postgres":
        note += f", {thread.blobs} blob row(s)"
    out = [comment(f"{spelled(thread.thread_id)}: {note}, {human_bytes(thread.bytes)}"
                   + (" (the whole thread)" if thread.whole_thread else ""))]
    out += [comment(f"  breaks: {b.message}") for b in thread.breaks]
    dialect = plan.dialect
    if thread.whole_thread:
        out.append(f"DELETE FROM {tables['writes']} WHERE {_where(col, thread.thread_id)};")
        out.append(f"DELETE FROM {tables['checkpoints']} WHERE {_where(col, thread.thread_id)};")
        if "blobs" in tables:
            out.append(f"DELETE FROM {tables['blobs']} WHERE {_where(col, thread.thread_id)};")
        return out
    for action in thread.actions:
        conditions = _conditions(col, thread.thread_id, action)
        out += [f"DELETE FROM {tables['writes']} WHERE {c};" for c in conditions]
        out += [f"DELETE FROM {tables['checkpoints']} WHERE {c};" for c in conditions]
        base = _where(col, thread.thread_id, action.checkpoint_ns)
        out += [f"UPDATE {tables['checkpoints']} SET parent_checkpoint_id = NULL WHERE {base} "
                f"AND {col('checkpoint_id')} IN ({_in_list(chunk, dialect)});" for chunk in _chunks(action.new_roots)]
        if "blobs" in tables:
            out += _blob_statements(tables, col, thread.thread_id, action)
    return out


def _blob_statements(tables: dict[str, str], col: _Columns, thread_id: str, action: NamespaceAction) -> list[str]:
    """PostgreSQL's blob rows that no remaining checkpoint references."""
    if action.whole:
        return [f"DELETE FROM {tables['blobs']} WHERE {_where(col, thread_id, action.checkpoint_ns)};"]
    out = []
    for chunk in _chunks(action.blobs):
        values = ", ".join(f"({literal(channel, 'postgres')}, {literal(version, 'postgres')})" for channel, version in chunk)
        out.append(
            f"DELETE FROM {tables['blobs']} b WHERE {col('b.thread_id')} = {literal(thread_id, 'postgres')} "
            f"AND {col('b.checkpoint_ns')} = {literal(action.checkpoint_ns, 'postgres')} "
            f"AND ({col('b.channel')}, {col('b.version')}) IN (VALUES {values}) "
            f"AND NOT EXISTS (SELECT 1 FROM {tables['checkpoints']} c WHERE {col('c.thread_id')} = b.thread_id "
            f"AND {col('c.checkpoint_ns')} = b.checkpoint_ns "
            f"AND c.checkpoint -> 'channel_versions' ->> b.channel = {col('b.version')});")
    return out


def statements(plan: Plan, names: Callable[[str], str] | None = None) -> str:
    """The whole plan as one transaction, with comments saying what each part does. ``names`` masks a name from
    the data (the redaction rules' ``Redactor.name``): a namespace or channel it masks is written as its bytes,
    and the comments are masked with it."""
    if names is None:
        return _statements(plan)
    named = {a.checkpoint_ns for t in plan.threads for a in t.actions} | {
        channel for t in plan.threads for a in t.actions for channel, _ in a.blobs}
    token = _AS_BYTES.set(frozenset(n for n in named if isinstance(n, str) and names(n) != n))
    try:
        text = _statements(plan)
    finally:
        _AS_BYTES.reset(token)
    return "\n".join(names(line) if line.startswith("--") else line for line in text.split("\n"))


def _statements(plan: Plan) -> str:
    header = [
        comment(f"Retention plan: {plan.policy.describe()}"),
        f"-- Generated {plan.generated_at.isoformat(timespec='seconds')} by state-inspector, which never runs it.",
        f"-- Deletes {plan.checkpoints} checkpoint(s) from {len(plan.threads)} thread(s); "
        f"predicted to reclaim {human_bytes(plan.reclaim_bytes)}.",
    ]
    if plan.breaks:
        header.append(f"-- WARNING: it breaks {len(plan.breaks)} thing(s), named under each thread below.")
    if not plan.threads:
        return "\n".join(header + ["-- Nothing to delete."]) + "\n"
    body = ["BEGIN IMMEDIATE;" if plan.dialect == "sqlite" else "BEGIN;"]
    if plan.dialect == "postgres" and plan.facts.schema:
        body.append(f"SET LOCAL search_path TO {_identifier(plan.facts.schema)};")
    for thread in plan.threads:
        body += _thread(plan, thread)
    body.append("COMMIT;")
    if plan.dialect == "sqlite":
        body.append("-- The file shrinks only once the free pages are returned (this locks the database while it runs):")
        body.append("-- VACUUM;")
    else:
        body.append("-- PostgreSQL reuses the space; VACUUM (FULL) returns it to the operating system.")
    return "\n".join(header + body) + "\n"
