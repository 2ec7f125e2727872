"""The store's reads held to LangGraph's own checkpoint conformance suite.

``read_adapter.StoreReadSaver`` is a ``BaseCheckpointSaver`` whose writes go to one of
LangGraph's savers and whose reads are answered by ``inspector.store``; ``backends``
makes throwaway SQLite and PostgreSQL stores for it; ``delta_spec`` holds the delta
channel history checks the published suite lacks, with LangGraph as the oracle.
"""
