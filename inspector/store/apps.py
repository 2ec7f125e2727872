"""The apps that keep LangGraph's tables in a database of their own, as the store knows them.

DeerFlow keeps LangGraph's checkpoint tables in one SQLite file (WAL mode) beside
its own tables, ``.deer-flow/data/deerflow.db``; ``SqliteStore`` reads only the
checkpoint tables. Its home is given as ``--deerflow-home DIR``, ``deerflow:///DIR``
or the ``DEER_FLOW_HOME`` environment variable DeerFlow itself uses. ``DIR`` may be
the ``.deer-flow`` folder itself, the folder holding it, or DeerFlow's checkout
(``backend/.deer-flow``). ``home_db(url)`` is the database such a URL names, for the
checkpoint store and the memory store alike.

``APP_THREAD_TABLES``: the thread tables apps keep beside the checkpoint tables (DeerFlow's
``threads_meta``, LangGraph Agent Server's ``thread``), which the orphan rows compare.
"""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from .model import StoreError

HOME_ENV = "DEER_FLOW_HOME"
DB_RELATIVE = Path("data") / "deerflow.db"
HOME_URL = "deerflow:///path"  # how a store URL names an app's home, as the messages say it
# (app, table): thread tables apps keep beside the checkpoint tables, each with a thread_id column
APP_THREAD_TABLES = (("DeerFlow", "threads_meta"), ("LangGraph Agent Server", "thread"))


@dataclass(frozen=True)
class DeerFlowHome:
    home: Path  # the .deer-flow folder
    db: Path  # .deer-flow/data/deerflow.db

    @property
    def threads_base(self) -> Path:
        """The folder holding ``threads/{thread_id}/user-data/`` (DeerFlow's artifacts)."""
        return self.home


def candidates(directory: Path) -> list[Path]:
    return [directory, directory / ".deer-flow", directory / "backend" / ".deer-flow"]


def find_home(directory: str | Path | None = None, environ: dict[str, str] | None = None) -> DeerFlowHome:
    """Locate DeerFlow's database under ``directory`` (default: ``$DEER_FLOW_HOME``)."""
    environ = os.environ if environ is None else environ
    if directory in (None, ""):
        directory = environ.get(HOME_ENV)
        if not directory:
            raise StoreError(f"no DeerFlow home given: pass --deerflow-home DIR or set {HOME_ENV}")
    base = Path(directory).expanduser().resolve()
    for home in candidates(base):
        if (home / DB_RELATIVE).is_file():
            return DeerFlowHome(home, home / DB_RELATIVE)
    tried = ", ".join(str(home / DB_RELATIVE) for home in candidates(base))
    raise StoreError(f"no DeerFlow database under {base} (looked for {tried})")


def home_from_url(url: str) -> str | None:
    """The folder a ``deerflow:///DIR`` URL names; None for bare ``deerflow:`` ($DEER_FLOW_HOME)."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path) if "://" in url else ""
    return path or None


def deerflow_url(directory: str | Path) -> str:
    return f"deerflow://{urllib.parse.quote(str(Path(directory).expanduser().resolve()))}"


def deerflow_db(url: str) -> Path:
    return find_home(home_from_url(url)).db


def home_db(url: str) -> Path | None:
    """The SQLite database a URL naming an app's home holds (``deerflow:///DIR``; bare ``deerflow:`` reads
    ``$DEER_FLOW_HOME``), or None for a URL of another kind. Raises ``StoreError`` when the home holds none."""
    scheme = urllib.parse.urlsplit(url).scheme.lower() if "://" in url else ""
    if scheme == "deerflow" or url in ("deerflow:", "deerflow"):
        return deerflow_db(url)
    return None
