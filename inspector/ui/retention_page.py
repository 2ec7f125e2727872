"""Retention: what a policy would delete, reclaim and break, and the SQL that would apply it.

Deep link: ``/retention?keep=N&older=DAYS&inactive=DAYS&threads=A,B&safe=1``. The
inspector never deletes: the statements are shown for an operator to review.
"""

from __future__ import annotations

import streamlit as st

from ..formatting import human_bytes
from ..history.location import id_from_url, url_id
from ..retention import Plan, Policy, plan_store, statements
from ..retention.chart import bytes_chart
from ..retention.report import break_rows, thread_rows, totals_line, variant_line
from ..store import Store, StoreError
from ..store.not_utf8 import quoted
from . import audit_trail, data, routes
from .inert import literal
from .tables import in_units, metric_row, table

SQL_SHOWN_CHARS = 200_000  # longer scripts are offered as a download only
BREAKS_SHOWN = 20  # one box each; all of them in a table below when there are more
BREAK_STYLE = "background-color: rgba(214, 39, 40, 0.15)"


@st.cache_data(hash_funcs=data.HASH_FUNCS, ttl=data.TTL, max_entries=16,
               show_spinner="Planning over the store's keys and lengths…")
def _plan(url: str, keep: int | None, older: float | None, inactive: float | None, threads: tuple[str, ...] | None,
          safe: bool, _store: Store) -> Plan:
    return plan_store(_store, Policy(keep, older, inactive, threads, safe))


# The link's parameters: name, what the page calls it, whole number or not, smallest value
URL_NUMBERS = {"keep": ("Keep the latest N", True, 1), "older": ("Older than (days)", False, 0),
               "inactive": ("Whole threads inactive for (days)", False, 0)}
LINK_MOST = 1_000_000_000  # beyond this a number in a link is a typo (and past what the inputs hold)
NO_POLICY = ("Choose a policy above, then press Preview: keep the latest N checkpoints of each thread, "
             "checkpoints older than some days, whole threads inactive for some days, or only the threads named "
             "(alone, they are deleted whole). Policies given together narrow one another.")


def _from_link(name: str) -> float | int | None:
    """The number in query parameter ``name``; a value that is not one (``keep=abc``, ``older=-1``) is named
    on the page in its own words, then left out."""
    text = st.query_params.get(name)
    if not text:
        return None
    label, whole, least = URL_NUMBERS[name]
    kind = "a whole number" if whole else "a number"
    try:
        value = int(text) if whole else float(text)
        if value != value or value in (float("inf"), float("-inf")):  # nan, inf
            raise ValueError
    except ValueError:
        value = None
    if value is None or not least <= value <= LINK_MOST:
        st.warning(literal(f"{name}={quoted(text)} in the link: {name} (“{label}”) must be {kind} from {least} to "
                           f"{LINK_MOST:,}; it is left out."), icon=":material/link_off:")
        return None
    return value


def _form() -> tuple[int | None, float | None, float | None, tuple[str, ...] | None, bool, bool]:
    linked = {name: _from_link(name) for name in URL_NUMBERS}
    safe_param = st.query_params.get("safe")
    if safe_param not in (None, "", "0", "1"):
        st.warning(literal(f"safe={quoted(safe_param)} in the link: safe must be 1 (on) or 0 (off); it is left off."),
                   icon=":material/link_off:")
    with st.form("retention-policy"):
        a, b, c = st.columns(3)
        keep = a.number_input(URL_NUMBERS["keep"][0] + " (per thread and namespace)", min_value=1, step=1,
                              value=linked["keep"], placeholder="off")
        older = b.number_input(URL_NUMBERS["older"][0], min_value=0.0,
                               value=None if linked["older"] is None else float(linked["older"]), placeholder="off")
        inactive = c.number_input(URL_NUMBERS["inactive"][0], min_value=0.0,
                                  value=None if linked["inactive"] is None else float(linked["inactive"]),
                                  placeholder="off")
        names = st.text_input("Only these threads (ids separated by spaces or commas; alone: delete them whole)",
                              value=st.query_params.get("threads", "").replace(",", " "))
        safe = st.toggle("Keep what the policy would break", value=safe_param == "1")
        submitted = st.form_submit_button("Preview", type="primary")
    # typed or linked as the URL spells ids (``location.url_id``: an id that is not UTF-8 as ~bytes:<hex>)
    threads = tuple(id_from_url(n) for n in names.replace(",", " ").split() if n) or None
    return keep, older, inactive, threads, safe, submitted


