"""The clues that DeerFlow wrote a thread: its store, its metadata markers, its ThreadState's channels."""

from __future__ import annotations

from ...schema.default import default_fields
from .. import ThreadFacts

STORE_FILE = "deerflow.db"
# Metadata keys only DeerFlow writes: delta mode, branch threads, run durations.
MARKERS = ("deerflow_checkpoint_channel_mode", "branch_parent_thread_id", "run_durations")
# ThreadState channels no generic agent declares (``messages``, ``todos``, ``title``, ``artifacts`` are common names).
DISTINCTIVE = frozenset({"sandbox", "thread_data", "uploaded_files", "viewed_images", "promoted", "delegations",
                         "skill_context", "goal", "summary_text", "background_tasks"})
DISTINCTIVE_NEEDED = 2


def evidence(facts: ThreadFacts) -> list[str]:
    """Short phrases naming what in ``facts`` shows DeerFlow; empty when nothing does.

    The store alone (``deerflow.db``, ``deerflow://``) or one marker suffices; channels count
    when at least two of ThreadState's distinctive ones are present."""
    clues: list[str] = []
    store = facts.store_file == STORE_FILE or facts.store_url.startswith("deerflow:")
    if store:
        clues.append(STORE_FILE)
    markers = [key for key in MARKERS if facts.metadata_key(key) is not None]
    clues.extend(f"metadata {key}" for key in markers)
    fields = default_fields()
    held = [f for f in fields if f in facts.channels]
    distinctive = [f for f in held if f in DISTINCTIVE]
    if store or markers or len(distinctive) >= DISTINCTIVE_NEEDED:
        if held:
            clues.append(f"{len(held)} of {len(fields)} ThreadState channels")
        return clues
    return []
