"""``messages`` drawn as a conversation, as DeerFlow's UI shows it, or everything on request."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ..formatting import human_bytes
from ..state.conversation import Part, Turn, conversation, counts
from .inert import code_span, literal, show_markdown
from .values import show_value

RECENT = 60
AVATARS = {"user": ":material/person:", "assistant": ":material/smart_toy:", "tool": ":material/build:",
           "system": ":material/settings:"}


def messages_view(value: Any, ctx: Any) -> None:
    turns = conversation(value)
    tally = counts(turns)
    st.caption(literal(" · ".join(f"{n} {role}" for role, n in tally.items() if n)))
    everything = st.toggle("Show everything", key=f"msg_everything_{ctx.name}",
                           help="Also show the messages DeerFlow's UI hides, and their text as stored")
    show_ids = st.toggle("Show message ids", key=f"msg_ids_{ctx.name}")
    shown = turns if everything else [t for t in turns if not t.hidden]
    if not everything and tally["hidden"]:
        st.caption(f":material/visibility_off: {tally['hidden']} message(s) hidden as in DeerFlow's UI; "
                   "tags it strips are removed from the text. Turn on *Show everything* to see all as stored.")
    if len(shown) > RECENT and not st.toggle(f"Show all {len(shown)} messages", key=f"msg_all_{ctx.name}"):
        st.caption(f"The newest {RECENT} of {len(shown)} messages.")
        shown = shown[-RECENT:]
    # One place per turn, in order, filled newest first: the newest message reaches the browser first.
    places = [st.container() for _ in shown]
    for place, turn in zip(reversed(places), reversed(shown)):
        with place:
            _turn(turn, turns, show_ids, everything)


def _part(part: Part) -> None:
    if part.kind == "text":
        show_markdown(part.text)
    elif part.kind == "image":
        size = f", {human_bytes(part.size)}" if part.size is not None else ""
        st.caption(":material/image: " + literal(f"image ({part.mime_type or 'unknown type'}{size}) · {part.source or ''}"))
    else:
        st.code(part.text, language="json", wrap_lines=True)


def _header(turn: Turn, show_ids: bool) -> str:
    bits = [f"**{literal(turn.role)}**"]
    if turn.name:
        bits.append(code_span(turn.name))
    if turn.status and turn.status != "success":
        bits.append(f":red[{literal(turn.status)}]")
    if turn.hidden:
        bits.append(":orange-badge[hidden in DeerFlow's UI]")
    if show_ids:
        bits.append(f"id {code_span(turn.id)}")
    return " · ".join(bits) + f" · #{turn.index}"


def _subagent(turn: Turn) -> None:
    result = turn.subagent
    if result is None:
        return
    colour = {"completed": "green", "failed": "red"}.get(result.pill, "orange")
    st.markdown(f":{colour}-badge[subagent {literal(result.summary)}]")
    for text in (result.error, result.result_brief):
        if text:
            st.text(text[:2000])
    for problem in result.problems:
        st.caption(f":material/warning: {literal(problem)}")


def _turn(turn: Turn, turns: list[Turn], show_ids: bool, everything: bool) -> None:
    with st.chat_message(turn.role if turn.role in ("user", "assistant") else turn.role[:1] or "?",
                         avatar=AVATARS.get(turn.role)):
        st.markdown(_header(turn, show_ids))
        if turn.hidden:
            st.caption(f":material/visibility_off: DeerFlow's UI hides it: {literal(turn.hidden)}")
        if turn.type == "tool" and turn.answers is not None:
            st.caption(f"result of the call in message #{turn.answers}"
                       + (f" (call id {code_span(turn.tool_call_id)})" if show_ids else ""))
        _subagent(turn)
        for attachment in turn.attachments:
            size = f" · {human_bytes(attachment.size)}" if attachment.size is not None else ""
            status = f" · {attachment.status}" if attachment.status else ""
            st.caption(":material/attach_file: "
                       + literal(f"{attachment.filename}{size} · {attachment.path or 'no path'}{status}")
                       + f" · _from {literal(attachment.source)}_")
        if turn.reasoning:
            with st.expander("Reasoning"):
                st.text(turn.reasoning)
        for part in turn.parts if everything else turn.shown_parts:
            _part(part)
        for stripped in turn.stripped:
            st.caption(f":material/content_cut: {literal(stripped.note)}" + (" (shown above as stored)" if everything else ""))
        for call in turn.tool_calls:
            answered = f"answered by message #{call.result}" if call.result is not None else "no result yet"
            with st.expander(f":material/build: {literal(call.name)} · {answered}"):
                if show_ids:
                    st.caption(f"call id {code_span(call.id)}")
                show_value(call.args, expanded=2)
                if call.result is not None:
                    st.caption("result")
                    st.text(turns[call.result].text[:4000])
        for note in turn.notes:
            st.caption(f":material/info: {literal(note)}")
