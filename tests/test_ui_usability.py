"""Page details a support person meets: tool output shown as the text it is (a code block: line breaks kept,
no Markdown heading) while the user's and the model's words stay Markdown; the Diff page's reversed range and
unknown thread."""

from ui_app import html_shown, open_page

from inspector.store import open_store


def test_tool_results_are_text_not_markdown(demo_db, app_on_demo):
    with open_store(f"sqlite:///{demo_db}") as store:
        rows = [r for r in store.timeline("demo-research") if not r.checkpoint_ns]
        newest = max(rows, key=lambda r: r.checkpoint_id)
        messages = store.state("demo-research", newest.checkpoint_id).values["messages"]
    tool_texts = [m["content"] for m in messages if m.get("type") == "tool" and isinstance(m.get("content"), str)
                  and m["content"].strip()]
    assert tool_texts
    at = open_page("thread", thread="demo-research", checkpoint=newest.checkpoint_id)
    assert not at.exception, at.exception
    # plain text, set in the code font: a Streamlit text element, or a bubble drawn as HTML's plain block
    texts = [t.value for t in at.text] + html_shown(at, "si-plain")
    assert any(text in texts for text in tool_texts)
    shown = [m.value for m in at.markdown] + html_shown(at, "si-md")
    assert not any(text.strip() and text.strip() in shown for text in tool_texts)  # never rendered as Markdown


def test_diff_page_swaps_a_reversed_range_and_names_an_unknown_thread(demo_db, app_on_demo):
    with open_store(f"sqlite:///{demo_db}") as store:
        rows = [r for r in store.timeline("demo-research") if not r.checkpoint_ns]  # newest first
    newer, older = rows[2].checkpoint_id, rows[10].checkpoint_id
    at = open_page("diff", thread="demo-research", **{"from": newer, "to": older})
    assert not at.exception, at.exception
    assert any("is newer than To" in i.value and "swapped" in i.value for i in at.info)
    picked = {s.label: s.value for s in at.selectbox}
    assert picked["From (the earlier checkpoint)"] == older and picked["To (the later checkpoint)"] == newer
    assert at.query_params["from"] in (older, [older]) and at.query_params["to"] in (newer, [newer])
    at = open_page("diff", thread="no-such-thread")
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == ["There is no thread 'no-such-thread' in this store. Check the id, or find "
                                           "the thread in the thread list."]


def test_a_link_to_a_checkpoint_names_its_step_and_panel_as_the_page_would():
    from inspector.ui import panels, routes

    assert panels.THREAD_PANELS[0][0] == routes.DEFAULT_PANEL
    cid = "1f1ed783-5aa5-6850-800f-ac6b3105364b"  # a uuid6 of step 15
    assert routes.checkpoint_params("t", cid, panel="Size") == {"thread": "t", "checkpoint": cid, "step": "15",
                                                                "panel": "size"}
    assert routes.checkpoint_params("t", cid, "sub:1", panel="State", step=3) == {
        "thread": "t", "checkpoint": cid, "ns": "sub:1", "step": "3"}  # the first panel: the page names none
    assert routes.checkpoint_params("t", "not-a-uuid") == {"thread": "t", "checkpoint": "not-a-uuid"}
