"""AppTest: the Memory page over LangGraph's ``SqliteStore`` written beside ``SqliteSaver``'s checkpoints: the
namespace tree with counts and bytes, an item from its link (masked, its fields drawn like state fields, its expiry,
its vectors, a link to the thread that wrote it), growth on demand; and the stores that hold no memory."""

from __future__ import annotations

import json

import pytest
from memory_stores import SECRET, WRITER_THREAD, write_sqlite_memory
from test_ui_redaction import rendered
from ui_app import all_text, open_page


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    return write_sqlite_memory(tmp_path_factory.mktemp("ui-memory") / "agent.db")


@pytest.fixture
def on_memory(written, app_on_store):
    app_on_store(f"sqlite:///{written.path}")
    return written


def metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_the_tree_counts_items_and_bytes(on_memory):
    at = open_page("memory")
    assert not at.exception, at.exception
    assert {k: metrics(at)[k] for k in ("Items", "Namespaces", "With a TTL", "Expired, not swept", "Vector rows")} == {
        "Items": "6", "Namespaces": "4", "With a TTL": "4", "Expired, not swept": "1", "Vector rows": "4"}
    (tree,) = at.dataframe
    assert [label.strip() for label in tree.value["namespace"]] == [
        "└ users", "└ alice", "└ memories", "└ profile", "└ bob", "└ memories", "└ org"]
    assert list(tree.value["items"]) == [5, 4, 3, 1, 1, 1, 1]
    assert "tables store, store_vectors; store migration" in all_text(at)


def test_an_item_from_its_link_is_masked_drawn_field_by_field_and_says_it_expired(on_memory):
    at = open_page("memory", namespace="users.alice.memories", key="key")
    assert not at.exception, at.exception
    page = rendered(at)
    assert SECRET not in page and "[redacted api-key" in page
    text = all_text(at)
    assert "**`text`** · text ·" in "\n".join(m.value for m in at.markdown)
    assert "not swept yet" in " ".join(w.value for w in at.warning)
    assert "Vector rows (the store's index): text (8 dims, 32 B)" in text
    tree, items = at.dataframe
    assert list(items.value["key"]) == ["city", "key", "tea"]
    assert [label.strip() for label in tree.value["namespace"] if "●" in label] == ["● memories"]  # the one on screen


def test_an_item_links_the_thread_it_names_and_says_which_are_not_stored(on_memory):
    at = open_page("memory", namespace="users.alice.memories", key="tea")
    assert not at.exception, at.exception
    links = {link.proto.label: link.proto.query_string for link in at.get("page_link")}
    assert links[f"thread {WRITER_THREAD}"] == f"thread={WRITER_THREAD}"
    at = open_page("memory", namespace="users.alice.memories", key="city")
    assert "Not in this checkpoint store: t-not-stored" in all_text(at)
    assert not [link for link in at.get("page_link") if link.proto.label.startswith("thread ")]


def test_a_namespace_or_item_the_store_does_not_hold_is_said(on_memory):
    at = open_page("memory", namespace="users.nobody")
    assert not at.exception, at.exception
    assert at.warning[0].value.startswith("No namespace 'users.nobody' in this memory store")
    assert metrics(at)["Items"] == "6"
    at = open_page("memory", namespace="org", key="gone")
    assert "No item 'gone' in namespace 'org'" in at.warning[0].value


def test_growth_is_read_when_asked(on_memory):
    at = open_page("memory")
    assert len(at.dataframe) == 1
    at.toggle(key="memory_growth").set_value(True)
    at.run()
    assert not at.exception, at.exception
    growth = at.dataframe[-1].value
    assert list(growth.columns)[:3] == ["day", "created", "bytes"] and growth["items so far"].iloc[-1] == 6


def test_an_item_view_is_audited(on_memory, monkeypatch, tmp_path):
    log = tmp_path / "audit.log"
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(log))
    from inspector.ui import connection

    connection.settings.clear()
    at = open_page("memory", namespace="org", key="policy")
    assert not at.exception, at.exception
    (line,) = [json.loads(x) for x in log.read_text().splitlines() if '"memory_view"' in x]
    assert (line["namespace"], line["key"]) == ("org", "policy")


def test_a_store_without_memory_says_there_is_none(app_on_demo):
    at = open_page("memory")
    assert not at.exception, at.exception
    assert "holds no LangGraph memory store" in at.info[0].value and not at.dataframe


def test_a_memory_only_file_opens_on_the_memory_page_and_the_other_pages_point_there(tmp_path, app_on_store):
    path = write_sqlite_memory(tmp_path / "memory.db", checkpoints=False).path
    app_on_store(f"sqlite:///{path}")
    at = open_page("memory")
    assert not at.exception, at.exception
    assert metrics(at)["Items"] == "6"
    threads = open_page("threads")
    assert "it holds a LangGraph memory store (table store): the Memory page" in " ".join(e.value for e in threads.error)
