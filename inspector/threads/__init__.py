"""The thread list: a page of a store's threads in the order asked, or best match first for a search through
the analysis cache's index (``thread_listing``), with each thread's title from its state (``thread_titles``),
its status and the threads waiting on a human (``thread_status``), and the rows the Threads page and the
``threads`` command show (``thread_list``).

May import ``store``, ``history``, ``state``, ``profiles``, ``search`` and ``cache``; nothing above them.
"""
