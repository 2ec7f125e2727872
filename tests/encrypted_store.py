"""Threads written through LangGraph's ``EncryptedSerializer`` (AES, pycryptodome, as LangGraph ships it) by its
``SqliteSaver`` and ``PostgresSaver``: a small conversation whose messages hold a fake password and a word that
must never appear decrypted anywhere the inspector writes (caches, bundles) unless the key was given."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from delta_modes_store import build_graph
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

KEY = "0123456789abcdef0123456789abcdef"  # 32 characters: AES-256, as LANGGRAPH_AES_KEY is read
WRONG_KEY = "fedcba9876543210fedcba9876543210"
THREAD = "encrypted-thread"
PLAIN_WORD = "zebracornplaintext"  # only in the encrypted messages
PASSWORD = "hunter2-enc-secret"  # masked wherever a decrypted value is shown
TURNS = 3


def serializer(key: str = KEY) -> EncryptedSerializer:
    return EncryptedSerializer.from_pycryptodome_aes(key=key.encode())


def write_turns(saver, thread_id: str = THREAD, turns: int = TURNS) -> None:
    graph = build_graph(saver, None)
    for turn in range(turns):
        graph.invoke({"messages": [HumanMessage(f"{PLAIN_WORD} {turn}: my password={PASSWORD}", id=f"h{turn}")]},
                     {"configurable": {"thread_id": thread_id}})


def write_sqlite(path: Path, turns: int = TURNS, encrypted: bool = True, thread_id: str = THREAD) -> Path:
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn, serde=serializer()) if encrypted else SqliteSaver(conn)
        write_turns(saver, thread_id, turns)
    finally:
        conn.close()
    return path


def write_postgres(dsn: str, turns: int = TURNS) -> None:
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(dsn) as saver:
        saver.serde = serializer()
        saver.setup()
        write_turns(saver, THREAD, turns)
