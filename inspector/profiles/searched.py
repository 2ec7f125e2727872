"""What a thread's profile says its state holds for the thread search and the thread list: which fields hold
messages, the title and file names (``Profile.searched``), and whether other string values are searched.

What each kind of field holds:

- ``messages``: LangChain messages (``add_messages``); the human and AI text and the AI's tool calls are searched;
- ``title``: the thread's title, a string: searched, and shown by the thread list (read from the state of the
  thread's newest root checkpoint);
- ``files``: file names: a list of paths, or of entries naming ``filename``, ``name`` or ``path``, or a mapping
  keyed by path (deepagents' virtual filesystem).

A profile names its app's fields; the generic base's fill what it leaves out. The base names ``messages`` (read
only when its value looks like LangChain messages) and searches every other top-level string value, since it
knows no app's fields.
"""

from __future__ import annotations

from .profile import Profile, base

KINDS = ("messages", "title", "files")


def searched_fields(profile: Profile) -> dict[str, str]:
    """Field -> kind for a thread read with ``profile``: its own, filled by the base's."""
    return {**base().searched, **profile.searched}


def title_field(profile: Profile) -> str | None:
    """The field holding the thread's title for a thread read with ``profile`` (None: it names none)."""
    return next((name for name, kind in searched_fields(profile).items() if kind == "title"), None)


def decoded_fields(profile: Profile) -> list[str] | None:
    """The channels a search reads of a state read with ``profile`` (None: every channel, for its strings)."""
    return None if profile.searches_strings else sorted(searched_fields(profile))
