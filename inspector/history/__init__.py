"""A thread's checkpoints as a history: lineage, forks and branches (``lineage``), named problems
in broken histories, what kind of step each checkpoint is (``checkpoint_kinds``), one page of the
timeline (``timeline_rows``), the drawn tree (``tree_chart``), the thread list's rows
(``thread_list``), which task(s) produced each checkpoint and which fields each wrote (``attribution``: the one
attribution every surface uses), a thread's history extended as it grows (``thread_history``), a field's values
along the history (``field_history``), where the selected checkpoint sits (``location``), the flow views' rows
(``flow_graph`` and ``flow_dot``, ``step_graph``, ``flow_grid``, ``durations`` and ``step_lanes``) and the one
colour each node is drawn in (``node_colours``).

May import ``store`` only.
"""
