"""Stores and texts crafted to attack the dashboard, written by LangGraph's own savers."""
