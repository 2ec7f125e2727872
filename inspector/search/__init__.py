"""The thread search: what a customer remembers of a thread (its messages, the tools it called and their
arguments, the files uploaded and made, its title, other text its state holds), found in an index the analysis
cache keeps, never in the store.

``texts`` reads the texts of a state or of a step's writes as the thread's profile names its fields
(``profiles.searched``) and masks them before anything is kept; ``indexing`` brings a store's index up to date
(only the threads written since it was last brought up to date are read: their new writes and their newest
root state); ``hits`` ranks the threads a search finds, each with its best text's masked snippet and the step
where that text appears. The index itself: ``cache.search``.

May import ``store``, ``profiles``, ``safety`` and the analysis cache.
"""
