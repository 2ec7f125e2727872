"""What the thread page offers, declared in one place: the state view's field views and the thread panels.

``FIELD_VIEWS`` maps a state field name to ``view(value, ctx: FieldContext) -> None``,
which draws that field's value with Streamlit. Fields without a view are shown
as JSON (never dropped). Each view runs guarded: if it raises, its field shows
an error box and the other fields still render.

``THREAD_PANELS`` lists the ``(title, render)`` pairs offered beside a thread's
history, in the order shown; ``render(store, thread_id, selected_row, state)``
gets the open ``Store``, the thread id, the selected ``CheckpointRow`` and its
decoded ``CheckpointState``. Only the chosen panel runs (the first until
another is picked), guarded like a field view.

Both are plain values and the extension point: list a view or panel here, or
edit these from a module's top level (a module runs once per process, so no
guard is needed; code in a page script runs on every rerun and must not)::

    FIELD_VIEWS["my_field"] = my_field_view
    THREAD_PANELS.append(("My panel", render_my_panel))
"""

from __future__ import annotations

from typing import Callable

from ..store import CheckpointRow, CheckpointState, Store
from . import diff_view, flow_views, media_views, model_input_view, reveal, routes, sizes_views
from .conversation_view import messages_view
from .field_views import FieldView, sandbox_view, thread_data_view, title_view, todos_view, uploaded_files_view
from .state_view import render_state

Panel = Callable[[Store, str, CheckpointRow, CheckpointState], None]

FIELD_VIEWS: dict[str, FieldView] = {
    "messages": messages_view,
    "title": title_view,
    "sandbox": sandbox_view,
    "thread_data": thread_data_view,
    "todos": todos_view,
    "uploaded_files": uploaded_files_view,
    "artifacts": media_views.artifacts_view,
    "viewed_images": media_views.viewed_images_view,
}


def state_panel(store: Store, thread_id: str, row: CheckpointRow, state: CheckpointState) -> None:
    """The selected checkpoint's state, field by field, through ``FIELD_VIEWS``."""
    render_state(reveal.shown_state(store, state), store, FIELD_VIEWS)


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
