"""The demo agent: DeerFlow's middlewares as graph nodes around a scripted model and a ToolNode.

    START -> thread_data -> sandbox -> [before_agent: uploads ...] -> [before_model...] -> agent -> [after_model...]
    -> tools -> [before_model...] -> agent ...   (while the model calls tools)
    -> title -> END
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.channels import DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import _messages_delta_reducer
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode

from inspector.demo.model import Script, ScriptedModel
from inspector.demo.sandbox import make_folders, thread_data_for, virtual_path
from inspector.schema.thread_state import ThreadState

Node = Callable[..., dict]

DELTA_SNAPSHOT_FREQUENCY = 4


class DeltaThreadState(ThreadState):
    """DeerFlow with ``checkpoint_channel_mode: delta``: ``messages`` stored as deltas between snapshots."""

    messages: Annotated[
        list[AnyMessage], DeltaChannel(_messages_delta_reducer, snapshot_frequency=DELTA_SNAPSHOT_FREQUENCY)
    ]


def thread_data_node(base: Path) -> Node:
    """ThreadDataMiddleware: the thread's physical folders."""

    def thread_data(state: dict, config: RunnableConfig) -> dict:
        data = thread_data_for(base, config["configurable"]["thread_id"])
        make_folders(data)
        return {"thread_data": data}

    return thread_data


def sandbox(state: dict) -> dict:
    """SandboxMiddleware: the local sandbox, acquired once per thread."""
    if (state.get("sandbox") or {}).get("sandbox_id"):
        return {}
    return {"sandbox": {"sandbox_id": "local"}}


def uploads_node(announce: Callable[[list[dict]], str], keep_original: bool = False) -> Node:
    """UploadsMiddleware: list this turn's uploads (``uploaded_files``) and put ``announce(entries)`` ahead of
    the user's message; ``keep_original`` records its text as ``original_user_content``, as DeerFlow main does."""

    def uploads(state: dict) -> dict:
        last = state["messages"][-1]
        files = last.additional_kwargs.get("files") if isinstance(last, HumanMessage) else None
        if not files:
            return {"uploaded_files": []}
        entries = [{"filename": f["filename"], "size": f["size"], "path": virtual_path("uploads", f["filename"]),
                    "extension": Path(f["filename"]).suffix} for f in files]
        update: dict = {"content": f"{announce(entries)}\n\n{last.content}"}
        if keep_original:
            update["additional_kwargs"] = {**last.additional_kwargs, "original_user_content": last.content}
        return {"uploaded_files": entries, "messages": [last.model_copy(update=update)]}

    return uploads


def uploaded_files_block(entries: list[dict]) -> str:
    """The documented (older) ``<uploaded_files>`` block."""
    listing = "\n".join(f"- {e['filename']} ({e['size'] / 1024:.1f} KB)\n  Path: {e['path']}" for e in entries)
    intro = "The following files have been uploaded and are available for use:"
    return f"<uploaded_files>\n{intro}\n\n{listing}\n</uploaded_files>"


uploads = uploads_node(uploaded_files_block)


def inject_viewed_images(state: dict, config: RunnableConfig) -> dict:
    """ViewImageMiddleware (documented version): show viewed images to the model, then clear them with ``{}``."""
    messages, viewed = state["messages"], state.get("viewed_images") or {}
    if not viewed or not isinstance(messages[-1], ToolMessage):
        return {}
    blocks: list[dict] = [{"type": "text", "text": "Here are the images you've viewed:"}]
    for path, image in viewed.items():
        blocks.append({"type": "text", "text": f"\n- **{path}** ({image['mime_type']})"})
        url = f"data:{image['mime_type']};base64,{image['base64']}"
        blocks.append({"type": "image_url", "image_url": {"url": url}})
    number = sum(isinstance(m, AIMessage) for m in messages)
    # hidden from the chat, as DeerFlow marked it while viewed_images still held base64
    injected = HumanMessage(blocks, id=f"{config['configurable']['thread_id']}-images-{number}",
                            additional_kwargs={"hide_from_ui": True})
    return {"messages": [injected], "viewed_images": {}}


def summarize_node(summary: str, after_messages: int) -> Node:
    """SummarizationMiddleware: write ``summary_text`` once the conversation is long enough."""

    def summarize(state: dict) -> dict:
        if state.get("summary_text") or len(state["messages"]) < after_messages:
            return {}
        return {"summary_text": summary}

    return summarize


def title_node(title: str) -> Node:
    """TitleMiddleware: name the thread after its first exchange."""

    def set_title(state: dict) -> dict:
        return {} if state.get("title") else {"title": title}

    return set_title


def agent_node(model: ScriptedModel) -> Node:
    def agent(state: dict) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    return agent


def _route(state: dict) -> str:
    return "tools" if state["messages"][-1].tool_calls else "title"


def build_agent(
    script: Script,
    base: Path,
    checkpointer: BaseCheckpointSaver,
    *,
    tools: Sequence,
    schema: type = ThreadState,
    before_agent: Sequence[tuple[str, Node]] = (("uploads", uploads),),
    before_model: Sequence[tuple[str, Node]] = (("view_image_middleware", inject_viewed_images),),
    after_model: Sequence[tuple[str, Node]] = (),
) -> CompiledStateGraph:
    """Compile the agent for ``script`` over ``schema`` with ``checkpointer``."""
    chain: list[tuple[str, Node]] = [
        ("thread_data", thread_data_node(base)),
        ("sandbox", sandbox),
        *before_agent,
        *before_model,
        ("agent", agent_node(ScriptedModel(script))),
        *after_model,
    ]
    graph = StateGraph(schema)
    for name, node in chain:
        graph.add_node(name, node)
    graph.add_node("tools", ToolNode(list(tools)))
    graph.add_node("title", title_node(script.title))
    names = [START] + [name for name, _ in chain]
    for source, target in zip(names, names[1:]):
        graph.add_edge(source, target)
    graph.add_conditional_edges(chain[-1][0], _route, ["tools", "title"])
    graph.add_edge("tools", before_model[0][0] if before_model else "agent")
    graph.add_edge("title", END)
    return graph.compile(checkpointer=checkpointer)
