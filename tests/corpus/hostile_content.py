"""A checkpoint store full of content crafted to make a browser load things from another host.

``write_hostile_store(out_dir, tracker)`` writes ``out_dir/hostile.db`` with
LangGraph's ``SqliteSaver``: a real graph over DeerFlow's ``ThreadState`` whose
messages, tool calls and results, title, todos, artifacts, uploads, viewed_images,
sandbox, run metadata, interrupt and node names carry Markdown images, raw HTML
(``<img>``, ``<script>``, ``<iframe>``, ``<link>``, ``<style>@import``, CSS
``url()``, SVG with an outside ``href``), autolinks, bare URLs, LaTeX links and
tricks that break out of code spans or fences; and a second thread, written
through the saver's own ``put``/``put_writes``, whose thread id, checkpoint ids,
namespace, metadata and channel names carry them too. Every file the state names
exists in the thread's folder (Markdown, HTML, SVG, CSV, JSON, a real PNG).

Every URL points at ``tracker`` (an HTTP server of the test's own on another port,
so another origin) or at hosts under ``.invalid``: a test that records requests
sees any of them that a page makes.
"""

from __future__ import annotations

import base64
import io
import json
import sqlite3
from pathlib import Path
from typing import Annotated, NotRequired

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt
from PIL import Image

from inspector.schema.thread_state import ThreadState

CONVERSATION_THREAD = "hostile-conversation"
# Thread, checkpoint and namespace names written straight through the saver.
CRAFTED_THREAD = "crafted ![tid](http://thread-id.invalid/t.png) <img src=//thread-id.invalid/i.png>"
CRAFTED_NS = "![ns](//ns.invalid/n.png)"
OFFSITE_HOSTS = (".invalid",)


def payloads(tracker: str) -> dict[str, str]:
    """Named snippets, each of which loads ``tracker`` (or a ``.invalid`` host) when rendered as raw Markdown/HTML."""
    t = tracker.rstrip("/")
    return {
        "md-image": f"![pixel]({t}/md-image.png?who=support)",
        "md-image-title": f'![pixel]({t}/md-image-title.png "title")',
        "md-image-angle": f"![pixel](<{t}/md-image-angle.png>)",
        "md-image-nested": f"![a [nested] alt]({t}/md-image-nested.png)",
        "ref-image": f"![ref image][trk]\n\n[trk]: {t}/ref-image.png",
        "shortcut-image": f"![trk2]\n\n[trk2]: {t}/shortcut-image.png",
        "image-in-link": f"[![x]({t}/image-in-link.png)]({t}/link-target)",
        "html-img": f'<img src="{t}/html-img.png">',
        "html-img-srcset": f'<img srcset="{t}/srcset.png 1x">',
        "script": f'<script src="{t}/script.js"></script>',
        "iframe": f'<iframe src="{t}/iframe.html"></iframe>',
        "link-css": f'<link rel="stylesheet" href="{t}/style.css">',
        "style-import": f'<style>@import url("{t}/import.css");</style>',
        "css-url": f'<div style="background-image:url({t}/css-url.png)">styled</div>',
        "svg-image": f'<svg xmlns="http://www.w3.org/2000/svg"><image href="{t}/svg-image.png"/></svg>',
        "svg-use": f'<svg><use xlink:href="{t}/svg-use.svg#a"/></svg>',
        "video": f'<video poster="{t}/poster.png" src="{t}/video.mp4"></video>',
        "object": f'<object data="{t}/object.bin"></object><embed src="{t}/embed.bin">',
        "meta-refresh": f'<meta http-equiv="refresh" content="0;url={t}/meta-refresh">',
        "base-tag": f'<base href="{t}/base/">',
        "autolink": f"<{t}/autolink>",
        "bare-url": f"see {t}/bare-url and www.bare-www.invalid/x",
        "email": "mail someone@mail.invalid",
        "link": f"[innocent text]({t}/link)",
        "javascript-link": f"[click](javascript:fetch('{t}/javascript'))",
        "katex": f"$\\href{{{t}/katex}}{{x}}$ and $$\\includegraphics{{{t}/katex.png}}$$",
        "entity-html": f"&lt;img src={t}/entity.png&gt;",
        "backslash": f"\\![x]({t}/backslash.png)",
        "code-breakout": f"a` ![x]({t}/code-breakout.png) `b",
        "table-pipe": f"| `a | ![x]({t}/table-pipe.png) | b` |\n|---|---|---|\n| 1 | 2 | 3 |",
        "list-fence": f"- item\n  ```\n![x]({t}/list-fence.png)\n```",
        "cr-heading": f"`x\r# ![x]({t}/cr-heading.png)\r`",
        "directive": f":red[colored] :material/warning: ![x]({t}/directive.png)",
        "data-uri-svg": "![x](data:image/svg+xml;base64,"
                        + base64.b64encode(
                            f'<svg xmlns="http://www.w3.org/2000/svg"><image href="{t}/data-uri.png"/></svg>'.encode()
                        ).decode()
                        + ")",
    }


