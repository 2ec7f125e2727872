from inspector.ui import media_views, sizes_views, thread_page

media_views.register()
sizes_views.install_panel(thread_page.THREAD_PANELS)
thread_page.render()
