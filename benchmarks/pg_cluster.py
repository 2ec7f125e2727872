"""A PostgreSQL server for benchmarks: throwaway, or kept in a folder so a generated store is reused.

    with cluster() as dsn: ...                      # a temporary cluster, removed afterwards
    with cluster(Path("bench-data/pg")) as dsn: ... # created once in that folder, started and stopped each run

Uses ``initdb``/``pg_ctl`` from /usr/lib/postgresql/*/bin; as root the cluster
belongs to the ``postgres`` user (or ``nobody``), since PostgreSQL refuses to run as root.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cluster_owner() -> str | None:
    """initdb and postgres refuse to run as root. As root, the cluster belongs
    to the `postgres` user the Debian package creates (or `nobody`)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres").pw_name
    except KeyError:
        return "nobody"


@contextlib.contextmanager
def cluster(folder: Path | None = None) -> Iterator[str]:
    """A running server's superuser URL; ``folder`` keeps the cluster (and its data) between runs."""
    binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not binaries:
        sys.exit("PostgreSQL binaries not found under /usr/lib/postgresql/*/bin; pass --dsn")
    bin_dir, owner = binaries[-1], cluster_owner()
    base = Path(folder).resolve() if folder else Path(tempfile.mkdtemp(prefix="inspector-bench-pg-"))
    base.mkdir(parents=True, exist_ok=True)
    port = _free_port()

    def run(*cmd: str) -> None:
        if owner:
            cmd = ("runuser", "-u", owner, "--", *cmd)
        subprocess.run(cmd, cwd=base, check=True, capture_output=True)

    try:
        if owner:
            shutil.chown(base, user=owner)
        if not (base / "data" / "PG_VERSION").exists():
            run(f"{bin_dir}/initdb", "-D", str(base / "data"), "-U", "postgres", "--auth=trust",
                "--encoding=UTF8", "--no-locale")
        options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off"
        run(f"{bin_dir}/pg_ctl", "-D", str(base / "data"), "-l", str(base / "log"), "-o", options, "-w", "start")
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            run(f"{bin_dir}/pg_ctl", "-D", str(base / "data"), "-m", "fast", "-w", "stop")
    finally:
        if folder is None:
            shutil.rmtree(base, ignore_errors=True)


@contextlib.contextmanager
def postgres(dsn: str | None, folder: str | None) -> Iterator[str | None]:
    """The benchmarks' ``--dsn URL`` / ``--pg FOLDER``: that server, a cluster kept in that folder, or None."""
    if dsn:
        yield dsn
    elif folder:
        with cluster(Path(folder)) as url:
            yield url
    else:
        yield None
