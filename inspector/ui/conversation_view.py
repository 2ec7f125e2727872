"""``messages`` drawn as a conversation, as DeerFlow's UI shows it, or everything on request."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from ..formatting import human_bytes
from ..media.images import thumbnail
from ..profiles import in_force, knows
from ..profiles.pieces import HIDDEN_MESSAGES
from ..state.conversation import Part, Turn, counts, kept_conversation
from ..state.model_input import InlineImage, inline_images
from .conversation_html import chat_html, header_bits, needs_widgets
from .inert import code_span, literal, plain
from .long_text import show_markdown, show_plain
from .media_views import attachment_opener
from .values import show_value

# Messages drawn until all are asked for: a screen shows a few of them, and a long thread's every step would
# otherwise draw hundreds
RECENT = 20
# The first message drawn is a multiple of this: a step that adds a message or two draws the others where they
# were (nothing moves under the reader's eyes as they step)
ANCHOR = 10


def recent_start(count: int) -> int:
    """The index of the first of ``count`` messages drawn until all are asked for: at least the newest ``RECENT``,
    from a multiple of ``ANCHOR`` (fewer than ``RECENT + ANCHOR``)."""
    return max(0, (count - RECENT) // ANCHOR * ANCHOR)


AVATARS = {"user": ":material/person:", "assistant": ":material/smart_toy:", "tool": ":material/build:",
           "system": ":material/settings:"}


def messages_view(value: Any, ctx: Any) -> None:
    turns = kept_conversation(value)  # the step Prev / Next leads to was read ahead (``play_frames.read_steps``)
    tally = counts(turns)
    st.caption(literal(" · ".join(f"{n} {role}" for role, n in tally.items() if n)))
    chat_ui = f"{in_force().title}'s UI" if knows(HIDDEN_MESSAGES) else None
    everything = st.toggle("Show everything", key=f"msg_everything_{ctx.name}",
                           help=f"Also show the messages {chat_ui or 'this view'} hides, and their text as stored")
    show_ids = st.toggle("Show message ids", key=f"msg_ids_{ctx.name}")
    shown = turns if everything else [t for t in turns if not t.hidden]
    if not everything and tally["hidden"] and chat_ui:
        st.caption(f":material/visibility_off: {tally['hidden']} message(s) hidden as in {chat_ui}; "
                   "tags it strips are removed from the text. Turn on *Show everything* to see all as stored.")
    elif not everything and tally["hidden"]:
        st.caption(f":material/visibility_off: {tally['hidden']} item(s) that are not messages hidden. "
                   "Turn on *Show everything* to see all as stored.")
    start = recent_start(len(shown))
    all_asked = bool(start) and st.toggle(f"Show all {len(shown)} messages", key=f"msg_all_{ctx.name}")
    if start and not all_asked:
        st.caption(f"The newest {len(shown) - start} of {len(shown)} messages.")
        shown = shown[start:]
    # Runs of messages that need no widget are one HTML element each (``conversation_html``: the browser draws a
    # step's window of messages in one go); a message with a widget (an attachment to open, a thumbnail, a cut
    # text's download) is a Streamlit bubble between them. Placed in order, filled newest first: the newest
    # message reaches the browser first.
    messages = value if isinstance(value, list) else []
    opener = attachment_opener(ctx) if getattr(ctx, "state", None) is not None else None
    pieces: list[tuple[Any, list[Turn] | Turn, list[InlineImage]]] = []
    # while the window is the newest messages, one HTML element per ``ANCHOR`` of them from its start (a multiple
    # of ``ANCHOR``): a step that adds a message changes the last element only, the browser keeps the others
    # untouched; one element for a run when all are asked for
    chunk = max(len(shown), 1) if all_asked else ANCHOR
    for position, turn in enumerate(shown):
        images = inline_images(messages[turn.index]) if everything and turn.index < len(messages) else []
        if needs_widgets(turn, everything, images, can_open=opener is not None):
            pieces.append((bubble(turn), turn, images))
        elif pieces and isinstance(pieces[-1][1], list) and position % chunk:
            pieces[-1][1].append(turn)
        else:
            pieces.append((st.empty(), [turn], []))
    for place, what, images in reversed(pieces):
        if isinstance(what, list):
            place.html(chat_html(what, turns, show_ids, everything))
        else:
            show_turn(what, turns, show_ids, everything, images, open_file=opener, place=place)


def bubble(turn: Turn) -> Any:
    """The chat bubble of one message, empty: ``show_turn`` fills it."""
    return st.chat_message(turn.role if turn.role in ("user", "assistant") else turn.role[:1] or "?",
                           avatar=AVATARS.get(turn.role))


def image_part(part: Part, image: InlineImage | None) -> None:
    """An image block: a thumbnail of its inline bytes when Pillow verified them (served by the dashboard), and its facts."""
    size = f", {human_bytes(part.size)}" if part.size is not None else ""
    facts = image.facts if image is not None else None
    shape = f" · {facts.format} {facts.width}x{facts.height}" if facts is not None and facts.ok else ""
    caption = literal(f"image ({part.mime_type or 'unknown type'}{size}) · {part.source or ''}{shape}")
    if image is not None and image.data is not None:
        st.image(thumbnail(image.data, THUMBNAIL), caption=caption, output_format="PNG")
    else:
        st.caption(":material/image: " + caption)
    for problem in image.problems if image is not None else ():
        st.warning(literal(f"image not shown: {problem}"), icon=":material/broken_image:")


THUMBNAIL = (240, 240)


def _part(part: Part, image: InlineImage | None = None, as_text: bool = False, lead: str | None = None) -> None:
    """One part of a message; ``as_text``: a tool's output, shown as the text it is (monospaced, line breaks
    kept, ``# notes`` never a heading), where a person's or the model's words are Markdown; ``lead``: the
    message's header, drawn in the part's element (Markdown text only) or above it."""
    if lead is not None and (part.kind != "text" or as_text):
        st.markdown(lead)
    if part.kind == "text" and as_text:
        show_plain(part.text)
    elif part.kind == "text":
        show_markdown(part.text, lead=lead)
    elif part.kind == "image":
        image_part(part, image)
    else:
        show_plain(part.text)


_HEADER_MARKDOWN = {"role": lambda t: f"**{literal(t)}**", "code": code_span, "status": lambda t: f":red[{literal(t)}]",
                    "hidden": lambda t: f":orange-badge[{literal(t)}]", "id": lambda t: f"id {code_span(t)}"}


def _header(turn: Turn, show_ids: bool) -> str:
    return " · ".join(_HEADER_MARKDOWN[kind](text) for kind, text in header_bits(turn, show_ids)) + f" · #{turn.index}"


def _subagent(turn: Turn) -> None:
    result = turn.subagent
    if result is None:
        return
    colour = {"completed": "green", "failed": "red"}.get(result.pill, "orange")
    st.markdown(f":{colour}-badge[subagent {literal(result.summary)}]")
    for text in (result.error, result.result_brief):
        if text:
            st.text(plain(text[:2000]))
    for problem in result.problems:
        st.caption(f":material/warning: {literal(problem)}")


def show_turn(turn: Turn, turns: list[Turn], show_ids: bool, everything: bool,
              images: list[InlineImage] | None = None, note: str | None = None,
              open_file: Callable[[Any, str], None] | None = None, place: Any = None) -> None:
    """One message as a chat bubble (its plain text monospaced by ``page_css.MONOSPACED``); ``everything``: as
    stored (hidden marks kept, no tag stripping), with the thumbnails of its inline ``images``; ``note`` is a
    line shown under its header; ``open_file`` offers to open each attachment (``media_views.attachment_opener``);
    ``place``: the bubble to fill (``bubble``), else one is drawn here."""
    header = _header(turn, show_ids)
    if turn.type == "tool" and turn.answers is not None:  # on the header's line: one element fewer per result
        header += (f" · :gray[result of the call in message #{turn.answers}]"
                   + (f" (call id {code_span(turn.tool_call_id)})" if show_ids else ""))
    parts = list(enumerate(turn.parts if everything else turn.shown_parts))
    # the header in the first part's element when nothing comes between them (fewer elements at every step)
    lead = (not note and not turn.hidden and turn.subagent is None and not turn.attachments and not turn.reasoning
            and bool(parts))
    with place if place is not None else bubble(turn):
        if not lead:
            st.markdown(header)
        if note:
            st.caption(f":material/schedule: {literal(note)}")
        if turn.hidden:
            who = f"{in_force().title}'s UI hides it" if knows(HIDDEN_MESSAGES) else "hidden"
            st.caption(f":material/visibility_off: {who}: {literal(turn.hidden)}")
        _subagent(turn)
        for i, attachment in enumerate(turn.attachments):
            size = f" · {human_bytes(attachment.size)}" if attachment.size is not None else ""
            status = f" · {attachment.status}" if attachment.status else ""
            st.caption(":material/attach_file: "
                       + literal(f"{attachment.filename}{size} · {attachment.path or 'no path'}{status}")
                       + f" · _from {literal(attachment.source)}_")
            if open_file is not None:
                open_file(attachment, f"{turn.index}-{i}")
        if turn.reasoning:
            with st.expander("Reasoning"):
                show_plain(turn.reasoning)
        by_part = {image.part: image for image in images or []} if everything else {}
        for n, (i, part) in enumerate(parts):
            _part(part, by_part.get(i), as_text=turn.type == "tool", lead=header if lead and not n else None)
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
                    st.text(plain(turns[call.result].text[:4000]))
        for note in turn.notes:
            st.caption(f":material/info: {literal(note)}")