def hostile_markdown(tracker: str) -> str:
    """Every payload in one Markdown text, with a line of ordinary formatting first."""
    return "## Report\n\nSome **bold** text and `code`.\n\n" + "\n\n".join(payloads(tracker).values())


def _png(color: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (24, 16), color).save(out, "PNG")
    return out.getvalue()


def _svg(tracker: str) -> bytes:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
            f'<image href="{tracker}/svg-file.png" width="10" height="10"/>'
            f'<use xlink:href="{tracker}/svg-file-use.svg#a"/>'
            f'<style>@import url("{tracker}/svg-file.css");</style></svg>').encode()


class HostileState(ThreadState):
    notes: NotRequired[Annotated[dict, lambda a, b: {**(a or {}), **(b or {})}]]


def _files(out: Path, thread_id: str, tracker: str) -> dict[str, str]:
    """The thread's folders, with one file of each kind the artifacts panel previews."""
    root = out / "threads" / thread_id / "user-data"
    folders = {f"{name}_path": str(root / name) for name in ("workspace", "uploads", "outputs")}
    for folder in folders.values():
        Path(folder).mkdir(parents=True, exist_ok=True)
    md = hostile_markdown(tracker)
    outputs, uploads = Path(folders["outputs_path"]), Path(folders["uploads_path"])
    (outputs / "report.md").write_text(md)
    (outputs / "page.html").write_text(f"<html><body>{md}</body></html>")
    (outputs / "pic.svg").write_bytes(_svg(tracker))
    (outputs / "data.csv").write_text(
        f'"![h]({tracker}/csv-header.png)",b\n"<img src={tracker}/csv-cell.png>",{tracker}/csv-url\n')
    (outputs / "data.json").write_text(json.dumps([{"<img src=x>": f"![j]({tracker}/json.png)"}]))
    (outputs / "chart.png").write_bytes(_png())
    (outputs / f"![name]({tracker.split('//')[-1]}-name.png).md").write_text(md)
    (uploads / "evil.svg").write_bytes(_svg(tracker))
    (uploads / "ok.png").write_bytes(_png((20, 120, 200)))
    return folders


def _graph(saver: SqliteSaver, tracker: str, folders: dict[str, str]):
    p = payloads(tracker)
    md = hostile_markdown(tracker)
    node = "writer ![node](//node-name.invalid/n.png)"
    svg_b64 = base64.b64encode(_svg(tracker)).decode()
    png_b64 = base64.b64encode(_png()).decode()

    def agent(state: dict) -> dict:
        calls = [{"name": f"search ![tool]({tracker}/tool-name.png)", "id": "call-1",
                  "args": {"query": p["md-image"], "html": p["html-img"], "url": f"{tracker}/arg-url"}}]
        parts = [{"type": "text", "text": md},
                 {"type": "image_url", "image_url": {"url": f"{tracker}/image-part.png"}},
                 {"type": "image_url", "image_url": {"url": f"data:image/svg+xml;base64,{svg_b64}"}}]
        return {"messages": [AIMessage(parts, tool_calls=calls, id="ai-1", name=f"![n]({tracker}/ai-name.png)")]}

    def tools(state: dict) -> dict:
        return {"messages": [ToolMessage(md, tool_call_id="call-1", name=f"<img src={tracker}/tool-msg-name.png>",
                                         id="tool-1", status="error")]}

    def write(state: dict) -> dict:
        out = "/mnt/user-data/outputs"
        return {
            "title": f"{p['md-image']} {p['html-img']} title",
            "todos": [{"content": p["md-image"], "status": "in_progress"},
                      {"content": p["html-img"], "status": f"![st]({tracker}/todo-status.png)"},
                      {"title": p["autolink"], "status": "pending", "id": p["link"]},
                      p["script"]],
            "artifacts": [f"{out}/report.md", f"{out}/page.html", f"{out}/pic.svg", f"{out}/data.csv",
                          f"{out}/data.json", f"{out}/chart.png",
                          f"{out}/![name]({tracker.split('//')[-1]}-name.png).md",
                          f"{out}/missing ![m]({tracker}/missing.png).md"],
            "uploaded_files": [{"filename": p["html-img"], "size": 3, "path": "/mnt/user-data/uploads/evil.svg",
                                "extension": p["md-image"]}],
            "viewed_images": {
                f"/mnt/user-data/uploads/![v]({tracker}/vi-key.png)": {"base64": svg_b64, "mime_type": "image/svg+xml"},
                "/mnt/user-data/uploads/evil.svg": {"mime_type": "image/svg+xml", "size": 10,
                                                    "actual_path": f"{folders['uploads_path']}/evil.svg"},
                "/mnt/user-data/uploads/ok.png": {"base64": png_b64, "mime_type": "image/png"},
            },
            "sandbox": {"sandbox_id": p["md-image"]},
            "thread_data": {**folders, p["html-img"]: p["md-image"]},
            "notes": {p["md-image"]: p["iframe"], "nested": {"k": p["css-url"]}},
        }

    def ask(state: dict) -> dict:
        answer = interrupt({"question": f"{p['md-image']} approve? {p['html-img']}",
                            "options": [p["md-image"], p["script"]]})
        return {"title": str(answer)}

    graph = StateGraph(HostileState)
    for name, fn in (("agent", agent), ("tools", tools), (node, write), ("ask", ask)):
        graph.add_node(name, fn)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", "tools")
    graph.add_edge("tools", node)
    graph.add_edge(node, "ask")
    graph.add_edge("ask", END)
    return graph.compile(checkpointer=saver)


