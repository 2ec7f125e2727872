"""Delta channel history checks, in the shape of LangGraph's conformance suite, with LangGraph as the oracle.

The published ``langgraph-checkpoint-conformance`` has no capability for
``get_delta_channel_history`` (what a ``DeltaChannel`` is rebuilt from). Each check
here writes a chain of checkpoints and writes through the read adapter (so into
LangGraph's own saver), then asks the adapter, which answers from
``Store.delta_history``, and asserts both the expected history and that it equals
what LangGraph's saver answers on the same data. The last check runs a real graph
with two ``DeltaChannel`` fields (parallel tasks, snapshots, a fork, an ``Overwrite``)
and compares ``get_state_history`` through the adapter, and the store's own rebuilt
values, with ``get_state_history`` through LangGraph's saver.

``run_delta_checks(saver)`` runs them all and returns the failures, as the suite's
runners do.
"""

from __future__ import annotations

import traceback
import uuid
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage
from langgraph.channels import DeltaChannel
from langgraph.checkpoint.conformance.test_utils import generate_checkpoint, generate_metadata
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import _messages_delta_reducer
from langgraph.types import Overwrite, Send

from conformance.read_adapter import StoreReadSaver

CH = "notes"
# task ids that sort against the task paths they are written with
TASK_FIRST, TASK_MIDDLE, TASK_LAST = (f"{digit * 8}-{digit * 4}-{digit * 4}-{digit * 4}-{digit * 12}" for digit in "08f")


def plain(value: Any) -> Any:
    """Comparable form of a history value: snapshots marked, messages as their fields."""
    if isinstance(value, _DeltaSnapshot):
        return {"snapshot": plain(value.value)}
    if isinstance(value, BaseMessage):
        return value.model_dump()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def comparable(histories: dict) -> dict:
    return {
        channel: {"writes": [(task_id, ch, plain(value)) for task_id, ch, value in entry["writes"]],
                  **({"seed": plain(entry["seed"])} if "seed" in entry else {})}
        for channel, entry in histories.items()
    }


async def history_checked(saver: StoreReadSaver, head: dict, channels: list[str]) -> dict:
    """The adapter's history of ``head``, asserted equal to LangGraph's saver's on the same data."""
    mine = await saver.aget_delta_channel_history(config=head, channels=channels)
    theirs = saver.writer.get_delta_channel_history(config=head, channels=channels)
    assert comparable(mine) == comparable(theirs), f"store {comparable(mine)} != LangGraph {comparable(theirs)}"
    return comparable(mine)


def written(history: dict, channel: str = CH) -> list:
    return [value for _, _, value in history[channel]["writes"]]


async def put_chain(
    saver: StoreReadSaver,
    steps: int,
    *,
    stored: dict[int, dict[str, Any]] | None = None,
    writes: dict[int, list[tuple]] | None = None,
    channels: tuple[str, ...] = (CH,),
    thread_id: str | None = None,
    ns: str = "",
    parent: dict | None = None,
    first_step: int = 0,
) -> list[dict]:
    """``steps`` checkpoints, each the child of the one before (or of ``parent``).

    Every delta channel gets a new version at every step, as a ``DeltaChannel`` that
    receives writes does; ``stored[step]`` holds the values a checkpoint stores (a
    snapshot, or a plain value from before the channel was a delta channel). Each step
    writes ``w<step>`` to every channel unless ``writes[step]`` lists ``(channel, value,
    task_id, task_path)`` instead.
    """
    thread_id = thread_id or str(uuid.uuid4())
    stored, writes = stored or {}, writes or {}
    configs = []
    for step in range(first_step, first_step + steps):
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
        if parent:
            config["configurable"]["checkpoint_id"] = parent["configurable"]["checkpoint_id"]
        versions = {channel: step + 1 for channel in channels}
        checkpoint = generate_checkpoint(channel_values=dict(stored.get(step, {})), channel_versions=versions)
        parent = await saver.aput(config, checkpoint, generate_metadata(step=step), versions)
        configs.append(parent)
        for channel, value, task_id, task_path in writes.get(step, [(c, f"w{step}", str(uuid.uuid4()), "") for c in channels]):
            await saver.aput_writes(parent, [(channel, value)], task_id, task_path)
    return configs


async def check_writes_run_oldest_first_from_the_seed(saver: StoreReadSaver) -> None:
    configs = await put_chain(saver, 5, stored={0: {CH: _DeltaSnapshot(["s0"])}})
    history = await history_checked(saver, configs[-1], [CH])
    assert history[CH]["seed"] == {"snapshot": ["s0"]}
    assert written(history) == ["w0", "w1", "w2", "w3"]


async def check_the_nearest_seed_wins(saver: StoreReadSaver) -> None:
    configs = await put_chain(saver, 6, stored={0: {CH: _DeltaSnapshot(["s0"])}, 3: {CH: _DeltaSnapshot(["s3"])}})
    history = await history_checked(saver, configs[-1], [CH])
    assert history[CH]["seed"] == {"snapshot": ["s3"]}
    assert written(history) == ["w3", "w4"]


