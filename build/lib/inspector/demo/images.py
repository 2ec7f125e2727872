"""Deterministic pictures for the demo threads, drawn with Pillow (no files read, no randomness left unseeded)."""

from __future__ import annotations

import io
import random

from PIL import Image, ImageDraw, ImageFont

PALETTE = ("#4C78A8", "#F58518", "#54A24B", "#E45756", "#72B7B2", "#B279A2")


def _encode(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()


def bar_chart_png(title: str, labels: list[str], values: list[float], size: tuple[int, int] = (560, 320)) -> bytes:
    """A titled bar chart with value labels."""
    width, height = size
    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    draw.text((16, 10), title, fill="#222222", font=font)
    left, top, bottom = 48, 40, height - 36
    draw.line([(left, top), (left, bottom), (width - 16, bottom)], fill="#555555", width=2)
    slot = (width - left - 32) / max(1, len(values))
    peak = max(values) or 1
    for i, (label, value) in enumerate(zip(labels, values)):
        x0 = left + 12 + i * slot
        y0 = bottom - (bottom - top - 16) * value / peak
        draw.rectangle([x0, y0, x0 + slot * 0.6, bottom - 1], fill=PALETTE[i % len(PALETTE)])
        draw.text((x0, y0 - 14), f"{value:g}", fill="#222222", font=font)
        draw.text((x0, bottom + 6), label, fill="#222222", font=font)
    return _encode(image, "PNG")


def diagram_png(boxes: list[str], size: tuple[int, int] = (640, 200)) -> bytes:
    """Boxes joined left to right by arrows: an architecture sketch."""
    width, height = size
    image = Image.new("RGB", size, "#FBFBF8")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    slot = width / len(boxes)
    middle = height // 2
    for i, label in enumerate(boxes):
        x0, x1 = i * slot + 14, (i + 1) * slot - 26
        colour = PALETTE[i % len(PALETTE)]
        draw.rounded_rectangle([x0, middle - 34, x1, middle + 34], radius=10, outline=colour, width=3)
        draw.text((x0 + 10, middle - 6), label, fill="#222222", font=font)
        if i + 1 < len(boxes):
            draw.line([(x1, middle), (x1 + 38, middle)], fill="#444444", width=3)
            draw.polygon([(x1 + 38, middle), (x1 + 30, middle - 6), (x1 + 30, middle + 6)], fill="#444444")
    return _encode(image, "PNG")


def whiteboard_jpeg(seed: int, size: tuple[int, int] = (480, 320)) -> bytes:
    """A photo-like whiteboard: uneven lighting and marker strokes."""
    rng = random.Random(seed)
    width, height = size
    image = Image.linear_gradient("L").resize(size).point(lambda v: 205 + v // 6).convert("RGB")
    draw = ImageDraw.Draw(image)
    for _ in range(24):
        x, y = rng.randrange(20, width - 60), rng.randrange(20, height - 20)
        points = [(x + 8 * k, y + rng.randint(-6, 6)) for k in range(rng.randint(3, 9))]
        draw.line(points, fill=rng.choice(("#1F3A93", "#C0392B", "#1E8449", "#222222")), width=3)
    return _encode(image, "JPEG", quality=85)


def noise_image(seed: int, size: tuple[int, int], fmt: str) -> bytes:
    """Random pixels, which no codec can shrink: a worst case for base64 kept in state."""
    data = random.Random(seed).randbytes(size[0] * size[1] * 3)
    image = Image.frombytes("RGB", size, data)
    if fmt == "PNG":
        return _encode(image, "PNG", compress_level=1)
    return _encode(image, "JPEG", quality=95)


def mime_type_of(name: str) -> str:
    suffix = name.rsplit(".", 1)[-1].lower()
    return {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg"}.get(suffix, "application/octet-stream")
