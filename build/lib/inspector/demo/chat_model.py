"""A LangChain chat model that answers from a script: other apps' agents driven offline.

``ScriptedChatModel(script=[AIMessage(...), ...])`` returns the next scripted message
at every call, tool calls included, so LangChain's ``create_agent``, deepagents and the
multi-agent packages run their real code with no network and no model. ``bind_tools``
returns the model itself (the script already holds the calls the tools would get).
Several agents may share one model: calls are answered in the order they are made.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult


class ScriptedChatModel(BaseChatModel):
    """Answers with ``script[0]``, then ``script[1]``, ...; raises when the script runs out."""

    script: list[AIMessage]
    position: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        if self.position >= len(self.script):
            raise RuntimeError(f"the script has no answer number {self.position + 1}")
        reply = self.script[self.position]
        self.position += 1
        return ChatResult(generations=[ChatGeneration(message=reply.model_copy(deep=True))])


def tool_call(name: str, call_id: str, **args: Any) -> dict[str, Any]:
    """A tool call as a model returns it."""
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}
