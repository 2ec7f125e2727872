"""The test fixtures themselves: a real Streamlit server driven by Chromium."""

import textwrap

from browser_helpers import shot, wait_for_app


def test_streamlit_script_renders_in_chromium(tmp_path, streamlit_app, page):
    script = tmp_path / "hello.py"
    script.write_text(textwrap.dedent("""
        import streamlit as st
        st.title("Fixture check")
        if st.button("Press"):
            st.success("pressed")
    """))
    page.goto(streamlit_app(script=script))
    wait_for_app(page)
    assert page.get_by_role("heading", name="Fixture check").is_visible()

    page.get_by_role("button", name="Press").click()
    wait_for_app(page)
    alert = page.locator("[data-testid='stAlert']")
    assert alert.inner_text() == "pressed"
    assert shot(alert, "infrastructure-alert").stat().st_size > 0
