from inspector.ui import diff_page

diff_page.render()
