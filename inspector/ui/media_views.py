"""Pictures and files: the viewed_images gallery, artifacts and uploads with previews, and images over time.

Here are the ``viewed_images``, ``artifacts`` and ``uploaded_files`` field views,
the opener of a message's attachments (``file_preview`` opens every one of them the
same way), and the "Images over time" thread panel; ``panels`` lists them on the thread page.
Thumbnails are small PNGs made once per image content; the full image is only
sent when asked for. The report and what draws an image come from the thread's
profile (``profiles.media_report``, ``profiles.media()``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from ..cache import AnalysisCache
from ..formatting import human_bytes
from ..media.folders import PathRefused, UserData
from ..media.images import sha256_of
from ..media.located import locate_file
from ..media.previews import Preview, download_bytes, preview_file
from ..profiles import media
from ..profiles.media_report import (
    MediaReport,
    artifact_rows,
    image_rows,
    lifecycle_note,
    report_for_state,
    span_rows,
    upload_rows,
)
from ..store import CheckpointRow, CheckpointState, Store
from . import audit_trail, connection, data, routes
from .data import MAX_ENTRIES, TTL, analysis_cache, masked, redactor
from .inert import code_span, literal, plain
from .long_text import show_markdown
from .names import key_text
from .tables import UNIT_HELP, in_units, table
from .values import show_value

HISTORY_PANEL = "Images over time"
GALLERY_COLUMNS = 3
MAX_HISTORY_THUMBNAILS = 24


@st.cache_resource(hash_funcs=data.HASH_FUNCS, ttl=TTL, max_entries=MAX_ENTRIES, show_spinner=False)
def _report(url: str, thread_id: str, ns: str, checkpoint_id: str, data_dir: str | None, history: bool, profile: str,
            _store: Store, _state: CheckpointState, _cache: AnalysisCache | None) -> MediaReport:
    return masked(report_for_state(_store, _state, data_dir, history=history, cache=_cache))


def report(store: Store | None, state: CheckpointState, history: bool = False) -> MediaReport:
    """The media report of ``state`` (cached per store, checkpoint and data folder); ``history`` adds each
    image's span and each artifact's first step, read along the lineage (only the history panel asks)."""
    data_dir = connection.settings().data_dir
    if store is None:
        return masked(report_for_state(None, state, data_dir, history=False))  # type: ignore[arg-type]
    cache = analysis_cache(store) if history else None
    with st.spinner("Reading the images and artifacts along this checkpoint's history…" if history
                    else "Checking images and artifacts…"):
        return _report(store.url, state.thread_id, state.checkpoint_ns, state.checkpoint_id, data_dir, history,
                       data.read_as(store, state.thread_id), store, state, cache)


def _problems(report_: MediaReport) -> None:
    for problem in report_.problems:
        st.warning(literal(problem), icon=":material/folder_off:")


# -- viewed_images ----------------------------------------------------------------


def _caption(check: Any) -> str:
    size = f"{check.width}x{check.height}" if check.width else "?"
    return f"{check.key.rsplit('/', 1)[-1]} · {check.format or '?'} {size}"


def _image_card(check: Any, entry: Any, user_data: UserData | None, key: str) -> None:
    thumb = media().entry_thumbnail(check.key, entry, check, user_data)
    if thumb is not None:
        st.image(thumb, caption=literal(_caption(check)), output_format="PNG")
    else:
        st.markdown(code_span(check.key))
    st.caption(f"{'inline base64' if check.shape == 'base64' else check.shape} · {human_bytes(check.byte_size)}")
    for problem in check.problems:
        st.warning(literal(problem), icon=":material/broken_image:")
    if thumb is not None and st.toggle("Full size", key=f"full-{key}"):
        data = media().checked_bytes(check, entry, user_data)
        if data is not None:
            st.image(data, caption=literal(check.key))


def gallery(checks: list[Any], viewed: dict[str, Any], user_data: UserData | None, key: str) -> None:
    """A grid of image cards: thumbnail, facts and problems, the full image on demand."""
    columns = st.columns(GALLERY_COLUMNS)
    for i, check in enumerate(checks):
        with columns[i % GALLERY_COLUMNS], st.container(border=True):
            _image_card(check, viewed.get(check.key), user_data, f"{key}-{i}")


def viewed_images_view(value: Any, ctx: Any) -> None:
    """``VIEWS["viewed images"]``: the selected checkpoint's images as pictures, with their problems."""
    if not value:
        st.caption("no viewed images" if value == {} else "empty")
        return
    found = report(ctx.store, ctx.state)
    _problems(found)
    with st.container(key="viewed-images-gallery"):
        gallery(found.images, found.viewed_images, found.user_data, f"vi-{ctx.state.checkpoint_id}")
    with st.expander("As a table"):
        st.dataframe(table(image_rows(found.images)), hide_index=True)


