from inspector.ui import health_page
from inspector.ui.guard import guarded

guarded("The Health page", health_page.render)
