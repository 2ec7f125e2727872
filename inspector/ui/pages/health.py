from inspector.ui import health_page

health_page.render()
