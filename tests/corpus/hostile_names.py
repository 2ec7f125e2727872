"""The hostile corpus's case whose secrets sit in names (registered in ``hostile_corpus.CASES``): one thread
written by a real LangGraph graph (``SqliteSaver``) whose node names are key-shaped, one of them running a
subgraph, so the subgraph's checkpoints sit in a namespace (``ghp_…:<task id>``) and its writes' task paths
name a key-shaped node too; files whose names are key-shaped in its ``outputs`` folder, named by
``artifacts``; and texts carrying the shapes that used to slip the mask: a key after ``%20`` (URL-encoded), a
key with a zero-width space inside, a URL user of 210 characters before the password, ``passwd=a;b``, a
secret's name over 100 characters (as a mapping key and in text), headers as ``[name, value]`` pairs.

Names that merely say "password" or "token" (``password_check``, ``token_counter``) are names, not secrets:
they stay readable, and so do ordinary URL-encoded text, a URL user without a password, an emoji joined by
zero-width joiners, a ``Content-Type`` header pair and ``passwd`` as a word in prose (``KEPT``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hostile_corpus import CorpusState, Planting, case
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import END, START, StateGraph

THREAD = "hostile-names"
OUT = "/mnt/user-data/outputs"
# node names shaped like keys: an OpenAI key, a GitHub token (the node running the subgraph), an AWS key id
NODE_KEY = "sk-proj-NodeFake0a1B2c3D4e5F6g7H8i9J0k"
NODE_SUB = "ghp_NodeSubFake0123456789abcdefABCDEF"
NODE_INNER = "AKIANODEFAKE01234567"
# names that say what they check: no secret, shown as they are
NODE_PLAIN = "password_check"
NODE_INNER_PLAIN = "token_counter"
# file names shaped like keys, and a plain one
FILE_KEY = "sk-proj-FileFake0a1B2c3D4e5F6g7H8i9J0k"
FILE_GHP = "ghp_FileFake0123456789abcdefABCDEFghij"
FILE_PLAIN = "report-kept.md"

# the six shapes, each in a text (and the pair and the long name as data too)
URL_ENCODED = "UrlEncFake0a1B2c3D4e5F6g7H8"
ZW_HEAD, ZW_TAIL = "sk-proj-ZwHeadFake01", "ZwTailFake0123456789ab"
LONG_USER = "svc" * 70  # 210 characters
URL_USER_PASSWORD = "UrlUserPwFake7788"
SEMI_HEAD, SEMI_TAIL = "SemiFakeA1", "SemiFakeB2tail"
LONG_NAME = "setting_" * 16 + "db_password"  # 139 characters
LONG_NAME_VALUE, LONG_NAME_TEXT = "LongNamePwFake4455", "LongNameTextFake66"
PAIR_VALUE, PAIR_TEXT = "PairFakeAuth0099xyz", "PairTextFake5566"
EMOJI = "\U0001F469\u200D\U0001F4BB"  # woman technologist: two emoji joined by a zero-width joiner

TEXTS = (
    f"search https://search.example.com/?q=%20sk-proj-{URL_ENCODED} and hello%20world%21 stays",
    f"my key is {ZW_HEAD}\u200b{ZW_TAIL} now {EMOJI} coding",
    f"connect to postgresql://{LONG_USER}:{URL_USER_PASSWORD}@db.internal/app, docs at https://alice@example.com/docs",
    f"set passwd={SEMI_HEAD};{SEMI_TAIL} then; passwd is the file that lists accounts",
    f"the config says {LONG_NAME}={LONG_NAME_TEXT} today",
    f'headers=[["Authorization", "Basic {PAIR_TEXT}"], ["Content-Type", "application/json"]]',
)
SECRETS = (NODE_KEY, NODE_SUB, NODE_INNER, FILE_KEY, FILE_GHP, URL_ENCODED, ZW_HEAD, ZW_TAIL, URL_USER_PASSWORD,
           SEMI_HEAD, SEMI_TAIL, LONG_NAME_VALUE, LONG_NAME_TEXT, PAIR_VALUE, PAIR_TEXT)
KEPT = (NODE_PLAIN, NODE_INNER_PLAIN, FILE_PLAIN, "hello%20world%21 stays", EMOJI, "https://alice@example.com/docs",
        "passwd is the file that lists accounts", "Content-Type", "application/json", "db.internal/app")


def build_graph(saver: Any, files: dict[str, Any]):
    """Root: the key-named node writes the texts; the GitHub-token-named node runs a subgraph (its own nodes: an AWS
    key id and ``token_counter``); ``password_check`` presents the files."""
    inner = StateGraph(CorpusState)
    inner.add_node(NODE_INNER, lambda state: {"todos": [{"content": "count the tokens", "status": "pending"}]})
    inner.add_node(NODE_INNER_PLAIN, lambda state: {"title": "tokens counted"})
    inner.add_edge(START, NODE_INNER)
    inner.add_edge(NODE_INNER, NODE_INNER_PLAIN)
    inner.add_edge(NODE_INNER_PLAIN, END)
    subgraph = inner.compile()  # checkpointed by the parent's saver, in the calling task's namespace

    def run_subgraph(state: dict[str, Any]) -> dict[str, Any]:
        done = subgraph.invoke({"messages": []})
        return {"title": done.get("title", ""), "messages": [AIMessage("the subgraph ran", id="names-sub")]}

    root = StateGraph(CorpusState)
    root.add_node(NODE_KEY, lambda state: {"messages": [AIMessage(text, id=f"names-ai-{i}") for i, text in
                                                        enumerate(TEXTS)],
                                           "config": {LONG_NAME: LONG_NAME_VALUE, "max_tokens": 512},
                                           "notes": {"headers": [["Authorization", f"Basic {PAIR_VALUE}"],
                                                                 ["Content-Type", "application/json"]]}})
    root.add_node(NODE_SUB, run_subgraph)
    root.add_node(NODE_PLAIN, lambda state: files)
    root.add_edge(START, NODE_KEY)
    root.add_edge(NODE_KEY, NODE_SUB)
    root.add_edge(NODE_SUB, NODE_PLAIN)
    root.add_edge(NODE_PLAIN, END)
    return root.compile(checkpointer=saver)


@case("secret-shaped-names", "key-shaped node names, a namespace and a task path naming one, key-shaped file "
      "names in the outputs folder, and the shapes that slipped the mask (URL-encoded, zero-width space, long URL "
      "user, passwd=a;b, a long secret name, header pairs)",
      threads=[THREAD], secrets=SECRETS, kept=KEPT, owner="names")
def _secret_shaped_names(p: Planting) -> None:
    data = p.thread_data(THREAD)
    outputs = Path(data["outputs_path"])
    for name, text in ((f"{FILE_KEY}.md", "# notes\n"), (f"{FILE_GHP}.txt", "plain text\n"),
                       (FILE_PLAIN, "# plain report\n")):
        (outputs / name).write_text(text)
    files = {"thread_data": data, "artifacts": [f"{OUT}/{FILE_KEY}.md", f"{OUT}/{FILE_GHP}.txt", f"{OUT}/{FILE_PLAIN}"]}
    graph = build_graph(p.saver, files)
    graph.invoke({"messages": [HumanMessage("check the names", id="names-human")]},
                 {"configurable": {"thread_id": THREAD}})


__all__ = ["FILE_GHP", "FILE_KEY", "FILE_PLAIN", "KEPT", "NODE_INNER", "NODE_KEY", "NODE_PLAIN", "NODE_SUB",
           "SECRETS", "TEXTS", "THREAD"]
