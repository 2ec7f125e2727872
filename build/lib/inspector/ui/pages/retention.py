from inspector.ui import retention_page
from inspector.ui.guard import guarded

guarded("The Retention page", retention_page.render)
