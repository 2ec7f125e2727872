"""Retention previews: what a policy would delete from a checkpoint store, reclaim, and break.

Pure planning over keys, parent ids, metadata and stored lengths read through
``store_ops.operating(store).retention_reader()`` (it imports ``store``, ``store_ops``, ``history`` for
branch links, ``formatting`` and ``profiles`` for the words of a branch's break, nothing else of
``inspector``): ``policy`` selects, ``breaks`` names the damage and what avoids it, ``plan`` tallies
threads and the store, ``sql`` writes the statements an operator may review and run. The inspector itself never deletes.
"""

from .breaks import Break
from .plan import Plan, ThreadPlan, Variant, plan_store, plan_thread
from .policy import Policy
from .sql import statements

__all__ = ["Break", "Plan", "Policy", "ThreadPlan", "Variant", "plan_store", "plan_thread", "statements"]
