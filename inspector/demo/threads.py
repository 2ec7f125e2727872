"""The demo threads: who says what, which files exist, and how each run is driven."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from inspector.demo import content, images
from inspector.demo.agent import DeerFlowState, DeltaThreadState, build_agent, summarize_node
from inspector.demo.model import Script, Turn, act, call, say, user_message
from inspector.demo.sandbox import make_folders, physical_path, thread_data_for, virtual_path
from inspector.demo.subagent import task_subagent
from inspector.demo.tools import CURRENT_TOOLS, DOCUMENTED_TOOLS

RECURSION_LIMIT = 100
UP = "/mnt/user-data/uploads"
OUT = "/mnt/user-data/outputs"


class Demo:
    """Runs scripts against one checkpointer, with thread folders under ``base``."""

    def __init__(self, base: Path, checkpointer: BaseCheckpointSaver):
        self.base = base
        self.checkpointer = checkpointer

    def agent(self, script: Script, **options) -> CompiledStateGraph:
        options.setdefault("tools", DOCUMENTED_TOOLS)
        return build_agent(script, self.base, self.checkpointer, **options)

    def config(self, thread_id: str) -> dict:
        return {"configurable": {"thread_id": thread_id}, "recursion_limit": RECURSION_LIMIT}

    def upload(self, thread_id: str, name: str, data: bytes) -> dict:
        """What DeerFlow's upload API does: store the file and describe it for the user's message."""
        folders = thread_data_for(self.base, thread_id)
        make_folders(folders)
        physical_path(virtual_path("uploads", name), folders).write_bytes(data)
        return {"filename": name, "size": len(data), "path": virtual_path("uploads", name), "status": "uploaded"}

    def send(self, graph: CompiledStateGraph, script: Script, index: int) -> dict:
        files = [self.upload(script.thread_id, name, data) for name, data in script.turns[index].uploads.items()]
        return graph.invoke({"messages": [user_message(script, index, files)]}, self.config(script.thread_id))

    def chat(self, graph: CompiledStateGraph, script: Script) -> None:
        for index in range(len(script.turns)):
            self.send(graph, script, index)


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
    first = Turn(ask, uploads=uploads, replies=(
        act("Setting a goal and a plan.",
            call("create_goal", objective="Deliver a cost-cutting plan for Q3 logistics", max_rounds=5),
            call("write_todos", todos=todos("in_progress", "pending", "pending"))),
        act("", call("view_image", image_path=f"{UP}/chart.png"),
            call("view_image", image_path=f"{UP}/warehouse_board.jpg")),
        act("Costs rise 4-5% a month. Benchmarking freight rates in parallel.",
            call("task", description="Benchmark freight rates", subagent_type="general-purpose",
                 prompt="Compare our per-pallet freight rate (EUR 38) with 2025 market rates."),
            call("write_todos", todos=todos("completed", "in_progress", "pending"))),
        act("", call("write_file", path=f"{OUT}/plan.md", content=content.PLAN_MD),
            call("write_todos", todos=todos("completed", "completed", "in_progress"))),
        act("", call("present_files", file_paths=[f"{OUT}/plan.md"])),
        say("The plan is in `plan.md`: renegotiate freight, consolidate pallets, move picking to two shifts."),
    ))
    second = Turn("Which single change saves the most?", replies=(
        act("", call("write_todos", todos=todos("completed", "completed", "completed"))),
        say("Renegotiating freight: about EUR 31k a quarter, more than the other two changes together."),
    ))
    return Script("demo-deerflow-current", "Q3 logistics cost-cutting plan", (first, second))


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


def _chat(script_of: Callable[[], Script], **options) -> Callable[[Demo], None]:
    """A driver that sends every turn of the script to an agent built with ``options``."""

    def run(demo: Demo) -> None:
        script = script_of()
        demo.chat(demo.agent(script, **options), script)

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


# Today's ViewImageMiddleware adds images to the model request only, so that agent has no injection node.
_SUMMARIZATION = ("summarization", summarize_node(content.CURRENT_SUMMARY, after_messages=12))

THREADS: dict[str, tuple[str, Callable[[Demo], None]]] = {
    "demo-research": (
        "Multi-turn research: uploads, title, plan-mode todos, artifacts with a de-duplicated present_files "
        "and a Markdown report", _chat(research_script)),
    "demo-vision": (
        "view_image loads a PNG and a JPEG as base64, injected for the model, then cleared by the {} rule",
        _chat(vision_script)),
    "demo-bloated": (
        "Images viewed one by one and never cleared (no ViewImageMiddleware): the state passes 1 MB late",
        _chat(bloated_script, before_model=())),
    "demo-time-travel": (
        "update_state on an earlier checkpoint, then a run from it: two branches", time_travel),
    "demo-subgraph": (
        "A task tool runs a compiled subagent graph holding a compiled subgraph node: nested namespaces",
        _chat(subgraph_script, tools=[*DOCUMENTED_TOOLS, task_subagent])),
    "demo-interrupt": (
        "Stopped at interrupt() in ask_clarification; the __interrupt__ write is pending",
        _chat(interrupt_script)),
    "demo-deerflow-current": (
        "Today's DeerFlow shape: viewed_images as {mime_type, size, actual_path} files on disk, "
        "{content, status} todos, and goal, summary_text, delegations",
        _chat(current_script, schema=DeerFlowState, tools=CURRENT_TOOLS, before_model=(_SUMMARIZATION,))),
    "demo-delta": (
        "DeerFlow's checkpoint_channel_mode: delta: `messages` is a DeltaChannel, stored as snapshots "
        "every few updates and rebuilt from writes in between",
        _chat(delta_script, schema=DeltaThreadState)),
    "demo-long": (
        "Thirty turns read a handbook section by section: 330 checkpoints, messages growing",
        _chat(long_script)),
}
