"""DeerFlow's health lints and advice: artifact paths under its outputs folder, image data held in
``viewed_images``, and the middleware its fixes name; its wording (``TEXTS``) of the transient image-context
message, the size what-ifs, a sandbox conflict in replay and a branch thread retention would cut off.

Lints return flag fields (``code``, ``field``, ``checkpoint_ids``, ``summary``, ``why``, ``fix``);
``inspector.sizes.health`` adds the thread and merges what several branches report.
"""

from __future__ import annotations

import posixpath
from typing import Any

from ..flags import Flag
from .files.user_data import VIRTUAL_ROOT as USER_DATA
from .model_input import IMAGE_CONTEXT_PREFIX

OUTPUTS = f"{USER_DATA}/outputs"
# viewed_images entries smaller than this hold a file reference ({mime_type, size, actual_path}, as DeerFlow's
# main branch stores them for the thread's life), not image data.
IMAGE_ENTRY_MIN_BYTES = 1024

Found = dict[str, Any]

TEXTS = {
    "health.unsummarised.fix": "enable summarisation (DeerFlow's SummarizationMiddleware) or trim old messages",
    "health.dangling.fix": "append a ToolMessage for each unanswered call (DeerFlow's DanglingToolCallMiddleware "
                           "does this) or fork from the checkpoint before the call",
    "health.base64.fix": "show images to the model only for the request (not in state), or reference files by path "
                         "(DeerFlow's viewed_images keeps {mime_type, size, actual_path} and reads the bytes from disk)",
    "health.image-context.summary": f"{{count}} transient image message(s) ({IMAGE_CONTEXT_PREFIX}...)",
    "health.image-context.why": "DeerFlow shows viewed images to the model through a hidden message added before the "
                                "model call and removed after it; every checkpoint in between stores the base64 again, "
                                "many times its neighbours' size",
    "health.image-context.fix": "nothing to repair in the thread; to keep the bytes out of the store, run DeerFlow with "
                                "checkpoint_channel_mode: delta (messages stored once, as writes) or prune old checkpoints",
    "what-if.viewed-images": "DeerFlow's main branch keeps metadata-only entries for the thread's life; only entries "
                             "holding base64 make this large",
    "what-if.image-context": "DeerFlow's transient image-context message; keeping image bytes out of checkpointed "
                             "messages would save this",
    "replay.sandbox-conflict": "two different sandboxes in one thread, a sandbox lifecycle bug (DeerFlow fails such a step)",
    "retention.branch.kind": "deerflow-branch",
    "retention.branch.break": "DeerFlow branch thread {branch} was branched from {checkpoint}; that checkpoint would go, "
                              "so the branch would lose the point it came from",
}


def _root(rows: list[Any]) -> list[Any]:
    return sorted((r for r in rows if r.checkpoint_ns == ""), key=lambda r: r.checkpoint_id)


def _image_holdings(rows: list[Any]) -> tuple[dict[str, list[str]], dict[str, str]]:
    """Which root checkpoints hold each image: per ``viewed_images`` entry where the store shows
    entries; otherwise (shared blobs) per unbroken run of checkpoints holding image data."""
    held: dict[str, list[str]] = {}
    labels: dict[str, str] = {}
    run = 0
    for row in _root(rows):
        channel = row.channels.get("viewed_images")
        if channel is not None and channel.items:
            for item in channel.items:
                if item.bytes >= IMAGE_ENTRY_MIN_BYTES:
                    held.setdefault(item.digest, []).append(row.checkpoint_id)
                    labels[item.digest] = item.label
        elif channel is not None and channel.blob_key is not None and channel.bytes >= IMAGE_ENTRY_MIN_BYTES:
            held.setdefault(f"run-{run}", []).append(row.checkpoint_id)
            labels[f"run-{run}"] = "stored images"
        else:
            run += 1
    return held, labels


