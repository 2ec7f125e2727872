"""Image bytes checked with Pillow (format, dimensions, a full load, a pixel cap), base64 decoded, and
cached thumbnails: for any picture a state holds or names. A broken image is a list of problems, never an
exception. DeerFlow's ``viewed_images`` entries are checked with these by ``profiles.deerflow.files.viewed_images``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from PIL import Image, UnidentifiedImageError

# Pillow's own guard warns above Image.MAX_IMAGE_PIXELS and refuses at twice that; the
# inspector applies its own, explicit limit to the header's dimensions before decoding.
MAX_IMAGE_PIXELS = 50_000_000
MAX_IMAGE_FILE_BYTES = 50_000_000
THUMBNAIL_SIZE = (320, 320)
THUMBNAIL_CACHE_ENTRIES = 256

# Only plain raster formats are opened: some Pillow plugins hand data to outside programs
# (EPS runs Ghostscript), which bytes taken from a state must never reach.
ALLOWED_FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF", "ICO")

_MIME_ALIASES = {"image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg", "image/x-png": "image/png"}


@dataclass
class ImageFacts:
    """What Pillow says about some bytes."""

    format: str | None = None
    mime_type: str | None = None
    width: int | None = None
    height: int | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.format is not None


def canonical_mime(mime: Any) -> str | None:
    if not isinstance(mime, str) or not mime.strip():
        return None
    mime = mime.split(";", 1)[0].strip().lower()
    return _MIME_ALIASES.get(mime, mime)


def _open(data: bytes) -> Image.Image:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        return Image.open(io.BytesIO(data), formats=ALLOWED_FORMATS)


def inspect_bytes(data: bytes, max_pixels: int = MAX_IMAGE_PIXELS) -> ImageFacts:
    """Format and dimensions of ``data``, after ``verify()`` and a full ``load()``; problems instead of errors."""
    facts = ImageFacts()
    try:
        with _open(data) as image:
            facts.format, (facts.width, facts.height) = image.format, image.size
            facts.mime_type = Image.MIME.get(image.format or "")
            if facts.width * facts.height > max_pixels:
                facts.problems.append(
                    f"over the pixel limit: {facts.width}x{facts.height} exceeds {max_pixels:,} pixels; not decoded")
                return facts
            image.verify()
        with _open(data) as image:
            image.load()
    except Image.DecompressionBombError as exc:
        facts.problems.append(f"over the pixel limit: {exc}")
    except UnidentifiedImageError:
        facts.problems.append(f"not an image in a shown format ({', '.join(ALLOWED_FORMATS)})")
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        facts.problems.append(f"Pillow refused the image (truncated or corrupt): {exc}")
    return facts


def decode_base64(text: Any) -> bytes:
    """Bytes of a base64 string (a ``data:`` URL prefix is allowed); raises ``ValueError`` when invalid."""
    if not isinstance(text, str):
        raise ValueError(f"base64 is a {type(text).__name__}, not a string")
    if text.startswith("data:") and "," in text:
        text = text.split(",", 1)[1]
    try:
        return base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"invalid base64: {exc}") from None


# -- thumbnails ---------------------------------------------------------------------

_thumbnails: OrderedDict[str, bytes] = OrderedDict()
_thumbnail_lock = threading.Lock()


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _cache_key(digest: str, size: tuple[int, int]) -> str:
    return f"{digest}:{size[0]}x{size[1]}"


def cached_thumbnail(digest: str, size: tuple[int, int] = THUMBNAIL_SIZE) -> bytes | None:
    key = _cache_key(digest, size)
    with _thumbnail_lock:
        if key in _thumbnails:
            _thumbnails.move_to_end(key)
            return _thumbnails[key]
    return None


def thumbnail(data: bytes, size: tuple[int, int] = THUMBNAIL_SIZE) -> bytes:
    """A PNG thumbnail of ``data``, made once per content hash (bounded LRU). Check the image first."""
    digest = sha256_of(data)
    key = _cache_key(digest, size)
    hit = cached_thumbnail(digest, size)
    if hit is not None:
        return hit
    png = _make_thumbnail(data, size)
    with _thumbnail_lock:
        _thumbnails[key] = png
        while len(_thumbnails) > THUMBNAIL_CACHE_ENTRIES:
            _thumbnails.popitem(last=False)
    return png


def _make_thumbnail(data: bytes, size: tuple[int, int]) -> bytes:
    with _open(data) as image:
        image.thumbnail(size)
        if image.mode not in ("RGB", "RGBA", "L", "LA"):
            image = image.convert("RGBA")
        out = io.BytesIO()
        image.save(out, format="PNG")
        return out.getvalue()
