from inspector.ui import threads_page

threads_page.render()