async def check_the_seeds_own_writes_are_history(saver: StoreReadSaver) -> None:
    """A stored value is the state entering its checkpoint; the writes stored there made its child."""
    configs = await put_chain(saver, 4, stored={1: {CH: ["v1"]}})
    history = await history_checked(saver, configs[-1], [CH])
    assert history[CH]["seed"] == ["v1"]
    assert written(history) == ["w1", "w2"]


async def check_the_targets_pending_writes_are_not_history(saver: StoreReadSaver) -> None:
    configs = await put_chain(saver, 3, stored={0: {CH: _DeltaSnapshot([])}})
    await saver.aput_writes(configs[-1], [(CH, "pending")], str(uuid.uuid4()))
    history = await history_checked(saver, configs[-1], [CH])
    assert written(history) == ["w0", "w1"]


async def check_channels_walk_to_their_own_seeds(saver: StoreReadSaver) -> None:
    configs = await put_chain(saver, 5, channels=("a", "b"),
                              stored={1: {"a": _DeltaSnapshot(["a1"])}, 3: {"b": _DeltaSnapshot(["b3"])}})
    history = await history_checked(saver, configs[-1], ["a", "b"])
    assert (written(history, "a"), written(history, "b")) == (["w1", "w2", "w3"], ["w3"])
    assert (history["a"]["seed"], history["b"]["seed"]) == ({"snapshot": ["a1"]}, {"snapshot": ["b3"]})


async def check_no_channels_no_history(saver: StoreReadSaver) -> None:
    configs = await put_chain(saver, 2)
    assert await history_checked(saver, configs[-1], []) == {}


async def check_no_seed_up_to_the_root(saver: StoreReadSaver) -> None:
    configs = await put_chain(saver, 4)
    history = await history_checked(saver, configs[-1], [CH])
    assert "seed" not in history[CH]
    assert written(history) == ["w0", "w1", "w2"]


async def check_a_plain_value_is_a_seed(saver: StoreReadSaver) -> None:
    """A thread whose channel became a delta channel: the value stored before is the seed."""
    configs = await put_chain(saver, 4, stored={0: {CH: ["old"]}, 1: {CH: ["old", "w0"]}})
    history = await history_checked(saver, configs[-1], [CH])
    assert history[CH]["seed"] == ["old", "w0"]
    assert written(history) == ["w1", "w2"]


async def check_a_primitive_value_is_a_seed(saver: StoreReadSaver) -> None:
    """Primitive values are stored inline (PostgreSQL keeps them in the checkpoint row, not as blobs)."""
    for value in (7, "seven"):
        configs = await put_chain(saver, 3, stored={1: {CH: value}})
        history = await history_checked(saver, configs[-1], [CH])
        assert history[CH]["seed"] == value
        assert written(history) == ["w1"]


async def check_a_steps_writes_follow_task_path_then_task_id(saver: StoreReadSaver) -> None:
    """Writes without a task path (input, update_state) first; then by task path, not task id; then idx."""
    step_one = [
        (CH, "second", TASK_FIRST, "~pull, 02"),
        (CH, "first", TASK_LAST, "~pull, 01"),
        (CH, "from input", TASK_MIDDLE, ""),
    ]
    configs = await put_chain(saver, 3, stored={0: {CH: _DeltaSnapshot([])}}, writes={1: step_one})
    await saver.aput_writes(configs[0], [(CH, "x0"), (CH, "x1")], TASK_LAST, "~pull, 00")
    history = await history_checked(saver, configs[-1], [CH])
    assert written(history) == ["w0", "x0", "x1", "from input", "first", "second"]


async def check_a_fork_reads_only_its_own_branch(saver: StoreReadSaver) -> None:
    configs = await put_chain(saver, 4, stored={0: {CH: _DeltaSnapshot([])}})
    branch = await put_chain(saver, 2, thread_id=configs[0]["configurable"]["thread_id"], parent=configs[1],
                             first_step=10)
    history = await history_checked(saver, branch[-1], [CH])
    assert written(history) == ["w0", "w1", "w10"]


async def check_namespaces_stay_apart(saver: StoreReadSaver) -> None:
    root = await put_chain(saver, 3, stored={0: {CH: _DeltaSnapshot([])}})
    thread_id = root[0]["configurable"]["thread_id"]
    child = await put_chain(saver, 3, thread_id=thread_id, ns="child:1",
                            writes={s: [(CH, f"child {s}", str(uuid.uuid4()), "")] for s in range(3)})
    assert written(await history_checked(saver, root[-1], [CH])) == ["w0", "w1"]
    assert written(await history_checked(saver, child[-1], [CH])) == ["child 0", "child 1"]


