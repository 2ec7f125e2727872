"""The pieces of app knowledge the core asks a thread's profile about, each declared once here.

A profile claims the pieces that hold for its app (``Profile.knowledge``); the core asks
``profiles.knows(piece)`` before it applies one, so an app's rules stay out of every thread
whose profile does not claim them (the generic LangGraph base claims none). Like datasette's
``hookspecs.py``: a new piece is a name and a line here, and a test holds each one documented.
"""

from __future__ import annotations

USER_DATA = "user-data"
VIEWED_IMAGES = "viewed-images"
ARTIFACTS = "artifacts"
HIDDEN_MESSAGES = "hidden-messages"

PIECES = {
    USER_DATA: "the app keeps a thread's files in folders its state's paths point into (workspace, uploads, "
               "outputs), found on this machine from the state, --data-dir or the store's folder",
    VIEWED_IMAGES: "``viewed_images`` holds the images the agent viewed, and a transient message shows them to "
                   "the model for one call",
    ARTIFACTS: "``artifacts`` lists files presented to the user, paths under the outputs folder",
    HIDDEN_MESSAGES: "some messages are hidden by the app's own chat UI, and some text carries its internal tags",
}
