#!/usr/bin/env python3
"""Screenshots of the /farmer admin in a real browser, at phone and desktop widths.

Signs in through the login form like a person would, then visits the dashboard, the venue list,
the first venue, its first check-in, the devices and the bands editor (with a preview), and saves
one full-page PNG per page and width into screenshots/ (gitignored).

Needs Debian's chromium and Playwright from PyPI (its own browser download is not used):

    apt-get install -y chromium && pip install playwright
    HEARCLEAR_ADMIN_PASSWORD=... python3 scripts/screenshots.py --url http://127.0.0.1:8080

The password comes from --password or HEARCLEAR_ADMIN_PASSWORD.
"""

import argparse
import os
import re
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

WIDTHS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


def sign_in(page, base, user, password):
    page.goto(f"{base}/farmer")
    page.fill("#username", user)
    page.fill("#password", password)
    page.click("button[type=submit]")
    page.wait_for_load_state()
    if not page.url.endswith("/farmer/dashboard"):
        sys.exit(f"sign-in failed: ended at {page.url}")


def links(page, pattern):
    hrefs = page.eval_on_selector_all("a[href]", "links => links.map(a => a.getAttribute('href'))")
    return [href for href in hrefs if re.match(pattern, href)]


def interesting_checkin(page):
    """An outlier's or excluded check-in's link on a venue page if there is one, else the first."""
    for status in ("outlier", "excluded"):
        row = page.locator(f"tr:has(span.tag.{status}) a[href^='/farmer/checkins/']").first
        if row.count():
            return row.get_attribute("href")
    found = links(page, r"^/farmer/checkins/")
    return found[0] if found else None


def shoot(page, out, name, width):
    path = out / f"{name}-{width}.png"
    page.screenshot(path=str(path), full_page=True)
    print(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8080")
    parser.add_argument("--user", default=os.environ.get("HEARCLEAR_ADMIN_USER", "admin"))
    parser.add_argument("--password", default=os.environ.get("HEARCLEAR_ADMIN_PASSWORD"))
    parser.add_argument("--out", default="screenshots")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    if not args.password:
        sys.exit("give the admin password with --password or HEARCLEAR_ADMIN_PASSWORD")
    base = args.url.rstrip("/")
    out = Path(args.out)
    out.mkdir(exist_ok=True)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        for width, viewport in WIDTHS.items():
            context = browser.new_context(viewport=viewport, device_scale_factor=1)
            page = context.new_page()
            page.goto(f"{base}/farmer")
            shoot(page, out, "0-login", width)
            sign_in(page, base, args.user, args.password)
            shoot(page, out, "1-dashboard", width)
            page.goto(f"{base}/farmer/venues")
            shoot(page, out, "2-venues", width)
            for venue in links(page, r"^/farmer/venues/[^?]+$")[:10]:
                page.goto(base + venue)
                checkin = interesting_checkin(page)
                if checkin:
                    shoot(page, out, "3-venue", width)
                    page.goto(base + checkin)
                    shoot(page, out, "4-checkin", width)
                    break
            page.goto(f"{base}/farmer/devices")
            shoot(page, out, "5-devices", width)
            page.goto(f"{base}/farmer/bands")
            page.locator("input[name=below]").first.fill("65")
            page.click("button[formaction='/farmer/bands/preview']")
            page.wait_for_load_state()
            shoot(page, out, "6-bands-preview", width)
            context.close()
        browser.close()


if __name__ == "__main__":
    main()