async def check_message_values_round_trip(saver: StoreReadSaver) -> None:
    snapshot = _DeltaSnapshot([HumanMessage("hi", id="h1")])
    writes = {s: [("messages", [AIMessage(f"reply {s}", id=f"a{s}")], str(uuid.uuid4()), "")] for s in range(3)}
    configs = await put_chain(saver, 3, channels=("messages",), stored={0: {"messages": snapshot}}, writes=writes)
    history = await history_checked(saver, configs[-1], ["messages"])
    assert [m["content"] for m in history["messages"]["seed"]["snapshot"]] == ["hi"]
    assert [[m["id"] for m in value] for value in written(history, "messages")] == [["a0"], ["a1"]]


class DeltaState(TypedDict, total=False):
    notes: Annotated[list[str], DeltaChannel(lambda state, writes: state + [n for w in writes for n in w],
                                             snapshot_frequency=3)]
    messages: Annotated[list[AnyMessage], DeltaChannel(_messages_delta_reducer, snapshot_frequency=2)]
    round: int


def delta_graph(checkpointer) -> Any:
    """Each round fans out to three workers writing the delta channels in one step, then gathers
    (the second round's gather overwrites ``notes``)."""

    def plan(state: DeltaState) -> dict:
        return {"round": state.get("round", 0) + 1}

    def fan_out(state: DeltaState) -> list[Send]:
        return [Send("worker", {"round": state["round"], "n": n}) for n in range(3)]

    def worker(task: dict) -> dict:
        tag = f"r{task['round']} w{task['n']}"
        return {"notes": [tag], "messages": [AIMessage(tag, id=tag)]}

    def gather(state: DeltaState) -> dict:
        if state["round"] == 2:  # a reducer bypassed in the middle of a run, between snapshots
            return {"notes": Overwrite([f"kept {len(state['notes'])}"])}
        return {"notes": [f"gathered {len(state['notes'])}"]}

    graph = StateGraph(DeltaState)
    graph.add_node("plan", plan)
    graph.add_node("worker", worker)
    graph.add_node("gather", gather)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", fan_out, ["worker"])
    graph.add_edge("worker", "gather")
    graph.add_conditional_edges("gather", lambda state: "plan" if state["round"] < 3 else END, ["plan", END])
    return graph.compile(checkpointer=checkpointer)


def snapshot_rows(graph, config: dict) -> list[tuple]:
    return [
        (s.config["configurable"]["checkpoint_id"], plain(s.values), s.next, [t.name for t in s.tasks], plain(s.metadata),
         (s.parent_config or {}).get("configurable", {}).get("checkpoint_id"))
        for s in graph.get_state_history(config)
    ]


async def check_graph_history_matches_langgraph(saver: StoreReadSaver) -> None:
    """LangGraph's ``get_state_history`` gives the same states through the store as through its own saver."""
    config = {"configurable": {"thread_id": f"delta-graph-{uuid.uuid4()}"}}
    through_store, through_saver = delta_graph(saver), delta_graph(saver.writer)
    through_store.invoke({"notes": ["start"], "messages": [HumanMessage("go", id="go")]}, config)
    history = list(through_saver.get_state_history(config))
    fork_point = next(s for s in history if s.metadata["step"] == 4).config
    update = {"notes": Overwrite(["reset"]), "messages": [HumanMessage("again", id="again")]}
    forked = through_store.update_state(fork_point, update, as_node="gather")
    through_store.invoke(None, forked)
    expected = snapshot_rows(through_saver, config)
    assert len(expected) >= 12 and any(row[1].get("notes") == ["reset"] for row in expected)
    assert snapshot_rows(through_store, config) == expected
    # the store's own rebuild (its reducers, not LangGraph's) agrees on every checkpoint
    thread_id = config["configurable"]["thread_id"]
    for cid, values, *_ in expected:
        state = saver.store.state(thread_id, cid)
        assert state.values.get("notes", []) == values.get("notes", []), cid
        assert [m["id"] for m in state.values.get("messages", [])] == [m["id"] for m in values.get("messages", [])], cid
    assert any("notes" in saver.store.state(thread_id, cid).rebuilt_channels for cid, *_ in expected)


DELTA_CHECKS: list[Callable[[StoreReadSaver], Awaitable[None]]] = [
    check_writes_run_oldest_first_from_the_seed,
    check_the_nearest_seed_wins,
    check_the_seeds_own_writes_are_history,
    check_the_targets_pending_writes_are_not_history,
    check_channels_walk_to_their_own_seeds,
    check_no_channels_no_history,
    check_no_seed_up_to_the_root,
    check_a_plain_value_is_a_seed,
    check_a_primitive_value_is_a_seed,
    check_a_steps_writes_follow_task_path_then_task_id,
    check_a_fork_reads_only_its_own_branch,
    check_namespaces_stay_apart,
    check_message_values_round_trip,
    check_graph_history_matches_langgraph,
]


async def run_delta_checks(saver: StoreReadSaver, checks: list | None = None) -> list[str]:
    """Every check (or those of ``checks``) on ``saver``; the failures as ``name: traceback``."""
    failures = []
    for check in DELTA_CHECKS if checks is None else checks:
        try:
            await check(saver)
        except Exception:  # noqa: BLE001 - a failing check is a result, reported by name
            failures.append(f"{check.__name__}: {traceback.format_exc()}")
    return failures
