"""Artifacts: flags, first steps on the demo's research thread, and previews by type."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from PIL import Image

from inspector.media.located import NOT_FOUND
from inspector.media.previews import PREVIEW_BYTES, preview_file
from inspector.profiles.deerflow.files.artifacts import list_artifacts
from inspector.profiles.deerflow.files.user_data import locate
from inspector.profiles.media_report import media_report
from inspector.safety.inert_text import inert_markdown
from inspector.store import open_store

OUT = "/mnt/user-data/outputs"


@pytest.fixture
def thread(tmp_path: Path):
    root = tmp_path / "threads" / "t1" / "user-data"
    for folder in ("workspace", "uploads", "outputs"):
        (root / folder).mkdir(parents=True)
    return locate("t1", bases=[tmp_path]), root / "outputs"


def test_flags(thread):
    user_data, outputs = thread
    (outputs / "b.txt").write_text("b")
    (outputs / "a").mkdir()
    (root_upload := outputs.parent / "uploads" / "in.csv").write_text("x\n1\n")
    os.symlink("/etc/hostname", outputs / "host.txt")
    value = [f"{OUT}/b.txt", f"{OUT}/a/../b.txt", f"{OUT}/gone.md", "/mnt/user-data/uploads/in.csv",
             f"{OUT}/../../../etc/passwd", f"{OUT}/host.txt"]
    found = {a.path: a for a in list_artifacts(value, user_data)}
    assert found[f"{OUT}/b.txt"].exists and found[f"{OUT}/b.txt"].size == 1
    assert any("once normalised" in p for p in found[f"{OUT}/b.txt"].problems)
    assert any("once normalised" in p for p in found[f"{OUT}/a/../b.txt"].problems)
    assert found[f"{OUT}/gone.md"].problems == [NOT_FOUND]
    assert found["/mnt/user-data/uploads/in.csv"].exists and root_upload.exists()
    assert any("outside /mnt/user-data/outputs/" in p for p in found["/mnt/user-data/uploads/in.csv"].problems)
    for refused in (f"{OUT}/../../../etc/passwd", f"{OUT}/host.txt"):
        assert found[refused].refused and found[refused].physical_path is None


def test_not_a_list(thread):
    [odd] = list_artifacts("a string", thread[0])
    assert "not a list" in odd.problems[0]
    assert list_artifacts(None) == [] and list_artifacts([]) == []


def test_research_thread_artifacts_and_first_steps(demo_db):
    with open_store(str(demo_db)) as store:
        report = media_report(store, "demo-research")
        rows = [r for r in store.timeline("demo-research") if r.checkpoint_ns == ""]
        by_id = {r.checkpoint_id: r for r in rows}
        artifacts = {a.path: a for a in report.artifacts}
        assert set(artifacts) == {f"{OUT}/report.md", f"{OUT}/comparison.csv", f"{OUT}/price_trend.png"}
        for artifact in artifacts.values():
            assert artifact.exists and artifact.problems == []
            first = by_id[artifact.first_checkpoint]
            parent = store.state("demo-research", first.parent_checkpoint_id)
            assert artifact.path in store.state("demo-research", first.checkpoint_id).values["artifacts"]
            assert artifact.path not in (parent.values.get("artifacts") or [])
        assert artifacts[f"{OUT}/report.md"].first_step < artifacts[f"{OUT}/price_trend.png"].first_step


def test_checkpoint_before_any_artifact_has_none(demo_db):
    with open_store(str(demo_db)) as store:
        oldest = min((r for r in store.timeline("demo-research") if r.checkpoint_ns == ""), key=lambda r: r.step)
        assert media_report(store, "demo-research", oldest.checkpoint_id).artifacts == []


# -- previews ---------------------------------------------------------------------


def test_markdown_preview(thread):
    user_data, outputs = thread
    (outputs / "r.md").write_text("# Title\n\nSome *text*.\n<script>alert(1)</script>\n")
    preview = preview_file(outputs / "r.md", user_data)
    assert preview.kind == "markdown" and preview.text.startswith("# Title") and not preview.truncated


def test_markdown_images_are_not_fetched(thread):
    """The preview keeps the file's text; the page renders it through inert_markdown, where images are text."""
    user_data, outputs = thread
    (outputs / "r.md").write_text("# T\n\n![Trend](price_trend.png) and ![](https://tracker.example/p.gif)\n")
    text = preview_file(outputs / "r.md", user_data).text
    assert "![Trend](price_trend.png)" in text
    tokens = [t for block in MarkdownIt().parse(inert_markdown(text)) for t in [block, *(block.children or [])]]
    assert not [t for t in tokens if t.type == "image"] and any(t.type == "heading_open" for t in tokens)


