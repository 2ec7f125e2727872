from inspector.ui import thread_page

thread_page.render()
