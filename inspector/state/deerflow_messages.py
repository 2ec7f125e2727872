"""Moved to ``inspector.profiles.deerflow.messages`` (DeerFlow's chat-UI rules live in its profile); this
name re-exports it while code written against the old path remains."""

from ..profiles.deerflow.messages import *  # noqa: F403
from ..profiles.deerflow.messages import (  # noqa: F401
    Attachment,
    Stripped,
    SubagentResult,
    attachments,
    displayed_text,
    hidden_reason,
    parse_upload_block,
    reasoning_text,
    strip_human_blocks,
    strip_marker_tags,
    subagent_result,
)
