"""What an app's chat rules hand the conversation view (``Profile.chat``): a file a message carries and a
subagent's result. The rules themselves are each app's (``profiles.deerflow.messages``; deepagents'
``subagent_result``); a rules object offers any of ``hidden_reason``, ``displayed_text``,
``attachments``, ``reasoning_text``, ``subagent_result`` and ``transient_reason``, and the view uses
what it offers."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Attachment:
    """A file a message carries, as the app's chat UI lists it."""

    filename: str
    size: int | None
    path: str | None
    status: str | None
    source: str  # "additional_kwargs.files" or the upload block it was read from


@dataclass(frozen=True)
class SubagentResult:
    """A subagent's result as an app records it on its ``task`` tool message (DeerFlow's ``subagent_*``
    keys, deepagents' message status), as a subtask card reads it."""

    status: str | None  # the backend's value (completed, failed, cancelled, timed_out, ...)
    pill: str  # what the card shows: completed, failed or in_progress
    stop_reason: str | None = None
    error: str | None = None
    result_brief: str | None = None
    result_sha256: str | None = None
    model_name: str | None = None
    token_usage: dict[str, int] | None = None
    legacy: bool = False  # read from the result text (no subagent_* keys)
    problems: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        """``completed · stopped: token_capped · model gpt-4o · 1,801 tokens (1,234 in, 567 out)``."""
        status = self.status or "no status"
        bits = [status if status == self.pill else f"{status} (shown as {self.pill})"]
        if self.legacy:
            bits.append("read from the result text")
        if self.stop_reason:
            bits.append(f"stopped: {self.stop_reason}")
        if self.model_name:
            bits.append(f"model {self.model_name}")
        if self.token_usage:
            usage = self.token_usage
            bits.append(f"{usage['total_tokens']:,} tokens ({usage['input_tokens']:,} in, {usage['output_tokens']:,} out)")
        return " · ".join(bits)
