"""viewed_images checks on real images made by Pillow, in both entry shapes."""

from __future__ import annotations

import base64
import hashlib
import io
from pathlib import Path

import pytest
from PIL import Image

from inspector.media import images
from inspector.media.located import NOT_FOUND
from inspector.profiles.deerflow.files import viewed_images
from inspector.profiles.deerflow.files.user_data import locate


def encode(fmt: str, size=(64, 48), colour=(200, 30, 30), mode="RGB") -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, colour if mode == "RGB" else 0).save(out, format=fmt)
    return out.getvalue()


def b64_entry(data: bytes, mime: str) -> dict:
    return {"base64": base64.b64encode(data).decode(), "mime_type": mime}


@pytest.fixture
def thread_folders(tmp_path: Path):
    root = tmp_path / "threads" / "t1" / "user-data"
    for folder in ("workspace", "uploads", "outputs"):
        (root / folder).mkdir(parents=True)
    return locate("t1", bases=[tmp_path])


def test_png_and_jpeg_report_real_format_and_dimensions():
    png = viewed_images.check_entry("/mnt/user-data/uploads/a.png", b64_entry(encode("PNG"), "image/png"))
    jpeg = viewed_images.check_entry("/mnt/user-data/uploads/b.jpg", b64_entry(encode("JPEG", (30, 20)), "image/jpeg"))
    assert (png.format, png.width, png.height, png.problems, png.decoded) == ("PNG", 64, 48, [], True)
    assert (jpeg.format, jpeg.mime_type, jpeg.width, jpeg.height, jpeg.problems) == ("JPEG", "image/jpeg", 30, 20, [])
    assert png.byte_size == len(encode("PNG")) and png.shape == "base64"
    assert png.stored_chars == len(b64_entry(encode("PNG"), "image/png")["base64"])


def test_png_declared_as_jpeg_is_flagged_but_still_shown():
    check = viewed_images.check_entry("x.jpg", b64_entry(encode("PNG"), "image/jpeg"))
    assert check.format == "PNG" and check.decoded
    assert any("declared image/jpeg" in p and "PNG" in p for p in check.problems)


def test_mime_aliases_are_not_flagged():
    check = viewed_images.check_entry("x.jpg", b64_entry(encode("JPEG"), "image/jpg"))
    assert check.problems == []


def test_invalid_base64_is_a_problem_not_an_error():
    check = viewed_images.check_entry("x.png", {"base64": "not*base64!", "mime_type": "image/png"})
    assert not check.decoded and check.format is None
    assert any("invalid base64" in p for p in check.problems)


def test_bytes_that_are_no_image():
    check = viewed_images.check_entry("x.png", b64_entry(b"hello, not a picture", "image/png"))
    assert not check.decoded and any("not an image in a shown format" in p for p in check.problems)


def test_formats_handled_by_outside_programs_are_never_opened():
    out = io.BytesIO()
    Image.new("RGB", (20, 20), "red").save(out, format="EPS")
    assert out.getvalue().startswith(b"%!PS")
    check = viewed_images.check_entry("x.eps", b64_entry(out.getvalue(), "application/postscript"))
    assert not check.decoded and check.format is None
    assert any("not an image in a shown format" in p for p in check.problems)


