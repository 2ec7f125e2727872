"""DeerFlow's files: where a thread's user-data folders are, and what its state says of the files in them.

``user_data`` (its ``threads/{id}/user-data/{workspace,uploads,outputs}`` folders found on this
machine or in a bundle), ``paths`` (``/mnt/user-data`` beside ``thread_data``), ``artifacts``,
``uploads`` (``uploaded_files``), ``viewed_images`` (its entries checked), ``image_history`` and
``image_facts`` (``viewed_images`` along a history), ``media_report`` (one checkpoint's files for
the page and the CLI) and ``references`` (every file a state names, for support bundles). Every file
is found through ``inspector.media.located``, with its one list of refusals. Nothing here is imported
with the profile but ``uploads`` and ``references``, which read no file.
"""
