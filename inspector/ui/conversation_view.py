"""``messages`` drawn as a conversation: roles, parts, tool calls matched to their results."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ..conversation import Part, Turn, conversation, counts
from ..units import human_bytes
from .values import show_value

RECENT = 60
AVATARS = {"user": ":material/person:", "assistant": ":material/smart_toy:", "tool": ":material/build:",
           "system": ":material/settings:"}


def messages_view(value: Any, ctx: Any) -> None:
    turns = conversation(value)
    tally = counts(turns)
    st.caption(" · ".join(f"{n} {role}" for role, n in tally.items() if n))
    show_ids = st.toggle("Show message ids", key=f"msg_ids_{ctx.name}")
    shown = turns
    if len(turns) > RECENT:
        if not st.toggle(f"Show all {len(turns)} messages", key=f"msg_all_{ctx.name}"):
            shown = turns[-RECENT:]
            st.caption(f"The newest {RECENT} of {len(turns)} messages.")
    # One place per turn, in order, filled newest first: the newest message reaches the browser first.
    places = [st.container() for _ in shown]
    for place, turn in zip(reversed(places), reversed(shown)):
        with place:
            _turn(turn, turns, show_ids)


def _part(part: Part) -> None:
    if part.kind == "text":
        st.text(part.text) if part.text.lstrip().startswith("<") else st.markdown(part.text)
    elif part.kind == "image":
        size = f", {human_bytes(part.size)}" if part.size is not None else ""
        st.caption(f":material/image: image ({part.mime_type or 'unknown type'}{size}) · {part.source or ''}")
    else:
        st.code(part.text, language="json", wrap_lines=True)


def _header(turn: Turn, show_ids: bool) -> str:
    bits = [f"**{turn.role}**"]
    if turn.name:
        bits.append(f"`{turn.name}`")
    if turn.status and turn.status != "success":
        bits.append(f":red[{turn.status}]")
    if turn.hidden:
        bits.append(f":orange-badge[hidden in the chat: {turn.hidden}]")
    if show_ids:
        bits.append(f"id `{turn.id}`")
    return " · ".join(bits) + f" · #{turn.index}"


def _turn(turn: Turn, turns: list[Turn], show_ids: bool) -> None:
    with st.chat_message(turn.role if turn.role in ("user", "assistant") else turn.role[:1] or "?",
                         avatar=AVATARS.get(turn.role)):
        st.markdown(_header(turn, show_ids))
        if turn.type == "tool" and turn.answers is not None:
            st.caption(f"result of the call in message #{turn.answers}"
                       + (f" (call id `{turn.tool_call_id}`)" if show_ids else ""))
        for part in turn.parts:
            _part(part)
        for call in turn.tool_calls:
            answered = f"answered by message #{call.result}" if call.result is not None else "no result yet"
            with st.expander(f":material/build: {call.name} · {answered}"):
                if show_ids:
                    st.caption(f"call id `{call.id}`")
                show_value(call.args, expanded=2)
                if call.result is not None:
                    st.caption("result")
                    st.text(turns[call.result].text[:4000])
        for note in turn.notes:
            st.caption(f":material/info: {note}")
