"""The scripted chat model: replies come from a per-thread script, chosen from the state.

The reply to a state is a pure function of it: find the last user message that
belongs to a scripted turn, count the assistant messages after it, and return
that turn's next reply. Forks and replays therefore get the right answer.
Message ids are deterministic (``{thread}-ai-{n}``, ``{thread}-call-{n}-{j}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

MODEL_NAME = "demo-scripted-1"
USER_ID_SUFFIX = "__user"  # DeerFlow's dynamic-context middleware re-adds the first user message under this suffix


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    text: str = ""
    calls: tuple[Call, ...] = ()


@dataclass(frozen=True)
class Turn:
    text: str
    replies: tuple[Reply, ...]
    uploads: dict[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Script:
    thread_id: str
    title: str
    turns: tuple[Turn, ...]

    def user_message_id(self, index: int) -> str:
        return f"{self.thread_id}-user-{index + 1}"


def say(text: str) -> Reply:
    return Reply(text=text)


def act(text: str, *calls: Call) -> Reply:
    return Reply(text=text, calls=calls)


def call(name: str, **args: Any) -> Call:
    return Call(name, args)


def user_message(script: Script, index: int, files: list[dict] | None = None) -> HumanMessage:
    """The user's message for turn ``index``; ``files`` is what the upload API attached."""
    extra = {"files": files} if files else {}
    return HumanMessage(script.turns[index].text, id=script.user_message_id(index), additional_kwargs=extra)


class ScriptedModel:
    """Answers from ``script``; deterministic, offline."""

    def __init__(self, script: Script):
        self.script = script
        self._turns = {script.user_message_id(i): t for i, t in enumerate(script.turns)}

    def invoke(self, messages: list[AnyMessage]) -> AIMessage:
        start, turn = self._current_turn(messages)
        answered = sum(isinstance(m, AIMessage) for m in messages[start:])
        if answered >= len(turn.replies):
            raise RuntimeError(f"script for {self.script.thread_id} has no reply {answered + 1} to {turn.text!r}")
        number = 1 + sum(isinstance(m, AIMessage) for m in messages)
        return self._message(turn.replies[answered], number)

    def _current_turn(self, messages: list[AnyMessage]) -> tuple[int, Turn]:
        for index in range(len(messages) - 1, -1, -1):
            turn = self._turns.get((messages[index].id or "").removesuffix(USER_ID_SUFFIX))
            if turn is not None:
                return index, turn
        raise RuntimeError(f"no scripted user message in thread {self.script.thread_id}")

    def _message(self, reply: Reply, number: int) -> AIMessage:
        thread = self.script.thread_id
        tool_calls = [
            {"name": c.name, "args": c.args, "id": f"{thread}-call-{number}-{j}", "type": "tool_call"}
            for j, c in enumerate(reply.calls, start=1)
        ]
        output_tokens = max(1, (len(reply.text) + len(repr([c.args for c in reply.calls]))) // 4)
        return AIMessage(
            reply.text,
            id=f"{thread}-ai-{number}",
            tool_calls=tool_calls,
            response_metadata={"model_name": MODEL_NAME, "finish_reason": "tool_calls" if tool_calls else "stop"},
            usage_metadata={"input_tokens": 900 + 40 * number, "output_tokens": output_tokens,
                             "total_tokens": 900 + 40 * number + output_tokens},
        )


def tool_message_id(tool_call_id: str) -> str:
    """The id of the result message of a tool call: ``{thread}-tool-{n}-{j}``."""
    return tool_call_id.replace("-call-", "-tool-", 1)
