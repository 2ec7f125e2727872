"""A retention plan in words and rows: what the CLI prints and the Retention page shows."""

from __future__ import annotations

from typing import Any

from ..formatting import human_bytes
from .plan import Plan


def thread_rows(plan: Plan) -> list[dict[str, Any]]:
    """One row per thread the plan touches, biggest first."""
    return [{"thread": t.thread_id, "checkpoints": t.checkpoints, "writes": t.writes, "blobs": t.blobs,
             "bytes": t.bytes, "kept": t.kept, "whole thread": t.whole_thread, "breaks": len(t.breaks),
             "protected": len(t.protected)} for t in plan.threads]


def break_rows(plan: Plan) -> list[dict[str, Any]]:
    return [{"thread": t.thread_id, "kind": b.kind, "checkpoint": b.checkpoint_id, "namespace": b.checkpoint_ns,
             "what breaks": b.message} for t in plan.threads for b in t.breaks]


def totals_line(plan: Plan) -> str:
    writes = sum(t.writes for t in plan.threads)
    blobs = sum(t.blobs for t in plan.threads)
    parts = [f"{plan.checkpoints} checkpoint(s)", f"{writes} write(s)"]
    if plan.dialect == "postgres":
        parts.append(f"{blobs} blob row(s)")
    line = (f"{plan.policy.describe()}: would delete {', '.join(parts)} from {len(plan.threads)} of "
            f"{plan.threads_examined} thread(s) and reclaim {human_bytes(plan.reclaim_bytes)}")
    if plan.facts.free_bytes:
        line += (f" ({human_bytes(plan.rows_bytes)} of rows, {human_bytes(plan.facts.free_bytes)} the file "
                 "already holds free)")
    return line


def variant_line(plan: Plan, how: str = "add --safe") -> str:
    """What the other choice costs or saves, in one line; ``how`` says how to choose the safe one."""
    if plan.variant is None:
        if plan.policy.safe:
            return "Nothing had to be kept: the plain policy breaks nothing either."
        return "It breaks nothing."
    cost = human_bytes(plan.variant_cost)
    if plan.variant.safe:
        return (f"It breaks {len(plan.breaks)} thing(s). The safe variant ({plan.variant.description}) breaks "
                f"nothing and reclaims {human_bytes(plan.variant.reclaim_bytes)}: {cost} less ({how}).")
    return (f"It breaks nothing, and keeps {cost} more than the plain policy ({plan.variant.description}), "
            f"which would break {plan.variant.breaks} thing(s).")
