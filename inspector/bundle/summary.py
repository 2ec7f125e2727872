"""What a support bundle holds, in words: read from its manifest, for the page beside the download and the CLI.

The manifest is the bundle's own record (``writer._manifest``), so the summary says what
the zip holds, not what was meant to go in: the checkpoints and writes copied, the files
included and what named them (``artifacts``, ``viewed_images``, a message's attachment...)
or why there are none (the thread's profile names no files), what was left out and why
(grouped by ``kind``: too big, refused because it leads outside the thread's folder, not
found on this machine, ...), and whether values were masked, where and how many.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..formatting import human_bytes

# ``left_out[].kind`` (``files``, ``writer``, ``rows``) -> how the page names it
KIND_LABELS = {
    "too-big": "too big for one file",
    "budget": "past the bundle's budget for files",
    "refused": "refused: outside the thread's folder",
    "missing": "not found on this machine",
    "not-regular": "not a regular file (a pipe, device or folder)",
    "no-folder": "the thread's folder was not found",
    "unreadable": "unreadable",
    "secret-in-binary": "a binary file holding a secret's shape",
    "rows": "stored rows that could not be kept",
}
OTHER = "other"


def named_by_label(named_by: str) -> str:
    """How a file's ``named_by`` reads in the summary: a message's attachment as ``message attachments``
    (``messages (additional_kwargs.files)``, ``messages (<current_uploads> block)``), a field by its name."""
    return "message attachments" if named_by.startswith("messages") else named_by


@dataclass
class BundleSummary:
    thread_id: str
    checkpoints: int
    writes: int
    namespaces: list[str]
    files: list[dict[str, Any]] = field(default_factory=list)  # path, bytes, masked, named_by
    files_note: str = ""  # why no file was looked for (the thread's profile names none)
    left_out: list[dict[str, Any]] = field(default_factory=list)  # what, count, why, reason
    masked: bool | None = True  # None: the manifest does not say
    masked_where: dict[str, int] = field(default_factory=dict)  # values or files -> how many values masked
    marks: dict[str, int] = field(default_factory=dict)  # kind of secret -> marks

    @property
    def file_bytes(self) -> int:
        return sum(f["bytes"] for f in self.files)

    @property
    def left_out_by_why(self) -> dict[str, int]:
        """How many were left out for each reason, in the order of ``KIND_LABELS``."""
        tally: Counter[str] = Counter()
        for item in self.left_out:
            tally[item["why"]] += item["count"]
        order = [*KIND_LABELS.values(), OTHER]
        return dict(sorted(tally.items(), key=lambda kv: order.index(kv[0])))

    def lines(self) -> list[str]:
        """Four sentences: the rows, the files, what was left out, the masking."""
        subgraphs = len([ns for ns in self.namespaces if ns])
        where = " in the root graph" + (f" and {subgraphs} subgraph namespace(s)" if subgraphs else "")
        rows = f"{self.checkpoints:,} checkpoint(s) and {self.writes:,} write(s){where}."
        if self.files:
            names = ", ".join(f["path"].rsplit("/", 1)[-1] for f in self.files[:8])
            more = f" and {len(self.files) - 8} more" if len(self.files) > 8 else ""
            files = f"{len(self.files)} file(s), {human_bytes(self.file_bytes)} in all: {names}{more}{self._named_by()}."
        else:
            files = f"No files: {self.files_note}." if self.files_note else "No files."
        tally = self.left_out_by_why
        left = ("Left out: " + ", ".join(f"{n} {why}" for why, n in tally.items()) + ".") if tally \
            else "Nothing left out."
        return [rows, files, left, self.masking_line()]

    def _named_by(self) -> str:
        """`` (named by artifacts 3, message attachments 2)``; empty when the manifest does not say."""
        tally = Counter(named_by_label(f["named_by"]) for f in self.files if f.get("named_by"))
        return f" (named by {', '.join(f'{where} {n}' for where, n in tally.items())})" if tally else ""

    def masking_line(self) -> str:
        if self.masked is None:
            return "The manifest does not say whether values were masked: treat them as unmasked."
        if not self.masked:
            return "Values NOT masked: made with reveal, every value is as stored."
        if not self.marks and not self.masked_where:
            return "Values masked by the redaction rules: no secret was found to mask."
        marks = ", ".join(f"{n} {kind}" for kind, n in self.marks.items())
        where = ", ".join(f"{name} ({n})" for name, n in self.masked_where.items())
        masked_files = [f["path"].rsplit("/", 1)[-1] for f in self.files if f["masked"]]
        files = f"; file(s) masked: {', '.join(masked_files)}" if masked_files else ""
        return f"Values masked by the redaction rules: {marks or 'secrets'} in {where or 'the values'}{files}."

    def as_dict(self) -> dict[str, Any]:
        return {"thread_id": self.thread_id, "checkpoints": self.checkpoints, "writes": self.writes,
                "namespaces": list(self.namespaces), "files": list(self.files), "files_note": self.files_note,
                "left_out": list(self.left_out),
                "left_out_by_why": self.left_out_by_why, "masked": self.masked,
                "masked_where": dict(self.masked_where), "marks": dict(self.marks), "lines": self.lines()}


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def summarize(manifest: dict[str, Any]) -> BundleSummary:
    """The summary of a bundle's manifest (as ``write_bundle`` returns it, or read from the zip)."""
    user_data = manifest.get("user_data") if isinstance(manifest.get("user_data"), dict) else {}
    files = [{"path": str(f.get("path")), "bytes": _count(f.get("bytes")), "masked": bool(f.get("redacted")),
              "named_by": f.get("named_by") if isinstance(f.get("named_by"), str) else ""}
             for f in user_data.get("files") or [] if isinstance(f, dict)]
    left_out = [{"what": str(item.get("what")), "count": _count(item.get("count")) or 1,
                 "why": KIND_LABELS.get(item.get("kind"), OTHER), "reason": str(item.get("reason"))}
                for item in manifest.get("left_out") or [] if isinstance(item, dict)]
    redaction = manifest.get("redaction") if isinstance(manifest.get("redaction"), dict) else {}
    return BundleSummary(
        thread_id=str(manifest.get("thread_id")),
        checkpoints=_count(manifest.get("checkpoints")),
        writes=_count(manifest.get("writes")),
        namespaces=[str(ns) for ns in manifest.get("namespaces") or []],
        files=files,
        files_note=user_data["files_note"] if isinstance(user_data.get("files_note"), str) else "",
        left_out=left_out,
        masked=bool(redaction["enabled"]) if "enabled" in redaction else None,
        masked_where={str(k): _count(v) for k, v in (redaction.get("values_masked") or {}).items()},
        marks={str(k): _count(v) for k, v in (redaction.get("marks") or {}).items()},
    )
