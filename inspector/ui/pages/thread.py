from inspector.ui import media_views, thread_page

media_views.register()
thread_page.render()
