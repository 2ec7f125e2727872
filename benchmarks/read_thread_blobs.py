"""The limit a thread analysis is measured against: read every blob of one thread and msgpack-decode it.

    python benchmarks/read_thread_blobs.py STORE_URL THREAD [--walk]

Run as a whole process by the benchmarks (``bench_cli.py``), so its start-up counts
like the CLI's. SQLite: each checkpoint blob; PostgreSQL: every blob row the
thread's checkpoints reference (each row once) and its writes. ``--walk`` walks the
msgpack instead of building objects (``Unpacker.skip``), the floor for size accounting.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import urllib.parse

import msgpack


def _decode(blob: bytes, walk: bool) -> int:
    if walk:
        unpacker = msgpack.Unpacker(max_buffer_size=max(len(blob), 1))
        unpacker.feed(blob)
        unpacker.skip()
        return 1
    msgpack.unpackb(blob, raw=False, strict_map_key=False, ext_hook=lambda code, data: data)
    return 1


def sqlite_blobs(url: str, thread_id: str):
    path = urllib.parse.urlsplit(url).path[1:] if url.startswith("sqlite:") else url
    conn = sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro", uri=True)
    yield from (row[0] for row in conn.execute("SELECT checkpoint FROM checkpoints WHERE thread_id = ?", [thread_id]))
    yield from (row[0] for row in conn.execute("SELECT value FROM writes WHERE thread_id = ?", [thread_id]))


def postgres_blobs(url: str, thread_id: str):
    import psycopg

    with psycopg.connect(url) as conn:
        with conn.cursor(name="blobs") as cursor:
            cursor.itersize = 64
            cursor.execute("SELECT blob FROM checkpoint_blobs WHERE thread_id = %s AND blob IS NOT NULL", [thread_id])
            yield from (bytes(row[0]) for row in cursor)
        with conn.cursor(name="writes") as cursor:
            cursor.execute("SELECT blob FROM checkpoint_writes WHERE thread_id = %s", [thread_id])
            yield from (bytes(row[0]) for row in cursor)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("thread")
    parser.add_argument("--walk", action="store_true")
    args = parser.parse_args()
    blobs = postgres_blobs if args.url.startswith(("postgres://", "postgresql://")) else sqlite_blobs
    count = total = 0
    for blob in blobs(args.url, args.thread):
        if not blob:  # a write of None stores no bytes
            continue
        count += _decode(blob, args.walk)
        total += len(blob)
    print(f"{count} blobs, {total} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
