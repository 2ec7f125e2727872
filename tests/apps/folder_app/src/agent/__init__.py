"""An app folder in LangGraph's layout (``langgraph.json`` naming ``./src/agent/graph.py:graph``), for the
``--schema path/to/graph.py:graph`` tests: its graph imports a module beside it and one of its own package."""
