from inspector.ui import thread_page
from inspector.ui.guard import guarded

guarded("The thread page", thread_page.render)
