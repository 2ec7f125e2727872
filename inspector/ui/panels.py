"""What the thread page offers, declared in one place: the state view's field views and the thread panels.

``VIEWS`` names each way of drawing a field, ``view(value, ctx: FieldContext) -> None``
with Streamlit. Which field gets which view is app knowledge: the thread's profile
names it (``Profile.field_views``: DeerFlow's ``thread_data`` gets ``user-data
folders``; any app's ``messages`` the ``conversation``), so a field that shares a
name with DeerFlow's is drawn as DeerFlow's only on a thread read with its profile.
``FIELD_VIEWS`` maps a field name to a view on every thread, over the profile's
choice. Fields without a view are shown as JSON (never dropped). Each view runs
guarded: if it raises, its field shows an error box and the other fields still render.

``THREAD_PANELS`` lists the ``(title, render)`` pairs offered beside a thread's
history, in the order shown; ``render(store, thread_id, selected_row, state)``
gets the open ``Store``, the thread id, the selected ``CheckpointRow`` and its
decoded ``CheckpointState``. Only the chosen panel runs (the first until
another is picked), guarded like a field view.

Both are plain values and the extension point: list a view or panel here, or
edit these from a module's top level (a module runs once per process, so no
guard is needed; code in a page script runs on every rerun and must not)::

    VIEWS["my view"] = my_view               # for a profile to name in its field_views
    FIELD_VIEWS["my_field"] = my_field_view  # or for one field on every thread
    THREAD_PANELS.append(("My panel", render_my_panel))
"""

from __future__ import annotations

from typing import Callable

from .. import profiles
from ..store import CheckpointRow, CheckpointState, Store
from . import diff_view, flow_views, media_views, model_input_view, reveal, routes, sizes_views
from .conversation_view import messages_view
from .field_views import FieldView, sandbox_view, thread_data_view, title_view, todos_view
from .state_view import render_state

Panel = Callable[[Store, str, CheckpointRow, CheckpointState], None]

VIEWS: dict[str, FieldView] = {
    "conversation": messages_view,
    "heading": title_view,
    "todo board": todos_view,
    "sandbox id": sandbox_view,
    "user-data folders": thread_data_view,
    "uploaded files": media_views.uploads_view,
    "artifacts": media_views.artifacts_view,
    "viewed images": media_views.viewed_images_view,
}

FIELD_VIEWS: dict[str, FieldView] = {}


def field_views() -> dict[str, FieldView]:
    """Field -> view for the thread being read: the views its profile names, then ``FIELD_VIEWS``."""
    named = {name: VIEWS[view] for name, view in profiles.field_views().items() if view in VIEWS}
    return {**named, **FIELD_VIEWS}


def conversation_fields() -> list[str]:
    """The fields the thread being read draws as a conversation."""
    return [name for name, view in field_views().items() if view is messages_view]


def state_panel(store: Store, thread_id: str, row: CheckpointRow, state: CheckpointState) -> None:
    """The selected checkpoint's state, field by field, through the views of its profile (``field_views``)."""
    render_state(reveal.shown_state(store, state), store, field_views())


THREAD_PANELS: list[tuple[str, Panel]] = [
    (routes.DEFAULT_PANEL, state_panel),
    ("Diff vs parent", diff_view.render_parent_diff),
    (flow_views.GRID_PANEL, flow_views.flow_grid_panel),
    (flow_views.GRAPH_PANEL, flow_views.graph_panel),
    (flow_views.TIMELINE_PANEL, flow_views.step_timeline_panel),
    (model_input_view.PANEL, model_input_view.model_input_panel),
    (media_views.HISTORY_PANEL, media_views.images_over_time_panel),
    ("Size", sizes_views.size_panel),
]