def uncleared_images(rows: list[Any], settings: Any) -> list[Found]:
    """``viewed_images`` entries holding image data (base64, the documented older shape) still held more
    than N checkpoints after they arrived. Metadata-only entries (DeerFlow's main branch) are not flagged:
    they are small and are meant to stay for the thread's life."""
    held, labels = _image_holdings(rows)
    limit = settings.uncleared_images_after
    overdue = {d: ids for d, ids in held.items() if len(ids) > limit}
    if not overdue:
        return []
    checkpoints = tuple(sorted({cid for ids in overdue.values() for cid in ids[limit:]}))
    names = ", ".join(sorted({labels[d] for d in overdue}))
    longest = max(len(ids) for ids in overdue.values())
    return [dict(
        code="uncleared-images", field="viewed_images", checkpoint_ids=checkpoints,
        summary=f"{len(overdue)} image(s) with base64 data still held {longest} checkpoints after being viewed "
                f"(limit {limit}): {names}",
        why="base64 image data in viewed_images is copied into every later checkpoint; a few images take megabytes "
            "per step",
        fix="store entries as file references ({mime_type, size, actual_path}) and read the bytes from disk when the "
            "model needs them, as DeerFlow's main branch does (its entries stay for the thread's life); "
            "writing {} clears viewed_images (merge_viewed_images still honours it, though DeerFlow's main branch "
            "no longer writes it)",
    )]


def uncleared_image_flags(thread_id: str, rows: list[Any], settings: Any) -> list[Any]:
    """``uncleared_images`` as flags of ``thread_id``."""
    return [Flag(thread_id=thread_id, **found) for found in uncleared_images(rows, settings)]


def _canonical(path: str, thread_data: dict) -> str:
    """An artifact path in agent-visible form: physical outputs folder mapped back, normalised."""
    outputs = (thread_data or {}).get("outputs_path")
    if isinstance(outputs, str) and outputs and path.startswith(outputs.rstrip("/") + "/"):
        path = OUTPUTS + path[len(outputs.rstrip("/")):]
    if not path.startswith("/") and not path.startswith(USER_DATA.lstrip("/")):
        path = posixpath.join(OUTPUTS, path)
    return posixpath.normpath("/" + path.lstrip("/"))


def artifact_flags(state: Any, rows: list[Any]) -> list[Found]:
    """Artifacts outside DeerFlow's outputs folder, and one file presented under several spellings."""
    artifacts = [a for a in state.values.get("artifacts") or [] if isinstance(a, str)]
    thread_data = state.values.get("thread_data") or {}
    found = []
    outside = [a for a in artifacts if not _canonical(a, thread_data).startswith(OUTPUTS + "/")]
    if outside:
        found.append(dict(
            code="artifact-outside-outputs", field="artifacts", checkpoint_ids=(state.checkpoint_id,),
            summary=f"{len(outside)} artifact(s) outside {OUTPUTS}: {', '.join(outside)}",
            why="the UI serves artifacts from the outputs folder; others cannot be downloaded and may leak files",
            fix=f"write deliverables under {OUTPUTS} and present only those paths",
        ))
    spellings: dict[str, list[str]] = {}
    for artifact in artifacts:
        spellings.setdefault(_canonical(artifact, thread_data), []).append(artifact)
    doubled = {canon: names for canon, names in spellings.items() if len(set(names)) > 1}
    if doubled:
        found.append(dict(
            code="artifact-duplicate-path", field="artifacts", checkpoint_ids=(state.checkpoint_id,),
            summary="same file under several spellings: " + "; ".join(" = ".join(dict.fromkeys(n))
                                                                      for n in doubled.values()),
            why="merge_artifacts de-duplicates exact strings only, so the file is listed twice",
            fix="present normalised virtual paths (/mnt/user-data/outputs/name)",
        ))
    return found


VALUE_LINTS = (artifact_flags,)
SIZE_LINTS = (uncleared_images,)