# -- artifacts --------------------------------------------------------------------


def _render_preview(preview: Preview) -> None:
    for problem in preview.problems:
        st.warning(literal(problem), icon=":material/warning:")
    if preview.truncated:
        st.info(f"Showing the first part of a {preview.size:,}-byte file; download it for the rest.")
    if preview.kind == "markdown":
        show_markdown(preview.text or "")
    elif preview.kind in ("code", "source"):
        if preview.kind == "source":
            st.caption("Shown as source; HTML and SVG are never rendered here.")
        st.code(plain(preview.text or ""), language=preview.language)
    elif preview.kind == "table" and preview.table is not None:
        st.dataframe(preview.table, hide_index=True)
    elif preview.kind == "image" and preview.thumbnail is not None:
        facts = preview.image
        st.image(preview.thumbnail, caption=literal(f"{facts.format} {facts.width}x{facts.height}"), output_format="PNG")
    elif preview.kind == "binary":
        st.markdown(literal(f"{preview.mime_type or 'binary file'} · {human_bytes(preview.size)}"))


def file_preview(found: Any, user_data: UserData | None, state: CheckpointState,
                 what: str, key: str) -> None:
    """One file the state names (an artifact, an upload, an attachment): its preview by type and a download,
    or why it is not opened (refused, not a regular file, not found on this machine)."""
    if not found.exists or found.physical_path is None or user_data is None:
        st.info("No preview: " + literal('; '.join(found.problems) or 'file not found'))
        return
    preview = masked(preview_file(found.physical_path, user_data))
    _render_preview(preview)
    if preview.kind != "error":
        path = found.physical_path
        produce = audit_trail.exported(lambda: _download(path, user_data), state.thread_id, state.checkpoint_id,
                                       state.checkpoint_ns, what=what, path=found.path)
        st.download_button("Download", data=produce, file_name=path.rsplit("/", 1)[-1],
                           mime=preview.mime_type or "application/octet-stream", icon=":material/download:",
                           on_click="ignore", key=f"dl-{key}-{key_text(found.path)}")


def _download(path: str, user_data: UserData) -> bytes:
    try:
        return redactor().file(download_bytes(path, user_data))
    except (PathRefused, OSError) as exc:
        return f"not available: {exc}".encode()


def _preview_one(files: list[Any], user_data: UserData | None, state: CheckpointState,
                 label: str, what: str) -> None:
    """A picker over ``files`` (by path) and the chosen one's preview in a bordered ``{what}-preview`` box."""
    if not files:
        return
    labels = [f.path for f in files]
    # the key follows the list, so a checkpoint with other files starts from its first one
    key = f"{what}-preview-{key_text(state.thread_id)}-{sha256_of(chr(0).join(labels).encode())[:12]}"
    chosen = st.selectbox(label, labels, key=key)
    with st.container(border=True, key=f"{what}-preview"):
        file_preview(files[labels.index(chosen) if chosen in labels else 0], user_data, state, what, what)


def artifacts_view(value: Any, ctx: Any) -> None:
    """``VIEWS["artifacts"]``: each artifact with its first step and flags, and a preview of one."""
    if not value:
        st.caption("no artifacts")
        return
    found = report(ctx.store, ctx.state)
    _problems(found)
    rows = [{k: v for k, v in row.items() if k != "first step"} for row in artifact_rows(found.artifacts)]
    st.dataframe(table(rows), hide_index=True)
    st.caption(f"When each one first appeared: the {HISTORY_PANEL!r} panel.")
    _preview_one(found.artifacts, found.user_data, ctx.state, "Preview", "artifact")


# -- uploaded files and attachments ------------------------------------------------


def uploads_view(value: Any, ctx: Any) -> None:
    """``VIEWS["uploaded files"]``: the files the user uploaded, found on disk and flagged, and one opened
    as artifacts are (preview, download, the same refusals)."""
    if not value:
        st.caption("no uploads in this turn")
        return
    found = report(ctx.store, ctx.state)
    _problems(found)
    if not found.uploads:
        show_value(value, expanded=1)  # a profile that names no uploads: the value as stored
        return
    frame, config = in_units(table(upload_rows(found.uploads)), "bytes", help=UNIT_HELP)
    st.dataframe(frame, column_config=config, hide_index=True)
    _preview_one(found.uploads, found.user_data, ctx.state, "Preview an uploaded file", "upload")