def _remember(keep, older, inactive, threads, safe) -> None:
    params = {"keep": keep, "older": older, "inactive": inactive, "threads": ",".join(url_id(t) for t in threads or ()) or None,
              "safe": "1" if safe else None}
    st.query_params.from_dict({k: f"{v:g}" if isinstance(v, float) else str(v) for k, v in params.items() if v})


def render() -> None:
    st.title("Retention")
    st.caption("What a retention policy would delete, what it would reclaim and what it would break. "
               "Nothing is deleted here: the statements below are for an operator to review and run.")
    store = data.opened_store()
    if store is None:
        return
    keep, older, inactive, threads, safe, submitted = _form()
    if submitted:
        _remember(keep, older, inactive, threads, safe)
    if (keep, older, inactive, threads) == (None,) * 4:
        st.info(NO_POLICY, icon=":material/info:")
        return
    try:
        Policy(keep, older, inactive, threads, safe)
    except ValueError as exc:  # the form's own bounds keep these out; said plainly if one gets through
        st.info(literal(f"This policy cannot be planned: {exc}."), icon=":material/info:")
        return
    try:
        plan = _plan(store.url, keep, older, inactive, threads, safe, store)
    except StoreError as exc:
        st.error(literal(exc), icon=":material/error:")
        return
    _render_plan(plan)


def _render_plan(plan: Plan) -> None:
    with metric_row("retention_metrics"):
        st.metric("Would reclaim", human_bytes(plan.reclaim_bytes), width="content",
                  help=f"{plan.reclaim_bytes:,} bytes: {human_bytes(plan.rows_bytes)} of rows, "
                       f"{human_bytes(plan.facts.free_bytes)} already free")
        st.metric("Checkpoints deleted", f"{plan.checkpoints:,}", width="content")
        st.metric("Threads touched", f"{len(plan.threads)} of {plan.threads_examined}", width="content")
        st.metric("Breaks", len(plan.breaks), width="content")
    st.caption(literal(totals_line(plan)))
    line = variant_line(plan, how="switch on “Keep what the policy would break”")
    (st.warning if plan.breaks else st.success)(literal(line), icon=":material/warning:" if plan.breaks
                                                 else ":material/check_circle:")
    for note in plan.notes:
        st.caption(literal(note))
    if not plan.threads:
        st.info("Nothing in this store matches the policy.")
        return
    st.subheader("Bytes by thread")
    st.altair_chart(bytes_chart(plan), width="stretch")
    if plan.breaks:
        st.subheader("What it would break")
        for i, row in enumerate(break_rows(plan)[:BREAKS_SHOWN]):
            st.error(literal(f"{row['thread']}: {row['what breaks']}"), icon=":material/heart_broken:")
            routes.checkpoint_links(row["thread"], [row["checkpoint"]], row["namespace"] or "", lead="The checkpoint:",
                                    key=f"break-{i}")
        if len(plan.breaks) > BREAKS_SHOWN:
            st.dataframe(table(break_rows(plan)), hide_index=True, width="stretch")
    protected = [(t.thread_id, p.message) for t in plan.threads for p in t.protected]
    if protected:
        with st.expander(f"Kept so that nothing breaks ({len(protected)})"):
            st.dataframe(table([{"thread": tid, "kept because": message} for tid, message in protected]),
                         hide_index=True, width="stretch")
    st.subheader("Threads")
    rows, units = in_units(table(thread_rows(plan)), "bytes")
    st.dataframe(rows.style.apply(_highlight_breaks, axis=1), hide_index=True, width="stretch", column_config=units)
    _render_sql(plan)


def _highlight_breaks(row) -> list[str]:
    return [BREAK_STYLE if row["breaks"] else ""] * len(row)


def _render_sql(plan: Plan) -> None:
    st.subheader("Statements")
    script = statements(plan, data.redactor().name)  # a masked namespace written as its bytes
    st.caption(f"One transaction in {'SQLite' if plan.dialect == 'sqlite' else 'PostgreSQL'}'s dialect. "
               "Review it, then run it yourself; the inspector cannot write to the store.")
    if len(script) <= SQL_SHOWN_CHARS:
        st.code(script, language="sql", wrap_lines=True)
    else:
        st.code(script[:SQL_SHOWN_CHARS] + "\n-- … (the rest is in the download)", language="sql", wrap_lines=True)
    st.download_button("Download the statements", audit_trail.exported(lambda: script, what="retention statements"),
                       file_name="retention-plan.sql", mime="application/sql", on_click="ignore")
