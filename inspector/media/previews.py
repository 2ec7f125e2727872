"""A safe preview of one artifact file, by type, from at most its first ``PREVIEW_BYTES``.

Markdown is rendered by the page through ``inspector.safety.inert_text`` (nothing in it
loads), text and source code are shown highlighted, CSV/TSV/JSON become tables,
images go through the thumbnail path, HTML and SVG are shown as source and never
rendered, and anything else is described by its size and type with a download.
"""

from __future__ import annotations

import csv
import io
import json
import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..store.depth import loads
from . import images
from .folders import PathRefused, UserData
from .located import read_head

if TYPE_CHECKING:
    import pandas as pd

PREVIEW_BYTES = 256_000
MAX_DOWNLOAD_BYTES = 200_000_000
MAX_TABLE_ROWS = 1_000

MARKDOWN = {".md", ".markdown"}
TABLES = {".csv": ",", ".tsv": "\t"}
SOURCE = {".html": "html", ".htm": "html", ".svg": "xml", ".xhtml": "html"}
BINARY = {".pdf", ".zip", ".gz", ".tar", ".7z", ".docx", ".xlsx", ".pptx", ".odt", ".epub"}
IMAGES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"}
CODE = {
    ".py": "python", ".js": "javascript", ".ts": "typescript", ".tsx": "tsx", ".jsx": "jsx", ".json": "json",
    ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".sh": "bash", ".sql": "sql", ".css": "css",
    ".xml": "xml", ".java": "java", ".go": "go", ".rs": "rust", ".c": "c", ".h": "c", ".cpp": "cpp",
    ".rb": "ruby", ".ini": "ini", ".txt": "text", ".log": "text", ".jsonl": "json", ".r": "r",
}


@dataclass
class Preview:
    """What the page shows for one file; ``kind`` picks the renderer."""

    kind: str  # markdown, code, source, table, image, binary, error
    size: int = 0
    mime_type: str | None = None
    truncated: bool = False
    text: str | None = None
    language: str | None = None
    table: pd.DataFrame | None = None
    thumbnail: bytes | None = None
    image: images.ImageFacts | None = None
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "size": self.size, "mime_type": self.mime_type, "truncated": self.truncated,
            "language": self.language, "rows": None if self.table is None else len(self.table),
            "columns": None if self.table is None else [str(c) for c in self.table.columns],
            "image": None if self.image is None else {
                "format": self.image.format, "width": self.image.width, "height": self.image.height},
            "problems": list(self.problems),
        }


def _text(head: bytes) -> str | None:
    """``head`` as UTF-8 (a character cut at the end is dropped), or None for binary content."""
    if b"\x00" in head[:8192]:
        return None
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 3:
            return head[: exc.start].decode("utf-8")
        return None


def _complete_lines(text: str, truncated: bool) -> str:
    return text.rsplit("\n", 1)[0] if truncated and "\n" in text else text


def _csv_table(text: str, sep: str, truncated: bool) -> pd.DataFrame:
    import pandas as pd

    return pd.read_csv(io.StringIO(_complete_lines(text, truncated)), sep=sep, nrows=MAX_TABLE_ROWS,
                       dtype=str, keep_default_na=False, quoting=csv.QUOTE_MINIMAL)


def _json_table(value: Any) -> pd.DataFrame | None:
    import pandas as pd

    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return pd.json_normalize(value[:MAX_TABLE_ROWS])
    if isinstance(value, list):
        return pd.DataFrame({"value": [json.dumps(v, ensure_ascii=False) for v in value[:MAX_TABLE_ROWS]]})
    if isinstance(value, dict):
        return pd.DataFrame({"key": list(value), "value": [json.dumps(v, ensure_ascii=False) for v in value.values()]})
    return None


def _table_preview(preview: Preview, text: str, suffix: str) -> Preview:
    import pandas as pd

    try:
        if suffix == ".json":
            if preview.truncated:
                preview.problems.append("too large to read as a table; showing the head as text")
            else:
                preview.table = _json_table(loads(text))
        else:
            preview.table = _csv_table(text, TABLES[suffix], preview.truncated)
    except (ValueError, pd.errors.ParserError) as exc:
        preview.problems.append(f"not readable as a table: {str(exc).splitlines()[0]}")
    preview.kind = "table" if preview.table is not None else "code"
    preview.language = "json" if suffix == ".json" else "text"
    return preview


def _image_preview(preview: Preview, path: Path, user_data: UserData) -> Preview:
    preview.kind, preview.truncated = "image", False
    if preview.size > images.MAX_IMAGE_FILE_BYTES:
        preview.problems.append(f"over the {images.MAX_IMAGE_FILE_BYTES:,}-byte image limit; not decoded")
        return preview
    data, _ = read_head(path, user_data, images.MAX_IMAGE_FILE_BYTES)
    preview.image = images.inspect_bytes(data)
    preview.problems += preview.image.problems
    if preview.image.ok:
        preview.thumbnail = images.thumbnail(data)
    return preview


def preview_file(physical_path: str | Path, user_data: UserData, limit: int = PREVIEW_BYTES) -> Preview:
    """The preview of a file inside the thread's folders; a refused or unreadable file gives an ``error`` preview."""
    path = Path(physical_path)
    suffix = path.suffix.lower()
    mime = mimetypes.guess_type(path.name)[0]
    try:
        head, size = read_head(path, user_data, limit)
    except PathRefused as exc:
        return Preview("error", mime_type=mime, problems=[f"refused: {exc}"])
    except OSError as exc:
        return Preview("error", mime_type=mime, problems=[f"unreadable: {exc.strerror or exc}"])
    preview = Preview("binary", size=size, mime_type=mime, truncated=size > len(head))
    if suffix in IMAGES:
        return _image_preview(preview, path, user_data)
    text = None if suffix in BINARY else _text(head)
    if text is None:
        return preview
    preview.text = text
    if suffix in MARKDOWN:
        preview.kind = "markdown"
    elif suffix in SOURCE:
        preview.kind, preview.language = "source", SOURCE[suffix]
    elif suffix in TABLES or suffix == ".json":
        return _table_preview(preview, text, suffix)
    else:
        preview.kind, preview.language = "code", CODE.get(suffix, "text")
    return preview


def download_bytes(physical_path: str | Path, user_data: UserData) -> bytes:
    """The whole file for a download (re-checked against the thread's folders, capped at ``MAX_DOWNLOAD_BYTES``)."""
    data, size = read_head(physical_path, user_data, MAX_DOWNLOAD_BYTES)
    if size > len(data):
        raise PathRefused(f"file is {size:,} bytes, over the {MAX_DOWNLOAD_BYTES:,}-byte download limit")
    return data
