"""The thread page's links between a branch thread and the thread it was branched from, both ways."""

from __future__ import annotations

import streamlit as st

from ..history.checkpoint_kinds import branch_origin
from ..history.lineage import History
from ..history.location import url_id
from ..history.thread_history import Memo, computed
from ..store import BranchThread, Store
from . import data, routes


@st.cache_data(hash_funcs=data.HASH_FUNCS, ttl=data.TTL, max_entries=data.MAX_ENTRIES, show_spinner=False)
def _branches(url: str, thread_id: str, generation: int, _store: Store) -> list[BranchThread]:
    return data.masked(_store.branch_threads(thread_id))


BRANCHES_NAMED_WHOLE = 20


def render(store: Store, thread_id: str, history: History, memo: Memo = computed) -> None:
    """"Branched from" with a link to the parent checkpoint, and the list of this thread's branches
    (``routes.link`` shows labels as written: thread and checkpoint ids come from the data); ``memo`` keeps the
    origin while the history stays as it was (``ThreadHistory.memo``: it looks at every checkpoint)."""
    origin = memo(("branch_origin",), lambda: branch_origin(node.row for node in history.nodes.values()))
    if origin is not None:
        params = (routes.checkpoint_params(origin.parent_thread_id, origin.parent_checkpoint_id)
                  if origin.parent_checkpoint_id else routes.thread_params(store, origin.parent_thread_id))
        with st.container(key="branched-from"):
            routes.link("thread", f"Branched from {origin.parent_thread_id}"
                        + (f" at checkpoint {origin.parent_checkpoint_id}" if origin.parent_checkpoint_id else ""),
                        params, icon=":material/call_split:")
    branches = _branches(store.url, thread_id, data.generation(store, thread_id), store)
    if branches:
        with st.expander(f"Branches of this thread ({len(branches)})", icon=":material/call_split:",
                         expanded=len(branches) <= 3):
            for i, branch in enumerate(branches):
                label = f"{branch.thread_id}: from checkpoint {branch.parent_checkpoint_id or '?'}"
                if branch.created_at:
                    label += f", created {branch.created_at}"
                # the first ones named whole (their keys read, cached); the rest open on the thread alone
                params = (routes.thread_params(store, branch.thread_id) if i < BRANCHES_NAMED_WHOLE
                          else {"thread": url_id(branch.thread_id)})
                routes.link("thread", label, params, icon=":material/subdirectory_arrow_right:")