def _crafted_thread(saver: SqliteSaver, tracker: str) -> None:
    """Thread id, checkpoint ids, namespace, metadata and channel names from the payloads, through ``put``."""
    p = payloads(tracker)
    parent = None
    for step, (ns, checkpoint_id) in enumerate([
        ("", f"1f0-cp-0000 {p['md-image']}"),
        ("", f"1f0-cp-0001 <img src={tracker}/cp-id.png>"),
        (CRAFTED_NS, "1f0-cp-ns-0000"),
    ]):
        checkpoint = empty_checkpoint()
        checkpoint["id"] = checkpoint_id
        checkpoint["channel_values"] = {"messages": [HumanMessage(p["md-image"], id=f"m-{step}")],
                                        f"chan {p['html-img']}": p["md-image"], "title": p["link"]}
        checkpoint["channel_versions"] = {name: step + 1 for name in checkpoint["channel_values"]}
        config = {"configurable": {"thread_id": CRAFTED_THREAD, "checkpoint_ns": ns,
                                   **({"checkpoint_id": parent} if parent and not ns else {})}}
        metadata = {"source": f"![src]({tracker}/source.png)", "step": step, "parents": {},
                    p["md-image"]: p["html-img"]}
        saved = saver.put(config, checkpoint, metadata, checkpoint["channel_versions"])
        saver.put_writes(saved, [("messages", [AIMessage(p["md-image"], id=f"w-{step}")]),
                                 (f"branch:to:{p['md-image']}", None)], task_id=f"task ![t]({tracker}/task.png)")
        if not ns:
            parent = checkpoint_id


def write_hostile_store(out_dir: str | Path, tracker: str) -> Path:
    """Write ``out_dir/hostile.db`` and the threads' folders; returns the database path."""
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    db = out / "hostile.db"
    db.unlink(missing_ok=True)
    folders = _files(out, CONVERSATION_THREAD, tracker)
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        graph = _graph(saver, tracker, folders)
        config = {"configurable": {"thread_id": CONVERSATION_THREAD},
                  "metadata": {"user_note": payloads(tracker)["md-image"], "run ![k](//meta-key.invalid/k.png)": 1}}
        graph.invoke({"messages": [HumanMessage(hostile_markdown(tracker), id="human-1")]}, config)
        _crafted_thread(saver, tracker)
        conn.commit()
    finally:
        conn.close()
    return db


def is_offsite(url: str, origin: str) -> bool:
    """True for a request that leaves ``origin`` (data: and blob: URLs stay in the page)."""
    if url.startswith(("data:", "blob:", "about:")):
        return False
    return not (url == origin or url.startswith(origin.rstrip("/") + "/"))


__all__ = ["CONVERSATION_THREAD", "CRAFTED_NS", "CRAFTED_THREAD", "hostile_markdown", "is_offsite",
           "payloads", "write_hostile_store"]


if __name__ == "__main__":  # python tests/corpus/hostile_content.py OUT_DIR TRACKER_URL
    import sys

    print(write_hostile_store(sys.argv[1], sys.argv[2]))

