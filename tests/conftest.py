"""Session fixtures backed by real servers: the demo database, a throwaway
PostgreSQL cluster, the Streamlit app and Debian's Chromium."""

from __future__ import annotations

import contextlib
import dataclasses
import glob
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from browser_helpers import shot

pytest_plugins = ["demo_store"]  # the demo tests' fixtures (test_demo*.py)

REPO_ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
READONLY_ROLE = "inspector_ro"
TEST_DATABASE = "inspector_test"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- markers -------------------------------------------------------------------

BROWSER_FIXTURE = "browser"  # the session fixture that launches Chromium; ``page`` and others build on it


def uses_browser(item: pytest.Item) -> bool:
    """Whether ``item`` starts Chromium: the browser fixture is in its closure (a parameter merely named
    ``page`` is not the fixture: pytest prunes the fixture it overrides)."""
    return BROWSER_FIXTURE in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(config, items):
    """Every test that uses the browser fixture, and only those, carries the ``browser`` marker, so
    ``-m "not browser"`` deselects exactly them."""
    for item in items:
        if uses_browser(item):
            item.add_marker(pytest.mark.browser)


# --- the analysis cache ----------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def analysis_cache_dir(tmp_path_factory):
    """Every test, and every process a test starts, keeps its analysis cache in a folder of this session."""
    folder = tmp_path_factory.mktemp("analysis-cache")
    previous = os.environ.get("INSPECTOR_CACHE_DIR")
    os.environ["INSPECTOR_CACHE_DIR"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("INSPECTOR_CACHE_DIR", None)
    else:
        os.environ["INSPECTOR_CACHE_DIR"] = previous


@pytest.fixture(autouse=True)
def default_schema():
    """Every test starts and ends with no schema and no profile named by the operator (the CLI and the
    app name them process-wide): each thread is read with the profile its data shows."""
    from inspector import profiles, schema

    schema.activate(None)
    profiles.name_profile(None)
    yield
    schema.activate(None)
    profiles.name_profile(None)


# --- demo data -------------------------------------------------------------


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory) -> Path:
    """The demo agent's SQLite checkpoint store, generated once per session."""
    from inspector.demo import write_demo

    return write_demo(tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="session")
def deerflow_main_db(tmp_path_factory) -> Path:
    """A store written by a graph over DeerFlow main's ThreadState (``tests/deerflow_main_graph.py``)."""
    from deerflow_main_graph import write_store

    return write_store(tmp_path_factory.mktemp("deerflow-main") / "deerflow-main.db")


@pytest.fixture(scope="session")
def flow_db(tmp_path_factory) -> Path:
    """A store written by a graph with a subgraph, parallel ``Send`` tasks, an interrupt, an update and a fork
    (``tests/flow_graph.py``)."""
    from flow_graph import write_store

    return write_store(tmp_path_factory.mktemp("flow") / "flow.db")


@pytest.fixture(scope="session")
def langchain_agent_db(tmp_path_factory) -> Path:
    """A LangChain ``create_agent`` thread (todo list, human-in-the-loop, summarisation) left waiting at a
    human-in-the-loop question, and one answered to its end (``inspector.demo.langchain_agent``)."""
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    from inspector.demo.langchain_agent import THREAD, run_langchain_agent

    path = tmp_path_factory.mktemp("langchain-agent") / "agent.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        run_langchain_agent(saver, THREAD)
        run_langchain_agent(saver, f"{THREAD}-answered", answer_last=True)
    finally:
        conn.close()
    return path


@pytest.fixture(scope="session")
def deep_agent_db(tmp_path_factory) -> Path:
    """A deepagents thread with a ``task`` subagent, todos and a file (``tests/apps/deep_agent.py``)."""
    from apps.deep_agent import write_store

    return write_store(tmp_path_factory.mktemp("deep-agent") / "deep.db")


@pytest.fixture(scope="session")
def swarm_db(tmp_path_factory) -> Path:
    """A langgraph-swarm thread of two agents handing over to each other (``tests/apps/swarm_agents.py``)."""
    from apps.swarm_agents import write_store

    return write_store(tmp_path_factory.mktemp("swarm") / "swarm.db")


@pytest.fixture(scope="session")
def supervisor_db(tmp_path_factory) -> Path:
    """A langgraph-supervisor thread: a supervisor handing work to two agents (``tests/apps/supervisor_agents.py``)."""
    from apps.supervisor_agents import write_store

    return write_store(tmp_path_factory.mktemp("supervisor") / "supervisor.db")


@pytest.fixture(scope="session")
def demo_dir(demo_db) -> Path:
    return demo_db.parent


