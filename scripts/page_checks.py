"""What the pages' browser tests (pages-browser.py, measure-browser.py) check alike: the widths
screenshots are taken at, and reflow at 320 px."""

WIDTHS = {"390": {"width": 390, "height": 844}, "1280": {"width": 1280, "height": 900}}


def shoot(page, folder, name, failures):
    """Screenshots at each width; at 320 px (WCAG 1.4.10, reflow) nothing may scroll sideways."""
    page.set_viewport_size({"width": 320, "height": 800})
    wide = page.evaluate("document.documentElement.scrollWidth")
    if wide > 320:
        failures.append(f"{name}: {wide} px wide at a 320 px viewport (scrolls sideways)")
    for width, size in WIDTHS.items():
        page.set_viewport_size(size)
        page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size(WIDTHS["1280"])


def tab_to(page, selector, limit=60):
    """Presses Tab until `selector` has the focus; fails when it never does."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector} on {page.url}")
