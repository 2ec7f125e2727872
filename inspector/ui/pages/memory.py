from inspector.ui import memory_page
from inspector.ui.guard import guarded

guarded("The Memory page", memory_page.render)
