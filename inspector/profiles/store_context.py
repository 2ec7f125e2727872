"""The store as evidence: the profiles a store's other threads are read with (``StoreTally``), for a thread
that shows no app of its own.

Threads of one store are usually written by one app. A thread with little evidence of its own (only
``messages`` and ``title``: an import, a thread that barely started) is read like the store's other threads
when they agree (``usual``) and nothing in it contradicts that (``choosing.in_context``). "The store's other
threads" is a bounded sample: the ``SAMPLE`` threads of the newest activity (the thread list's first page),
each read with its own evidence, which the analysis cache keeps per thread (``facts.EVIDENCE_KIND``), so a
10,000-thread store costs what one page of its thread list costs, never a scan of its writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

SAMPLE = 50  # the newest threads a store's usual profile is read from
USUAL_SHARE = 0.8  # the share of the sampled threads showing an app that must show the same one
USUAL_LEAST = 2  # and at least this many threads


@dataclass(frozen=True)
class StoreTally:
    """How the ``sampled`` threads (the store's ``which`` ones) are read by their own evidence: profile name ->
    threads (the generic base's name for those showing no app); ``titles``: each profile's title."""

    sampled: int
    counts: Mapping[str, int] = field(default_factory=dict)
    titles: Mapping[str, str] = field(default_factory=dict)
    which: str = "newest"

    def apps(self) -> dict[str, int]:
        from .profile import BASE

        return {name: n for name, n in self.counts.items() if name != BASE and n}

    def usual(self) -> tuple[str, int] | None:
        """(profile, threads) when one app reads at least ``USUAL_LEAST`` of the sampled threads and
        ``USUAL_SHARE`` of those showing any app; None for a store of mixed or no apps."""
        apps = self.apps()
        if not apps:
            return None
        name, count = max(apps.items(), key=lambda item: (item[1], item[0]))
        if count < USUAL_LEAST or count < USUAL_SHARE * sum(apps.values()):
            return None
        return name, count

    def mix_text(self) -> str | None:
        """``this store mixes apps (DeerFlow 20, LangChain agent 18 of its 50 newest threads)``, or None."""
        apps = self.apps()
        if len(apps) < 2:
            return None
        named = ", ".join(f"{self.titles.get(n, n)} {c}" for n, c in sorted(apps.items(), key=lambda i: -i[1]))
        return f"this store mixes apps ({named} of its {self.sampled} {self.which} threads)"
