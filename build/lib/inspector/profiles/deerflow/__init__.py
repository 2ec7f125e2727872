"""DeerFlow (bytedance/deer-flow): its ThreadState and reducers, and what only DeerFlow makes true.

The reducers stay in the shared core (``inspector.schema.thread_state``); this profile
refers to them. It applies to a thread on evidence (``evidence``): DeerFlow's store
(``deerflow.db``, a ``deerflow://`` home), its metadata markers (delta mode, branch
records, run durations), or channels only DeerFlow's ThreadState declares
(``thread_data``, ``sandbox``, ``uploaded_files``, ...). Its knowledge pieces
(``KNOWLEDGE``) are the names other packages ask ``Reading.knows`` for.
"""

from __future__ import annotations

from .. import DEFAULT, Profile
from .evidence import evidence

# What DeerFlow's profile knows that generic LangGraph does not (names other packages ask for).
USER_DATA = "deerflow.user-data"  # /mnt/user-data/{workspace,uploads,outputs} and the thread's data folder
VIEWED_IMAGES = "deerflow.viewed-images"  # viewed_images entries, the image-context message
ARTIFACTS = "deerflow.artifacts"  # artifacts are paths under /mnt/user-data/outputs (merge_artifacts)
SUMMARIZATION = "deerflow.summarization"  # SummarizationMiddleware: the long-chat advice
THREAD_STATE = "deerflow.thread-state"  # drift against ThreadState's fields
MESSAGES = "deerflow.messages"  # hidden message kinds, the transient image message, conversation rules
CHECKPOINT_KINDS = "deerflow.checkpoint-kinds"  # run-duration and branch checkpoints

KNOWLEDGE = frozenset({USER_DATA, VIEWED_IMAGES, ARTIFACTS, SUMMARIZATION, THREAD_STATE, MESSAGES, CHECKPOINT_KINDS})

PROFILE = Profile(
    name="deerflow",
    title="DeerFlow",
    description="DeerFlow's ThreadState, its nine reducers, user-data folders, viewed images and middleware",
    evidence=evidence,
    schema=lambda: DEFAULT,
    knowledge=KNOWLEDGE,
)