@pytest.fixture(scope="session")
def bench_db(tmp_path_factory) -> Path:
    """A small store of the benchmark store's shape (benchmarks/store_generator.py): one long thread with
    images, written first, then 60 one-checkpoint threads, so the long thread is not on the first page."""
    from benchmarks.store_generator import Shape, generate_sqlite

    shape = Shape(checkpoints=90, final_bytes=40_000, small_threads=60, images_every=3)
    return generate_sqlite(tmp_path_factory.mktemp("bench-shaped") / "store.db", shape)


@pytest.fixture
def app_on_store(monkeypatch):
    """Factory: ``app_on_store(url)`` makes AppTest runs of app.py open ``url`` (settings re-read before and after)."""
    from inspector.ui import connection

    def point(url: str) -> None:
        monkeypatch.setenv("INSPECTOR_DB", url)
        connection.settings.clear()

    yield point
    connection.settings.clear()


@pytest.fixture
def app_on_demo(demo_db, app_on_store):
    """AppTest runs of app.py open the demo database."""
    app_on_store(f"sqlite:///{demo_db}")


# --- PostgreSQL --------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PgServer:
    admin_dsn: str  # superuser (or the role given in INSPECTOR_TEST_PG_DSN)
    readonly_dsn: str  # inspector_ro: CONNECT, USAGE on public, SELECT on tables


def pg_url(user: str, password: str | None, host: str, port: int | str, dbname: str) -> str:
    auth = quote(user, safe="") + (":" + quote(password, safe="") if password else "")
    return f"postgresql://{auth}@{host}:{port}/{quote(dbname, safe='')}"


def grant_readonly_role(admin_dsn: str) -> None:
    """Create (idempotently) the read-only role the inspector is tested with."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        db = sql.Identifier(conn.info.dbname)
        role = sql.Identifier(READONLY_ROLE)
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [READONLY_ROLE]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(role, sql.Literal(READONLY_ROLE)))
        for stmt in (
            "GRANT CONNECT ON DATABASE {db} TO {role}",
            "GRANT USAGE ON SCHEMA public TO {role}",
            "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role}",
            "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {role}",
        ):
            conn.execute(sql.SQL(stmt).format(db=db, role=role))


def fresh_database(admin_dsn: str, name: str) -> str:
    """Drop and create database ``name``; its admin DSN."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name}")
        admin.execute(f"CREATE DATABASE {name}")
    return make_conninfo(admin_dsn, dbname=name)


def written_database(postgres_dsn, name: str, write) -> tuple[str, str]:
    """A fresh database ``name`` on the session's server, filled by ``write(admin_url)`` and readable by the
    read-only role: its (admin, read-only) URLs."""
    import urllib.parse

    def url(base: str) -> str:
        return urllib.parse.urlunsplit(urllib.parse.urlsplit(base)._replace(path=f"/{name}"))

    fresh_database(postgres_dsn.admin_dsn, name)
    write(url(postgres_dsn.admin_dsn))
    grant_readonly_role(url(postgres_dsn.admin_dsn))
    return url(postgres_dsn.admin_dsn), url(postgres_dsn.readonly_dsn)


def count_state_reads(store, monkeypatch):
    """A Counter of ``store.state`` calls per checkpoint id, filled as the test runs."""
    from collections import Counter

    calls = Counter()
    real_state = store.state

    def spy(thread_id, checkpoint_id=None, ns=""):
        calls[checkpoint_id] += 1
        return real_state(thread_id, checkpoint_id, ns)

    monkeypatch.setattr(store, "state", spy)
    return calls


