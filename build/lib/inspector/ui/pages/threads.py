from inspector.ui import threads_page
from inspector.ui.guard import guarded

guarded("The thread list", threads_page.render)