def attachment_opener(ctx: Any) -> Callable[[Any, str], None]:
    """For the conversation: ``open(attachment, key)`` offers to open a message's attached file (read only when
    asked), found in the thread's folders as uploads are."""

    def open_attachment(attachment: Any, key: str) -> None:
        if not attachment.path:
            return
        if st.toggle(literal(f"Open {attachment.filename}"), key=f"att-open-{key}"):
            found = report(ctx.store, ctx.state)
            with st.container(border=True, key=f"attachment-{key}"):
                file_preview(locate_file(attachment.path, found.user_data), found.user_data, ctx.state,
                             "attachment", f"att-{key}")

    return open_attachment


# -- images over time --------------------------------------------------------------


@st.cache_resource(hash_funcs=data.HASH_FUNCS, ttl=TTL, max_entries=MAX_ENTRIES, show_spinner=False)
def _span_thumbnails(url: str, thread_id: str, ns: str, checkpoint_id: str, data_dir: str | None, profile: str,
                     _found: MediaReport, _store: Store) -> list[tuple[str, bytes | None, list[str]]]:
    spans = _found.spans[:MAX_HISTORY_THUMBNAILS]
    shown = []
    files = media()
    for span, entry in zip(spans, masked(files.span_entries(_store, thread_id, ns, spans, redactor().text))):
        check = files.check_entry(span.path, entry, _found.user_data)
        thumb = files.entry_thumbnail(span.path, entry, check, _found.user_data)
        shown.append((f"step {span.appeared_step}: {span.path.rsplit('/', 1)[-1]}", thumb, check.problems))
    return shown


def _span_links(store: Store, thread_id: str, row: CheckpointRow, spans: list) -> None:
    """Links to the checkpoints where each image appeared and where it ended (the Diff vs parent panel open,
    which shows the write that ended it)."""
    history = data.thread_history(store, thread_id).history
    key = (row.checkpoint_ns, row.checkpoint_id)
    path = history.path_through(key) if key in history.nodes else []
    after = {path[i][1]: path[i + 1][1] for i in range(len(path) - 1)}
    ids, labels = [], []
    for span in spans[:MAX_HISTORY_THUMBNAILS]:
        name = span.path.rsplit("/", 1)[-1]
        ids.append(span.appeared_checkpoint)
        labels.append(f"step {span.appeared_step}: {name} appeared")
        if span.ended_by and span.last_checkpoint in after:
            ids.append(after[span.last_checkpoint])
            labels.append(f"step {span.ended_step}: {name} {span.ended_by}")
    routes.checkpoint_links(thread_id, ids, row.checkpoint_ns, panel="Diff vs parent", labels=labels,
                            lead="Open the step:", limit=24)


def images_over_time_panel(store: Store, thread_id: str, row: CheckpointRow, state: CheckpointState) -> None:
    """THREAD_PANELS entry: every image of the lineage, when it appeared, how it ended, how long it was carried;
    and the step each artifact first appeared at."""
    found = report(store, state, history=True)
    if not found.looked:  # a profile that names no files: say so, not that no image was viewed
        st.info(literal("; ".join(found.problems)))
        return
    if found.artifacts:
        st.markdown("**Artifacts**")
        st.dataframe(table(artifact_rows(found.artifacts)), hide_index=True)
    if not found.spans:
        st.info("No image was viewed on the way to this checkpoint.")
        return
    st.markdown("**Images**")
    st.dataframe(table(span_rows(found.spans)), hide_index=True)
    _span_links(store, thread_id, row, found.spans)
    if note := lifecycle_note(found.spans):
        st.caption(literal(note))
    shown = _span_thumbnails(store.url, thread_id, state.checkpoint_ns, state.checkpoint_id,
                            connection.settings().data_dir, data.read_as(store, thread_id), found, store)
    with st.container(key="images-over-time"):
        columns = st.columns(4)
        for i, (caption, thumb, problems) in enumerate(shown):
            with columns[i % 4]:
                if thumb is not None:
                    st.image(thumb, caption=literal(caption), output_format="PNG")
                else:
                    st.caption(literal(f"{caption} ({'; '.join(problems)})"))
