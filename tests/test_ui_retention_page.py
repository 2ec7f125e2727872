"""AppTest: the Retention page plans from its deep link and shows the breaks, the chart and the statements."""

from __future__ import annotations

import pytest
from ui_app import all_text, open_page

from inspector.retention import Policy, plan_store
from inspector.retention.chart import BREAKS, SAFE, bytes_chart, bytes_frame
from inspector.store import open_store

pytestmark = pytest.mark.usefixtures("app_on_demo")


def test_without_a_policy_the_page_asks_for_one_in_its_own_words():
    at = open_page("retention")
    assert not at.exception, at.exception
    (info,) = at.info
    assert info.value.startswith("Choose a policy above, then press Preview: keep the latest N")
    assert "--" not in info.value  # no CLI flags on the page
    assert not [c for c in at.code if c.language == "sql"] and not at.main.warning


@pytest.mark.parametrize(("params", "said"), [
    ({"keep": "abc"}, "keep='abc' in the link: keep (“Keep the latest N”) must be a whole number from 1 to"),
    ({"keep": "2.5"}, "keep='2.5' in the link: keep (“Keep the latest N”) must be a whole number"),
    ({"keep": "0"}, "keep='0' in the link: keep (“Keep the latest N”) must be a whole number from 1"),
    ({"older": "-3"}, "older='-3' in the link: older (“Older than (days)”) must be a number from 0"),
    ({"inactive": "nan"}, "inactive='nan' in the link: inactive (“Whole threads inactive for (days)”) must be"),
    ({"safe": "yes"}, "safe='yes' in the link: safe must be 1 (on) or 0 (off)"),
])
def test_a_bad_parameter_in_the_link_is_named(params, said):
    at = open_page("retention", **params)
    assert not at.exception, at.exception
    assert [w.value for w in at.warning if w.value.startswith(said)], [w.value for w in at.warning]
    assert at.info[-1].value.startswith("Choose a policy above")  # and nothing was planned from it


def test_a_hostile_parameter_in_the_link_is_named_as_ids_are_escaped_and_cut():
    at = open_page("retention", keep="\u202e\x1b[2J" + "9" * 5_000)
    assert not at.exception, at.exception
    (said,) = [w.value for w in at.warning if " in the link: keep " in w.value]
    assert said.startswith("keep='\\\\u202e\\\\x1b")  # escaped as an error line names an id (Markdown-escaped)
    assert "(5,005 characters)" in said and "9" * 200 not in said
    assert "\u202e" not in said and "\x1b" not in said


def test_a_bad_parameter_beside_a_good_one_leaves_the_good_one_planned():
    at = open_page("retention", keep="2", older="soon")
    assert not at.exception, at.exception
    assert at.warning[0].value.startswith("older='soon' in the link")
    assert at.number_input[0].value == 2 and at.number_input[1].value is None
    assert [m.label for m in at.metric][0] == "Would reclaim"


def test_a_deep_link_plans_and_shows_breaks_and_sql(demo_db):
    at = open_page("retention", keep="2")
    assert not at.exception, at.exception
    assert [m.label for m in at.metric] == ["Would reclaim", "Checkpoints deleted", "Threads touched", "Breaks"]
    with open_store(f"sqlite:///{demo_db}") as store:
        plan = plan_store(store, Policy(keep_latest=2))
    assert at.metric[1].value == f"{plan.checkpoints:,}"
    assert at.metric[3].value == str(len(plan.breaks)) != "0"
    assert "The safe variant (keep-latest 2, keeping what it would break) breaks nothing" in at.warning[0].value
    delta, branch = sorted(at.error, key=lambda e: e.value.startswith("demo-deerflow"))
    assert delta.value.startswith("demo-delta: \\`messages\\` is stored as deltas")
    assert branch.value.startswith("demo-deerflow-current: DeerFlow branch thread demo-branch was branched from")
    (sql,) = [c for c in at.code if c.language == "sql"]
    assert sql.value.startswith("-- Retention plan: keep-latest 2")
    assert "BEGIN IMMEDIATE;" in sql.value and "COMMIT;" in sql.value


def test_the_safe_toggle_in_the_link_keeps_what_breaks():
    at = open_page("retention", keep="2", safe="1")
    assert not at.exception, at.exception
    assert at.metric[3].value == "0"
    assert "It breaks nothing, and keeps" in at.success[0].value
    assert "Kept so that nothing breaks (2)" in [e.label for e in at.expander]


def test_a_policy_that_matches_nothing_says_so():
    at = open_page("retention", threads="no-such-thread")
    assert not at.exception, at.exception
    assert "Nothing in this store matches the policy." in all_text(at)
    assert "1 of the threads named are not in this store: 'no-such-thread'" in all_text(at)


def test_the_chart_marks_threads_that_break_in_red(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        plan = plan_store(store, Policy(keep_latest=2))
    frame = bytes_frame(plan)
    broken = frame["thread"].isin(["demo-delta", "demo-deerflow-current"])  # deltas; a branch's parent checkpoint
    assert set(frame.loc[broken, "status"]) == {BREAKS} and broken.sum() == 2
    assert set(frame.loc[~broken, "status"]) == {SAFE}
    spec = bytes_chart(plan).to_dict()
    assert spec["encoding"]["color"]["scale"]["range"][spec["encoding"]["color"]["scale"]["domain"].index(BREAKS)] == "#d62728"


def test_each_break_links_to_its_checkpoint_by_step(demo_db):
    from urllib.parse import parse_qs

    from inspector.store.model import checkpoint_step

    at = open_page("retention", keep="2")
    assert not at.exception, at.exception
    links = [parse_qs(link.proto.query_string) for link in at.get("page_link") if "checkpoint=" in link.proto.query_string]
    assert len(links) == 2  # the two breaks
    for link in links:
        assert link["step"] == [str(checkpoint_step(link["checkpoint"][0]))] and "panel" not in link  # the State panel
