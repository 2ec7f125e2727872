"""Every file a DeerFlow state names, as ``media.located.FileRef`` references (``Profile.referenced_files``).

The same references the pages open: ``artifacts`` (the agent's deliverables),
``viewed_images`` entries that name a file rather than hold base64 (with the
``actual_path`` recorded beside one), ``uploaded_files`` (``uploads``) and the files
attached to messages (``messages.attachments``: ``additional_kwargs.files``, else an
upload block's list, as the conversation shows them). Nothing is found or read here:
each reference is found by ``media.located`` with its one list of refusals. Values may be
any subset of the state (a support bundle hands one channel at a time, a list one item at
a time); a value of the wrong shape names no file.
"""

from __future__ import annotations

from typing import Any

from ....store.decode import overwritten
from ..messages import attachments
from .uploads import uploaded_files

# The channels whose values name files or the thread's folders (``Profile.file_channels``).
CHANNELS = frozenset({"artifacts", "viewed_images", "uploaded_files", "messages", "thread_data"})


def _value(values: dict[str, Any], name: str) -> Any:
    """A channel's value, unwrapped from LangGraph's ``Overwrite`` (a DeerFlow branch writes its fields so)."""
    value = values.get(name)
    wrapped, inner = overwritten(value)
    return inner if wrapped else value


def _name(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1] or path


def referenced_files(values: dict[str, Any]) -> list[Any]:
    """The files ``values`` name, in the order artifacts, viewed images, uploads, message attachments; a
    reference without a path (an attachment DeerFlow lists by name only) is left out: there is nothing to find."""
    from ....media.located import FileRef

    refs = []
    artifacts = _value(values, "artifacts")
    for path in artifacts if isinstance(artifacts, list) else []:
        if isinstance(path, str) and path:
            refs.append(FileRef(_name(path), path, source="artifacts"))
    images = _value(values, "viewed_images")
    for key, entry in images.items() if isinstance(images, dict) else []:
        if isinstance(key, str) and key and isinstance(entry, dict) and "base64" not in entry:
            actual = entry.get("actual_path")
            refs.append(FileRef(_name(key), key, source="viewed_images",
                                actual_path=actual if isinstance(actual, str) and actual else None))
    uploads = _value(values, "uploaded_files")
    if uploads:
        refs += [ref for ref in uploaded_files({"uploaded_files": uploads}) if ref.path]
    messages = _value(values, "messages")
    for message in messages if isinstance(messages, list) else [messages]:
        if isinstance(message, dict):
            refs += [FileRef(a.filename, a.path, a.size, f"messages ({a.source})")
                     for a in attachments(message) if a.path]
    return refs
