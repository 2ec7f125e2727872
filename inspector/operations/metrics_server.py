"""Serving the metrics snapshot to Prometheus, with the official client library.

A collector answers each scrape from the newest snapshot, computing a new one only when the last is
older than ``cache_seconds`` (one at a time: a scrape that arrives meanwhile waits for it), so a
scrape every 15 s costs the store one round of aggregates a minute. The server binds 127.0.0.1
unless told otherwise. A failed snapshot is served as ``inspector_up 0`` with the last good values.
"""

from __future__ import annotations

import threading
import time
from typing import Callable, Iterator

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from ..store import StoreError
from .metrics import MetricsSnapshot

PREFIX = "inspector"


def families(snap: MetricsSnapshot, up: bool, age: float) -> Iterator[GaugeMetricFamily]:
    """The snapshot as Prometheus gauges (names ``inspector_*``, bytes in bytes, times in seconds)."""
    def gauge(name: str, doc: str, value: float | None, labels: dict[str, str] | None = None):
        family = GaugeMetricFamily(f"{PREFIX}_{name}", doc, labels=list(labels or {}))
        if value is not None:
            family.add_metric(list((labels or {}).values()), value)
        return family

    yield gauge("up", "1 when the last snapshot of the store succeeded", 1 if up else 0)
    yield gauge("store_bytes", "stored bytes of the whole store (sum of its rows' lengths)", snap.store_bytes)
    yield gauge("store_file_bytes", "bytes the store takes on disk (SQLite files, or the PostgreSQL database)",
                snap.file_bytes)
    tables = GaugeMetricFamily(f"{PREFIX}_table_bytes", f"bytes per table ({snap.table_basis})", labels=["table"])
    for name, value in sorted(snap.table_bytes.items()):
        tables.add_metric([name], value)
    yield tables
    yield gauge("threads", "threads in the store", snap.threads)
    yield gauge("checkpoints", "checkpoints in the store", snap.checkpoints)
    yield gauge("largest_thread_bytes", "stored bytes of the largest thread (checkpoints, blobs and writes)",
                snap.largest_thread_bytes)
    yield gauge("largest_state_bytes", "stored bytes of the largest newest state of a thread", snap.largest_state_bytes)
    yield gauge("flagged_threads", "threads whose newest state passes oversize_state_bytes (the oversized-state "
                "flag, from stored lengths)", snap.flagged_threads)
    yield gauge("oversize_state_bytes", "the oversize_state_bytes setting", snap.oversize_state_bytes)
    written = GaugeMetricFamily(f"{PREFIX}_written_bytes", "bytes stored by checkpoints dated in the last window "
                                "(their rows, blobs and writes)", labels=["window"])
    for window, value in snap.written_bytes.items():
        written.add_metric([window], value)
    yield written
    yield gauge("orphaned_bytes", "bytes of writes and blobs no checkpoint references", snap.orphaned_bytes)
    yield gauge("disk_budget_bytes", "the disk_budget_bytes setting (0: none)", snap.disk_budget_bytes)
    yield gauge("forecast_days_left", "days until the store passes disk_budget_bytes at the last 7 days' rate "
                "(absent: no budget, or no growth)", snap.forecast_days_left)
    yield gauge("scrape_duration_seconds", "seconds the last snapshot of the store took", snap.seconds)
    yield gauge("snapshot_age_seconds", "seconds since the snapshot served was taken", age)


class SnapshotCollector(Collector):
    """Serves ``take()``'s snapshot, taken again when older than ``cache_seconds``."""

    def __init__(self, take: Callable[[], MetricsSnapshot], cache_seconds: float,
                 said: Callable[[str], None] | None = None) -> None:
        self.take, self.cache_seconds, self.said = take, cache_seconds, said  # said: why it went down, and back up
        self._failing = False
        self._lock = threading.Lock()
        self._snapshot: MetricsSnapshot | None = None
        self._up = False
        self._taken = 0.0
        self.snapshots = 0  # how many were taken (a scrape within cache_seconds takes none)

    def current(self) -> tuple[MetricsSnapshot | None, bool]:
        with self._lock:
            if self._snapshot is None or time.monotonic() - self._taken >= self.cache_seconds:
                try:
                    self._snapshot, self._up = self.take(), True
                    self.snapshots += 1
                except StoreError as exc:
                    self._up = False
                    if not self._failing and self.said:  # once per outage, not at every scrape
                        self.said(f"a snapshot of the store failed (inspector_up 0; the last good values are served): "
                                  f"{exc}")
                    self._failing = True
                else:
                    if self._failing and self.said:
                        self.said("the store answers again (inspector_up 1)")
                    self._failing = False
                self._taken = time.monotonic()
            return self._snapshot, self._up

    def collect(self) -> Iterator[GaugeMetricFamily]:
        snap, up = self.current()
        if snap is None:
            yield GaugeMetricFamily(f"{PREFIX}_up", "1 when the last snapshot of the store succeeded", value=0)
            return
        yield from families(snap, up, time.time() - snap.taken_at)


def serve(collector: SnapshotCollector, host: str, port: int):
    """Start the HTTP server on ``host:port`` in a daemon thread; returns the server (``.shutdown()``)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    server, _thread = start_http_server(port, addr=host, registry=registry)
    return server