def test_code_and_text_previews(thread):
    user_data, outputs = thread
    (outputs / "s.py").write_text("print('hi')\n")
    (outputs / "notes").write_text("plain words\n")
    code = preview_file(outputs / "s.py", user_data)
    assert (code.kind, code.language) == ("code", "python")
    assert preview_file(outputs / "notes", user_data).language == "text"


@pytest.mark.parametrize("name,language", [("page.html", "html"), ("logo.svg", "xml")])
def test_html_and_svg_are_shown_as_source(thread, name, language):
    user_data, outputs = thread
    (outputs / name).write_text("<svg onload='alert(1)'><script>alert(2)</script></svg>")
    preview = preview_file(outputs / name, user_data)
    assert (preview.kind, preview.language) == ("source", language) and "<script>" in preview.text


def test_csv_tsv_and_json_become_tables(thread):
    user_data, outputs = thread
    (outputs / "a.csv").write_text("name,price\ncell A,101\ncell B,99\n")
    (outputs / "a.tsv").write_text("name\tprice\ncell A\t101\n")
    (outputs / "a.json").write_text(json.dumps([{"name": "x", "n": {"deep": 1}}, {"name": "y", "n": {"deep": 2}}]))
    csv_table = preview_file(outputs / "a.csv", user_data).table
    assert list(csv_table.columns) == ["name", "price"] and csv_table["price"].tolist() == ["101", "99"]
    assert preview_file(outputs / "a.tsv", user_data).table.shape == (1, 2)
    assert list(preview_file(outputs / "a.json", user_data).table.columns) == ["name", "n.deep"]


def test_large_files_show_their_head(thread):
    user_data, outputs = thread
    rows = "".join(f"row {i},{i}\n" for i in range(60_000))
    (outputs / "big.csv").write_text("label,value\n" + rows)
    (outputs / "big.json").write_text(json.dumps(list(range(100_000))))
    preview = preview_file(outputs / "big.csv", user_data)
    assert preview.truncated and preview.size > PREVIEW_BYTES and preview.kind == "table"
    assert 0 < len(preview.table) <= 1000 and preview.table.iloc[-1]["label"].startswith("row ")
    big_json = preview_file(outputs / "big.json", user_data)
    assert big_json.truncated and big_json.kind == "code" and len(big_json.text) <= PREVIEW_BYTES


def test_broken_json_falls_back_to_text(thread):
    user_data, outputs = thread
    (outputs / "bad.json").write_text("{not json")
    preview = preview_file(outputs / "bad.json", user_data)
    assert preview.kind == "code" and any("not readable as a table" in p for p in preview.problems)


def test_images_get_a_thumbnail(thread):
    user_data, outputs = thread
    out = io.BytesIO()
    Image.new("RGB", (900, 300), "navy").save(out, format="PNG")
    (outputs / "chart.png").write_bytes(out.getvalue())
    preview = preview_file(outputs / "chart.png", user_data)
    assert preview.kind == "image" and (preview.image.width, preview.image.height) == (900, 300)
    with Image.open(io.BytesIO(preview.thumbnail)) as thumb:
        assert thumb.width < 900


def test_pdf_and_binaries_are_described(thread):
    user_data, outputs = thread
    pdf_bytes = b"%PDF-1.7\n% plain-looking header\n"
    (outputs / "doc.pdf").write_bytes(pdf_bytes)
    (outputs / "blob.bin").write_bytes(bytes(range(256)))
    pdf = preview_file(outputs / "doc.pdf", user_data)
    assert (pdf.kind, pdf.mime_type, pdf.size, pdf.text) == ("binary", "application/pdf", len(pdf_bytes), None)
    assert preview_file(outputs / "blob.bin", user_data).kind == "binary"


def test_preview_refuses_files_outside(thread, tmp_path):
    user_data, outputs = thread
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", outputs / "link.txt")
    for path in (tmp_path / "secret.txt", outputs / "link.txt", Path("/etc/passwd")):
        preview = preview_file(path, user_data)
        assert preview.kind == "error" and preview.text is None and "refused" in preview.problems[0]
