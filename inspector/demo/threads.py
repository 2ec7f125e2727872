"""The demo threads: who says what, which files exist, and how each run is driven."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from inspector.demo import content, images
from inspector.demo.agent import DeltaThreadState, build_agent, summarize_node
from inspector.demo.current import (
    current_uploads,
    durable_context,
    dynamic_context,
    inject_image_context,
    remove_image_context,
)
from inspector.demo.deerflow_writes import (
    branch_thread,
    checkpoint_before_message,
    ensure_thread_checkpoint,
    evaluated_goal,
    new_goal,
    persist_run_durations,
    write_thread_goal,
)
from inspector.demo.langchain_agent import run_langchain_agent
from inspector.demo.model import Script, Turn, act, call, say, user_message
from inspector.demo.sandbox import VIRTUAL_ROOT, make_folders, physical_path, thread_data_for, virtual_path
from inspector.demo.subagent import ResearchAppState, task_delegate, task_subagent
from inspector.demo.tools import CURRENT_TOOLS, DOCUMENTED_TOOLS
from inspector.schema.thread_state import ThreadState

RECURSION_LIMIT = 100
UP = f"{VIRTUAL_ROOT}/uploads"
OUT = f"{VIRTUAL_ROOT}/outputs"


class Demo:
    """Runs scripts against one checkpointer, with thread folders under ``base``."""

    def __init__(self, base: Path, checkpointer: BaseCheckpointSaver):
        self.base = base
        self.checkpointer = checkpointer

    def agent(self, script: Script, **options) -> CompiledStateGraph:
        options.setdefault("tools", DOCUMENTED_TOOLS)
        return build_agent(script, self.base, self.checkpointer, **options)

    def config(self, thread_id: str, metadata: dict | None = None) -> dict:
        config = {"configurable": {"thread_id": thread_id}, "recursion_limit": RECURSION_LIMIT}
        return {**config, "metadata": metadata} if metadata else config

    def upload(self, thread_id: str, name: str, data: bytes) -> dict:
        """What DeerFlow's upload API does: store the file and describe it for the user's message."""
        folders = thread_data_for(self.base, thread_id)
        make_folders(folders)
        physical_path(virtual_path("uploads", name), folders).write_bytes(data)
        return {"filename": name, "size": len(data), "path": virtual_path("uploads", name), "status": "uploaded"}

    def send(self, graph: CompiledStateGraph, script: Script, index: int, metadata: dict | None = None) -> dict:
        files = [self.upload(script.thread_id, name, data) for name, data in script.turns[index].uploads.items()]
        return graph.invoke({"messages": [user_message(script, index, files)]}, self.config(script.thread_id, metadata))

    def chat(self, graph: CompiledStateGraph, script: Script, metadata: dict | None = None) -> None:
        for index in range(len(script.turns)):
            self.send(graph, script, index, metadata)


def _research_todos(*statuses: str) -> list[dict]:
    return [{"id": f"todo-{i}", "title": title, "status": status}
            for i, (title, status) in enumerate(zip(content.RESEARCH_TODOS, statuses), start=1)]


def _plan_todos(*statuses: str) -> list[dict]:
    return [{"content": text, "status": status} for text, status in zip(content.PLAN_TODOS, statuses)]


def research_script() -> Script:
    todos = _research_todos
    uploads = {"cell_prices.csv": content.CELL_PRICES.encode(), "field_notes.md": content.FIELD_NOTES.encode()}
    first = Turn(content.RESEARCH_ASK, uploads=uploads, replies=(
        act("I'll plan this in three steps.", call("write_todos", todos=todos("in_progress", "pending", "pending"))),
        act("Reading both uploads.", call("read_file", path=f"{UP}/cell_prices.csv"),
            call("read_file", path=f"{UP}/field_notes.md")),
        act("Prices and notes read; writing the comparison table.",
            call("write_todos", todos=todos("completed", "in_progress", "pending")),
            call("write_file", path=f"{OUT}/comparison.csv", content=content.COMPARISON_CSV)),
        act("Now the report.", call("write_todos", todos=todos("completed", "completed", "in_progress")),
            call("write_file", path=f"{OUT}/report.md", content=content.REPORT_V1)),
        act("", call("present_files", file_paths=[f"{OUT}/report.md", f"{OUT}/comparison.csv"]),
            call("write_todos", todos=todos("completed", "completed", "completed"))),
        say(content.RESEARCH_ANSWER_1),
    ))
    second = Turn("Add a chart of the pack-price trend to the report.", replies=(
        act("Drawing the chart and linking it from the report.",
            call("render_chart", path=f"{OUT}/price_trend.png", title="Average pack price, USD/kWh",
                 labels=["2021", "2022", "2023", "2024"], values=[141, 161, 139, 115]),
            call("write_file", path=f"{OUT}/report.md", content=content.REPORT_V2)),
        act("", call("present_files", file_paths=[f"{OUT}/report.md", f"{OUT}/price_trend.png"])),
        say("Added `price_trend.png` and a *Price trend* section to the report; the 2022 spike came from "
            "lithium carbonate prices and has fully unwound."),
    ))
    return Script("demo-research", "EV battery chemistries: cost and outlook", (first, second))


def vision_script() -> Script:
    uploads = {"architecture.png": images.diagram_png(["Browser", "Gateway", "Agent", "Sandbox"]),
               "whiteboard.jpg": images.whiteboard_jpeg(seed=7)}
    return Script("demo-vision", "Design review: architecture sketch and whiteboard", (
        Turn(content.VISION_ASK, uploads=uploads, replies=(
            act("Let me look at both images.", call("view_image", image_path=f"{UP}/architecture.png"),
                call("view_image", image_path=f"{UP}/whiteboard.jpg")),
            say(content.VISION_ANSWER),
        )),
        Turn("Which box talks to the sandbox?", replies=(
            say("The **Agent** box: requests flow Browser -> Gateway -> Agent, and only the agent calls the sandbox."),
        )),
    ))


def bloated_script() -> Script:
    shapes = [("PNG", 256), ("JPEG", 320), ("PNG", 256), ("JPEG", 320), ("PNG", 256)]
    scans = {f"scan_{i}.{'png' if fmt == 'PNG' else 'jpg'}": images.noise_image(i, (side, side), fmt)
             for i, (fmt, side) in enumerate(shapes, start=1)}
    views = tuple(act(f"Looking at {name}.", call("view_image", image_path=f"{UP}/{name}")) for name in scans)
    answer = say("No dead pixels: all five scans are uniform sensor noise, as expected for a dark-frame test.")
    return Script("demo-bloated", "Dead-pixel check on five sensor scans", (
        Turn("Check each of these five sensor scans for dead pixels.", uploads=scans, replies=(*views, answer)),
    ))


def time_travel_script() -> Script:
    return Script("demo-time-travel", "Names for a coffee shop", (
        Turn("Suggest three names for a neighbourhood coffee shop.", replies=(
            say("1. **The Daily Grind Corner**\n2. **Steam & Stoop**\n3. **Common Ground Coffee**"),)),
        Turn("Make them shorter: one word each.", replies=(say("1. **Grind**\n2. **Stoop**\n3. **Commons**"),)),
        Turn("Actually, make them French-inspired instead.", replies=(
            say("1. **Le Coin**\n2. **Café Perron**\n3. **Bonne Mouture**"),)),
    ))


def subgraph_script() -> Script:
    return Script("demo-subgraph", "EU Batteries Regulation: 2025 changes", (
        Turn("What changes in the EU Batteries Regulation this year? Keep it short.", replies=(
            act("I'll have a researcher collect the official sources.",
                call("task", description="EU battery rules 2025", subagent_type="general-purpose",
                     prompt="Find what the EU Batteries Regulation requires from 2025 on; cite official sources.")),
            say(content.SUBGRAPH_ANSWER),
        )),
    ))


def interrupt_script() -> Script:
    question = call("ask_clarification", question="Which city should the offsite be in, and for how many people?",
                    clarification_type="missing_info",
                    context="Venue availability and price depend on the city and the headcount.",
                    options=["Berlin, 12 people", "Lisbon, 12 people", "Any city within 2 hours by train"])
    ask = Turn("Book a venue for our team offsite next month.",
               replies=(act("Before I search, I need one detail.", question),))
    return Script("demo-interrupt", "Team offsite venue", (ask,))


def current_script() -> Script:
    todos = _plan_todos
    uploads = {"chart.png": images.bar_chart_png("Logistics cost by month, kEUR", ["Apr", "May", "Jun"],
                                                 [412, 436, 451]),
               "warehouse_board.jpg": images.whiteboard_jpeg(seed=11)}
    ask = "Here are last quarter's cost chart and a photo of the warehouse board. Work out a cost-cutting plan."
    skill = "/mnt/skills/public/cost-analysis/SKILL.md"
    first = Turn(ask, uploads=uploads, replies=(
        act("Loading the cost-analysis skill and making a plan.", call("read_file", path=skill),
            call("write_todos", todos=todos("in_progress", "pending", "pending"))),
        act("", call("view_image", image_path=f"{UP}/chart.png"),
            call("view_image", image_path=f"{UP}/warehouse_board.jpg")),
        act("Costs rise 4-5% a month. Benchmarking freight rates in parallel.",
            call("task", description="Benchmark freight rates", subagent_type="general-purpose",
                 prompt="Compare our per-pallet freight rate (EUR 38) with 2025 market freight rates."),
            call("write_todos", todos=todos("completed", "in_progress", "pending"))),
        act("", call("write_file", path=f"{OUT}/plan.md", content=content.PLAN_MD),
            call("write_todos", todos=todos("completed", "completed", "in_progress"))),
        act("", call("present_files", file_paths=[f"{OUT}/plan.md"])),
        say("The plan is in `plan.md`: renegotiate freight, consolidate pallets, move picking to two shifts."),
    ))
    second = Turn("Which single change saves the most? I may want it as a spreadsheet later.", replies=(
        act("", call("tool_search", query="spreadsheet"),
            call("write_todos", todos=todos("completed", "completed", "completed"))),
        say("Renegotiating freight: about EUR 31k a quarter, more than the other two changes together. "
            "A spreadsheet export is available if you want the numbers."),
    ))
    third = Turn("Draft two lines to the carrier asking for a rate review.", replies=(
        act("", call("tool_search", query="email")),
        say("*Subject: Rate review for Q4.* Our volumes grew 9% this year; we would like to review the per-pallet "
            "rate (EUR 38) against current market levels before the Q4 contract."),
    ))
    return Script("demo-deerflow-current", "Q3 logistics cost-cutting plan", (first, second, third))


def branch_script() -> Script:
    return Script("demo-branch", "Q3 logistics plan, board version", (
        Turn("Turn the plan into three bullets for the board, savings first.", replies=(
            act("", call("write_file", path=f"{OUT}/plan.md", content=content.BOARD_PLAN_MD)),
            act("", call("present_files", file_paths=[f"{OUT}/plan.md"])),
            say("`plan.md` now holds the board version: freight, pallets, shifts, with the savings first."),
        )),
    ))


def long_script() -> Script:
    handbook = {"handbook.md": content.handbook().encode()}
    turns = tuple(
        Turn(f"Summarise section {i} of the handbook.", uploads=handbook if i == 1 else {}, replies=(
            act("", call("read_file", path=f"{UP}/handbook.md", start_line=first, end_line=last)),
            say(f"Section {i}, *{topic}*: {content.summary_of(i, topic)}"),
        ))
        for i, (topic, first, last) in enumerate(content.handbook_sections(), start=1)
    )
    return Script("demo-long", "Onboarding handbook, section by section", turns)


def delta_script() -> Script:
    notes = {"meeting_notes.md": content.FIELD_NOTES.encode()}
    first = Turn("Turn these meeting notes into three action items.", uploads=notes, replies=(
        act("Reading the notes.", call("read_file", path=f"{UP}/meeting_notes.md")),
        act("", call("write_file", path=f"{OUT}/actions.md", content=content.DELTA_ACTIONS)),
        act("", call("present_files", file_paths=[f"{OUT}/actions.md"])),
        say("Three action items are in `actions.md`."),
    ))
    second = Turn("Who owns the second item?", replies=(
        say("The field team lead: the notes assign the cell-supplier follow-up to them."),
    ))
    third = Turn("Add a due date to each item.", replies=(
        act("", call("write_file", path=f"{OUT}/actions.md", content=content.DELTA_ACTIONS_DATED)),
        say("Each item now has a due date within the next two weeks."),
    ))
    return Script("demo-delta", "Action items from meeting notes", (first, second, third))


def _chat(script_of: Callable[[], Script], metadata: dict | None = None, **options) -> Callable[[Demo], None]:
    """A driver that sends every turn of the script (run config ``metadata``) to an agent built with ``options``."""

    def run(demo: Demo) -> None:
        script = script_of()
        demo.chat(demo.agent(script, **options), script, metadata)

    return run


def time_travel(demo: Demo) -> None:
    """Two turns, then the second question is rewritten from the checkpoint that ended turn one."""
    script = time_travel_script()
    graph = demo.agent(script)
    demo.send(graph, script, 0)
    fork_point = graph.get_state(demo.config(script.thread_id)).config
    demo.send(graph, script, 1)
    forked = graph.update_state(fork_point, {"messages": [user_message(script, 2)]}, as_node="__start__")
    graph.invoke(None, {**forked, "recursion_limit": RECURSION_LIMIT})


# Today's DeerFlow: uploads in <current_uploads>, the date and memory as hidden reminders, images sent to the
# model in a transient message removed after the call, subagents run without a checkpointer.
CURRENT = {
    "schema": ThreadState,  # DeerFlow main's: all nine reducers
    "tools": [*CURRENT_TOOLS, task_delegate],
    "before_agent": (("uploads", current_uploads), ("dynamic_context", dynamic_context)),
    "before_model": (("summarization", summarize_node(content.CURRENT_SUMMARY, after_messages=12)),
                     ("durable_context", durable_context), ("view_image_middleware", inject_image_context)),
    "after_model": (("view_image_cleanup", remove_image_context), ("durable_context_after", durable_context)),
}
RUN_SECONDS = {"demo-deerflow-current": (48, 17, 9), "demo-branch": (23,)}
BRANCH_PARENT = "demo-deerflow-current"


def run_id(thread_id: str, index: int) -> str:
    """A stable run id per thread and turn (DeerFlow's are random uuids)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{thread_id}/run/{index}"))


def _runs(demo: Demo, graph: CompiledStateGraph, script: Script,
          after_run: Callable[[int, str], None] = lambda index, run: None) -> None:
    """Every turn as a run; after each, the run-duration checkpoint DeerFlow's worker writes, then ``after_run``."""
    for index, seconds in enumerate(RUN_SECONDS[script.thread_id]):
        run = run_id(script.thread_id, index)
        demo.send(graph, script, index, {"run_id": run})
        persist_run_durations(demo.checkpointer, script.thread_id, {run: seconds})
        after_run(index, run)


def deerflow_current(demo: Demo) -> None:
    """The goal set through DeerFlow's goal API before the first run, evaluated after each run by the goal
    evaluator (not yet met twice, then met and cleared): each a checkpoint written through ``put``.

    The goal is cleared only after the last run: LangGraph 1.2 rebuilds a reducer channel that has a version
    but no stored value from its ancestors, so a run after the clearing would bring the old goal back.
    """
    script, saver = current_script(), demo.checkpointer
    ensure_thread_checkpoint(saver, script.thread_id, "2026-08-21T09:00:00Z")
    goal = new_goal(content.CURRENT_GOAL, "2026-08-21T09:00:00Z")
    write_thread_goal(saver, script.thread_id, goal)
    verdicts = ("A plan exists; its savings are not ranked yet.", "Savings are ranked; the carrier is not contacted.")

    def evaluate(index: int, run: str) -> None:
        nonlocal goal
        if index < len(verdicts):
            goal = evaluated_goal(goal, run, verdicts[index], f"2026-08-21T09:{31 + 10 * index}:00Z")
            write_thread_goal(saver, script.thread_id, goal, as_node="goal_evaluator")
        else:
            write_thread_goal(saver, script.thread_id, None, as_node="goal_evaluator")

    _runs(demo, demo.agent(script, **CURRENT), script, evaluate)


def _settled(checkpoint: dict) -> bool:
    return not any(key == "__start__" or key.startswith("branch:to:") for key in checkpoint["channel_values"])


def branch(demo: Demo) -> None:
    """A branch of the current thread from its second turn (not the latest, so its files were not copied),
    written as DeerFlow's branch API does; then a run in the branch."""
    history = list(demo.checkpointer.list({"configurable": {"thread_id": BRANCH_PARENT}}))  # newest first
    # the second run's answer: the last message of its run-duration checkpoint (found by run_durations, since
    # PostgresSaver does not keep "writes"); the branch point is the newest settled checkpoint ending with it
    target_run = run_id(BRANCH_PARENT, 1)
    run_end = min((t for t in history if target_run in (t.metadata.get("run_durations") or {})),
                  key=lambda t: t.checkpoint["id"])
    answer = run_end.checkpoint["channel_values"]["messages"][-1]
    point = next(t for t in history if _settled(t.checkpoint)
                 and t.checkpoint["channel_values"].get("messages", [None])[-1] == answer)
    base = checkpoint_before_message(demo.checkpointer, point, current_script().user_message_id(1))
    branch_thread(demo.checkpointer, CURRENT["schema"], BRANCH_PARENT, point.config, "demo-branch", answer.id,
                  "2026-08-21T10:05:00Z", base_point=base.config if base else None)
    script = branch_script()
    _runs(demo, demo.agent(script, **CURRENT), script)


THREADS: dict[str, tuple[str, Callable[[Demo], None]]] = {
    "demo-research": (
        "Multi-turn research: uploads, title, plan-mode todos, artifacts with a de-duplicated present_files "
        "and a Markdown report", _chat(research_script)),
    "demo-vision": (
        "DeerFlow's documented (older) view_image: base64 kept in viewed_images, injected for the model, then "
        "cleared by the {} rule; DeerFlow main keeps metadata-only entries and never clears them",
        _chat(vision_script)),
    "demo-bloated": (
        "Images viewed one by one and never cleared (no ViewImageMiddleware): the state passes 1 MB late",
        _chat(bloated_script, before_model=())),
    "demo-time-travel": (
        "update_state on an earlier checkpoint, then a run from it: two branches", time_travel),
    "demo-subgraph": (
        "A generic LangGraph subgraph (not DeerFlow, whose subagents run without a checkpointer): a tool runs a "
        "compiled graph holding a compiled subgraph node, both inheriting the checkpointer: nested namespaces; "
        "the app's own search_log field is not in DeerFlow's schema",
        _chat(subgraph_script, schema=ResearchAppState, tools=[*DOCUMENTED_TOOLS, task_subagent])),
    "demo-interrupt": (
        "Stopped at interrupt() in ask_clarification; the __interrupt__ write is pending",
        _chat(interrupt_script)),
    "demo-deerflow-current": (
        "Today's DeerFlow: viewed_images as {mime_type, size, actual_path} files on disk, sent to the model in a "
        "transient view-image-context message removed after the call; <current_uploads>, hidden date and memory "
        "reminders, a subagent run without a checkpointer (subagent_* result, delegations), summary_text; "
        "a run-finished checkpoint after each run, and a goal set, evaluated and cleared through put",
        deerflow_current),
    "demo-branch": (
        "A DeerFlow branch of demo-deerflow-current taken at its second turn: branch_parent_* metadata, every "
        "reducer field copied as Overwrite(...), images whose actual_path is in the parent's folder; then a run",
        branch),
    "demo-delta": (
        "DeerFlow's checkpoint_channel_mode: delta (deerflow_checkpoint_channel_mode in the metadata): `messages` "
        "is a DeltaChannel, stored as snapshots every few updates and rebuilt from writes in between",
        _chat(delta_script, metadata={"deerflow_checkpoint_channel_mode": "delta"}, schema=DeltaThreadState)),
    "demo-long": (
        "Thirty turns read a handbook section by section: 330 checkpoints, messages growing",
        _chat(long_script)),
    "demo-langchain-agent": (
        "Not DeerFlow: LangChain's create_agent with the todo list, human-in-the-loop and summarisation "
        "middleware books a trip; a booking approved, the conversation summarised, then left waiting at a "
        "human-in-the-loop request (book_hotel: approve or reject); read with the LangChain agent profile",
        lambda demo: run_langchain_agent(demo.checkpointer, "demo-langchain-agent")),
}
