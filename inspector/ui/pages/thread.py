from inspector.ui import media_views, sizes_views, thread_page
from inspector.ui.guard import guarded

media_views.register()
sizes_views.install_panel(thread_page.THREAD_PANELS)
guarded("The thread page", thread_page.render)
