"""What a checkpoint written by LangGraph's ``EncryptedSerializer`` shows, in one line: what is encrypted and
what a key would add (no key given), or that the key given does not decrypt it (a wrong key).

Read from the decoding problems alone (``store.encryption`` kinds), so the thread page and the CLI say the same.
"""

from __future__ import annotations

from ..store import CheckpointState
from ..store.encryption import ENCRYPTED, KEY_HINT, UNDECRYPTED, WRONG_KEY

INSIDE = "are inside it; "  # where a whole-checkpoint problem says why it stays encrypted (``decode``)
NO_KEY_NEEDED = "the timeline, sizes per field, growth, retention and health's size flags need no key"


def _tags(problems: list) -> str:
    tags = sorted({p.message.split("(", 1)[1].split(")", 1)[0].split(",", 1)[0] for p in problems if "(" in p.message})
    return ", ".join(tags) or "encrypted"


def encryption_line(state: CheckpointState) -> str | None:
    """One line about this checkpoint's encrypted values, or None when it has none that stayed encrypted."""
    locked = [p for p in state.problems if p.kind == ENCRYPTED and not p.message.startswith("pending write")]
    failed = [p for p in state.problems if p.kind == UNDECRYPTED and not p.message.startswith("pending write")]
    if failed:
        wrong = [p for p in failed if WRONG_KEY in p.message]
        if wrong:
            named = sorted({p.field or "the whole checkpoint" for p in wrong})
            return (f"The AES key given does not decrypt {len(wrong)} encrypted value(s) of this checkpoint "
                    f"({', '.join(named)}): a wrong key, or a damaged value.")
        first = failed[0]
        if first.field is None and INSIDE in first.message:
            return f"The whole checkpoint is one encrypted value that stays opaque: {first.message.split(INSIDE, 1)[1]}."
        why = first.message.split(") ", 1)[-1].removeprefix("shown as opaque: ")
        return f"{len(failed)} encrypted value(s) stay opaque ({', '.join(sorted({p.field or '?' for p in failed}))}): {why}."
    if not locked:
        return None
    whole = any(p.field is None for p in locked)
    what = ("The whole checkpoint is one encrypted value" if whole
            else f"{len(locked)} field value(s) are encrypted")
    shown = ("its size and cipher are shown, and the pending writes by field and size" if whole
             else "they are shown by field, stored size and cipher")
    return (f"{what} ({_tags(locked)}, LangGraph's EncryptedSerializer): {shown}; {NO_KEY_NEEDED}. "
            f"With the key the values are decrypted and read, masked as usual: {KEY_HINT.removesuffix(' to read it')}.")