def test_truncated_png_is_refused():
    noisy = Image.frombytes("RGB", (300, 300), bytes(range(256)) * 1054 + bytes(276))
    out = io.BytesIO()
    noisy.save(out, format="PNG")
    data = out.getvalue()
    check = viewed_images.check_entry("x.png", b64_entry(data[: len(data) // 2], "image/png"))
    assert not check.decoded
    assert any("truncated or corrupt" in p for p in check.problems)
    assert viewed_images.entry_thumbnail("x.png", b64_entry(data[: len(data) // 2], "image/png"), check) is None


def test_truncated_jpeg_is_refused():
    noisy = Image.frombytes("RGB", (200, 200), bytes((i * 7) % 256 for i in range(120_000)))
    out = io.BytesIO()
    noisy.save(out, format="JPEG")
    data = out.getvalue()
    check = viewed_images.check_entry("x.jpg", b64_entry(data[: len(data) // 3], "image/jpeg"))
    assert not check.decoded and any("truncated or corrupt" in p for p in check.problems)


def test_image_over_the_pixel_limit_is_not_decoded():
    small_limit = viewed_images.check_entry("x.png", b64_entry(encode("PNG", (100, 100)), "image/png"), max_pixels=5_000)
    assert not small_limit.decoded and (small_limit.width, small_limit.height) == (100, 100)
    assert any("over the pixel limit" in p for p in small_limit.problems)


def test_default_pixel_limit_stops_a_decompression_bomb():
    side = int(images.MAX_IMAGE_PIXELS ** 0.5) + 100  # just over the limit; mode "1" compresses to almost nothing
    out = io.BytesIO()
    Image.new("1", (side, side)).save(out, format="PNG")
    assert len(out.getvalue()) < images.MAX_IMAGE_PIXELS // 100
    check = viewed_images.check_entry("bomb.png", b64_entry(out.getvalue(), "image/png"))
    assert not check.decoded and any("over the pixel limit" in p for p in check.problems)


def test_pillow_global_limit_is_untouched():
    before = Image.MAX_IMAGE_PIXELS
    viewed_images.check_entry("x.png", b64_entry(encode("PNG"), "image/png"), max_pixels=10)
    assert before == Image.MAX_IMAGE_PIXELS


def test_file_entry_read_from_disk(thread_folders):
    data = encode("PNG", (40, 30))
    physical = thread_folders.folders["uploads"] / "chart.png"
    physical.write_bytes(data)
    entry = {"mime_type": "image/png", "size": len(data), "actual_path": str(physical),
             "sha256": hashlib.sha256(data).hexdigest()}
    check = viewed_images.check_entry("/mnt/user-data/uploads/chart.png", entry, thread_folders)
    assert check.shape == "file" and check.problems == [] and (check.width, check.height) == (40, 30)
    assert check.physical_path == str(physical.resolve())


def test_file_entry_falls_back_to_the_agent_path_when_actual_path_is_elsewhere(thread_folders, tmp_path):
    data = encode("JPEG")
    (thread_folders.folders["uploads"] / "b.jpg").write_bytes(data)
    entry = {"mime_type": "image/jpeg", "size": len(data), "actual_path": "/srv/other-machine/b.jpg"}
    check = viewed_images.check_entry("/mnt/user-data/uploads/b.jpg", entry, thread_folders)
    assert check.decoded and check.problems == []


def test_file_entry_size_disagreeing_with_the_file(thread_folders):
    data = encode("PNG")
    physical = thread_folders.folders["uploads"] / "c.png"
    physical.write_bytes(data)
    entry = {"mime_type": "image/png", "size": len(data) + 10, "actual_path": str(physical), "sha256": "0" * 64}
    check = viewed_images.check_entry("/mnt/user-data/uploads/c.png", entry, thread_folders)
    assert any(f"declared size {len(data) + 10:,}" in p for p in check.problems)
    assert any("sha256" in p for p in check.problems)


def test_missing_file(thread_folders):
    entry = {"mime_type": "image/png", "size": 10,
             "actual_path": str(thread_folders.folders["uploads"] / "gone.png")}
    check = viewed_images.check_entry("/mnt/user-data/uploads/gone.png", entry, thread_folders)
    assert not check.decoded and check.problems == [NOT_FOUND]


def test_a_folder_is_never_read_as_an_image(thread_folders):
    folder = thread_folders.folders["uploads"] / "dir.png"
    folder.mkdir()
    entry = {"mime_type": "image/png", "size": 10, "actual_path": str(folder)}
    check = viewed_images.check_entry("/mnt/user-data/uploads/dir.png", entry, thread_folders)
    assert not check.decoded and any("not a regular file (a folder)" in p for p in check.problems)


def test_actual_path_outside_the_thread_is_never_read(thread_folders):
    entry = {"mime_type": "image/png", "size": 10, "actual_path": "/etc/passwd"}
    check = viewed_images.check_entry("/mnt/user-data/uploads/none.png", entry, thread_folders)
    assert any("actual_path refused" in p for p in check.problems)
    assert check.physical_path != "/etc/passwd" and check.byte_size is None


def test_file_entry_without_folders_says_where_to_look():
    check = viewed_images.check_entry("/mnt/user-data/uploads/a.png", {"mime_type": "image/png", "actual_path": "/x/a.png"})
    assert any("--data-dir" in p for p in check.problems)


def test_odd_values_become_problems():
    assert viewed_images.check_viewed_images(None) == [] and viewed_images.check_viewed_images({}) == []
    [odd] = viewed_images.check_viewed_images(["a"])
    assert "not an object" in odd.problems[0]
    [entry] = viewed_images.check_viewed_images({"k": "just a string"})
    assert "not an object" in entry.problems[0]


def test_thumbnail_is_a_small_png_made_once_per_content():
    data = encode("JPEG", (1200, 800))
    entry = b64_entry(data, "image/jpeg")
    check = viewed_images.check_entry("big.jpg", entry)
    first = viewed_images.entry_thumbnail("big.jpg", entry, check)
    with Image.open(io.BytesIO(first)) as thumb:
        assert thumb.format == "PNG" and max(thumb.size) <= max(images.THUMBNAIL_SIZE)
    assert images.cached_thumbnail(check.sha256) == first
    assert viewed_images.entry_thumbnail("big.jpg", entry, check) is first  # from the cache, not re-made


def test_thumbnail_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(images, "THUMBNAIL_CACHE_ENTRIES", 3)
    made = [encode("PNG", (8, 8), colour=(shade, shade, shade)) for shade in range(6)]
    for data in made:
        images.thumbnail(data)
    held = [images.cached_thumbnail(images.sha256_of(data)) is not None for data in made]
    assert held == [False, False, False, True, True, True]  # the oldest made way for the newest
