"""Files and pictures a state names, read safely: a thread's folders and path safety (``folders``: nothing
outside them is read), one named file found or refused (``located``), files opened only when regular, non-blocking
(``regular_files``), previews and downloads (``previews``), image bytes checked with Pillow and
thumbnails (``images``): for any file or picture an app's state names.

DeerFlow's own rules live in its profile (``inspector.profiles.deerflow``): where its user-data
folders are on disk (``user_data``, handed over as ``folders.UserData``), the
agent-visible ``/mnt/user-data`` paths beside ``thread_data`` (``paths``), ``artifacts`` under outputs
(``artifacts``), ``viewed_images`` entries checked (``viewed_images``) and along the history
(``image_history``, ``image_facts``) and
``uploaded_files`` (``uploads``), and the media report of a checkpoint that gathers them
(``media_report``), the one set of rows the CLI and the pages show.

May import ``store`` and ``safety``.
"""
