"""DeerFlow (bytedance/deer-flow): its ThreadState and reducers, and what only DeerFlow makes true.

The reducers stay in the shared core (``inspector.schema.thread_state``); this profile
refers to them. It applies to a thread on evidence (``evidence``): DeerFlow's store
(``deerflow.db``, a ``deerflow://`` home), its metadata markers (delta mode, branch
records, run durations), or channels only DeerFlow's ThreadState declares
(``thread_data``, ``sandbox``, ``uploaded_files``, ...). It claims the knowledge pieces
(``KNOWLEDGE``, declared in ``inspector.profiles.pieces``) the core asks ``profiles.knows`` about.

Its modules: ``evidence`` (the clues), ``messages`` and ``model_input`` (its chat UI's rules, the
view-image context), ``checkpoint_kinds`` (its checkpoints outside graph steps, delta marker, branch
origins), ``health`` (its lints and advice); ``files/`` holds everything about its files (user-data
folders, paths, artifacts, uploads, viewed images, the media report; see its ``__init__``).
The modules that read files or the history are imported where they are used, not with the profile.
"""

from __future__ import annotations

from typing import Any

from .. import DEFAULT, Evidence, Profile
from ..pieces import ARTIFACTS, HIDDEN_MESSAGES, USER_DATA, VIEWED_IMAGES
from . import checkpoint_kinds, messages
from .evidence import MARKERS, SHAPES, evidence
from .files import references, uploads
from .health import SIZE_LINTS, TEXTS, VALUE_LINTS

# The pieces of knowledge DeerFlow's profile claims (``inspector.profiles.pieces``).
KNOWLEDGE = frozenset({USER_DATA, VIEWED_IMAGES, ARTIFACTS, HIDDEN_MESSAGES})

# How the state page draws ThreadState's fields (views the UI declares, ``inspector.ui.panels.VIEWS``).
FIELD_VIEWS = {
    "title": "heading",
    "sandbox": "sandbox id",
    "thread_data": "user-data folders",
    "todos": "todo board",
    "uploaded_files": "uploaded files",
    "artifacts": "artifacts",
    "viewed_images": "viewed images",
}


def media() -> Any:
    """DeerFlow's media module (``Profile.media``): its files of one checkpoint, as the pages and the CLI read them."""
    from .files import media_report

    return media_report


def folders(thread_id: str, values: dict[str, Any], metadata: dict[str, Any], data_dir: Any = None,
            store: Any = None) -> tuple[Any, list[str]]:
    """The thread's user-data folders (``user_data.thread_folders``: ``thread_data``, --data-dir, next to the
    store), with those of the threads it was branched from."""
    from .files.user_data import thread_folders

    return thread_folders(thread_id, values.get("thread_data"), metadata, data_dir, store)


PROFILE = Profile(
    name="deerflow",
    title="DeerFlow",
    description="DeerFlow's ThreadState, its nine reducers, user-data folders, viewed images and middleware",
    evidence=Evidence(evidence, SHAPES, markers=frozenset(MARKERS)),
    schema=DEFAULT,
    knowledge=KNOWLEDGE,
    # in delta mode (checkpoint_channel_mode: delta) messages is a DeltaChannel folded with merge_message_writes
    texts={**TEXTS, "delta-fold:messages": "merge_message_writes"},
    value_lints=VALUE_LINTS,
    size_lints=SIZE_LINTS,
    chat=messages,
    checkpoint_kind=checkpoint_kinds.checkpoint_kind,
    delta_marker=checkpoint_kinds.delta_marker,
    uploads=uploads.uploaded_files,
    field_views=FIELD_VIEWS,
    folders=folders,
    referenced_files=references.referenced_files,
    file_channels=references.CHANNELS,
    searched={"messages": "messages", "title": "title", "uploaded_files": "files", "artifacts": "files"},
    media=media,
)
