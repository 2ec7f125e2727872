from inspector.ui import diff_page
from inspector.ui.guard import guarded

guarded("The diff page", diff_page.render)