def pg_binary(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        pytest.fail(f"{name} not found under /usr/lib/postgresql/*/bin (run ./scripts/test)")
    return found[-1]


def cluster_owner() -> str | None:
    """initdb and postgres refuse to run as root. As root, the cluster belongs
    to the `postgres` user the Debian package creates (or `nobody`)."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("postgres").pw_name
    except KeyError:
        return "nobody"


class ThrowawayCluster:
    """A PostgreSQL cluster in a fresh folder under /tmp, on a free loopback port: start, restart, stop."""

    def __init__(self) -> None:
        self.owner = cluster_owner()
        # A fresh directory directly under /tmp, so the cluster owner can reach it.
        self.base = Path(tempfile.mkdtemp(prefix="inspector-pg-"))
        self.data, self.log, self.port = self.base / "data", self.base / "server.log", free_port()
        if self.owner:
            shutil.chown(self.base, user=self.owner)
        self.run(pg_binary("initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                 "--encoding=UTF8", "--no-locale")

    def run(self, *cmd: str) -> None:
        if self.owner:
            cmd = ("runuser", "-u", self.owner, "--", *cmd)
        proc = subprocess.run(cmd, cwd=self.base, capture_output=True, text=True)
        if proc.returncode:
            server_log = self.log.read_text() if self.log.exists() else ""
            pytest.fail(f"{' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}{server_log}")

    def pg_ctl(self, action: str, *extra: str) -> None:
        options = f"-p {self.port} -k {self.base} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.run(pg_binary("pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", *extra, action)

    def start(self) -> None:
        self.pg_ctl("start")

    def stop(self) -> None:
        self.pg_ctl("stop", "-m", "fast")

    def restart(self) -> None:
        self.pg_ctl("restart", "-m", "fast")

    def url(self, dbname: str = "postgres") -> str:
        return pg_url("postgres", None, "127.0.0.1", self.port, dbname)

    def remove(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


@contextlib.contextmanager
def throwaway_cluster(database: str = TEST_DATABASE):
    """A running cluster holding ``database`` and the read-only role; stopped and removed afterwards."""
    import psycopg

    cluster = ThrowawayCluster()
    try:
        cluster.start()
        try:
            with psycopg.connect(cluster.url(), autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {database}")
            grant_readonly_role(cluster.url(database))
            yield cluster
        finally:
            cluster.stop()
    finally:
        cluster.remove()


@pytest.fixture(scope="session")
def postgres_dsn():
    """A PostgreSQL database with a superuser and a read-only role.

    INSPECTOR_TEST_PG_DSN, when set, names an existing database and a role that
    may create roles and grant on it; otherwise a throwaway cluster is started
    on a free loopback port and removed at the end of the session."""
    import psycopg

    given = os.environ.get("INSPECTOR_TEST_PG_DSN")
    if given:
        grant_readonly_role(given)
        info = psycopg.conninfo.conninfo_to_dict(given)
        yield PgServer(given, pg_url(READONLY_ROLE, READONLY_ROLE, info.get("host", "127.0.0.1"),
                                     info.get("port", 5432), info["dbname"]))
        return
    with throwaway_cluster() as cluster:
        yield PgServer(cluster.url(TEST_DATABASE),
                       pg_url(READONLY_ROLE, READONLY_ROLE, "127.0.0.1", cluster.port, TEST_DATABASE))


# --- Streamlit ---------------------------------------------------------------


@pytest.fixture(scope="session")
def streamlit_app(tmp_path_factory):
    """Factory: start_app(db_url=None, env=None, script="app.py") -> base URL.

    Starts `streamlit run` on a free loopback port and waits for its health
    endpoint. Calls with the same arguments share one server; all servers stop
    at the end of the session."""
    logs = tmp_path_factory.mktemp("streamlit")
    servers: dict[tuple, tuple[subprocess.Popen, str]] = {}

    def start_app(db_url: str | None = None, env: dict[str, str] | None = None,
                  script: str | os.PathLike = "app.py") -> str:
        key = (str(script), db_url, tuple(sorted((env or {}).items())))
        if key in servers and servers[key][0].poll() is None:
            return servers[key][1]
        port = free_port()
        cmd = [sys.executable, "-m", "streamlit", "run", str(script),
               "--server.headless", "true", "--server.port", str(port),
               "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none", "--server.runOnSave", "false",
               # tracebacks in the exception box, whatever config.toml says
               "--client.showErrorDetails", "full"]
        if db_url is not None:
            cmd += ["--", "--db", db_url]
        log_path = logs / f"server-{port}.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT,
                                    env={**os.environ, **(env or {})})
        url = f"http://127.0.0.1:{port}"
        servers[key] = (proc, url)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited with {proc.returncode}:\n{log_path.read_text()}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                    if resp.read().decode().strip() == "ok":
                        return url
            except OSError:
                pass
            time.sleep(0.25)
        pytest.fail(f"streamlit not healthy after 60s:\n{log_path.read_text()}")

    yield start_app
    for proc, _ in servers.values():
        proc.terminate()
    for proc, _ in servers.values():
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# --- Chromium ----------------------------------------------------------------


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request):
    """A fresh page; any Streamlit exception box on it fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        yield page
        exceptions = page.locator("[data-testid='stException']")
        if exceptions.count():
            shot(page, f"{request.node.name}-exception")
            pytest.fail("Streamlit showed an exception:\n" + "\n---\n".join(exceptions.all_inner_texts()))
    finally:
        context.close()


@pytest.fixture(scope="session")
def pg_demo(postgres_dsn, tmp_path_factory):
    """The demo threads written into PostgreSQL by LangGraph's PostgresSaver (as the admin role),
    readable by the read-only role. Yields (PgServer, folder holding the thread folders)."""
    from inspector.demo import write_demo_postgres

    out = write_demo_postgres(postgres_dsn.admin_dsn, tmp_path_factory.mktemp("pg-demo"))
    grant_readonly_role(postgres_dsn.admin_dsn)  # tables created after the role: grant again
    return postgres_dsn, out
