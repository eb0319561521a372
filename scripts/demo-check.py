#!/usr/bin/env python3
"""`make demo`'s city in a real browser (run by scripts/demo-check.sh): Debian's chromium driven by
Playwright, its own browser download never used.

Against a served demo, it checks what a newcomer sees first:

1. `/`: a search by the name of one of the demo's venues (from its truth file) finds it, and
   every result is a demo venue;
2. that venue's page: its week has measured hours (a number without "est." in the week's table);
3. `/measure?venue=…` opens for that venue;
4. `/farmer`: signing in with the password the demo printed reaches the dashboard, which counts
   the demo's venues and check-ins and lists hours that reports dispute; the venue list, a
   venue's check-ins and the open reports are there;

and fails (exit 1) naming each step that does not hold. Screenshots at 390 and 1280 px go to
--screenshots (default screenshots/demo, gitignored).
"""

import argparse
import json
import re
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

WIDTHS = {"390": {"width": 390, "height": 844}, "1280": {"width": 1280, "height": 900}}


def shoot(page, folder, name):
    for width, size in WIDTHS.items():
        page.set_viewport_size(size)
        page.screenshot(path=str(folder / f"{name}-{width}.png"), full_page=True)
    page.set_viewport_size(WIDTHS["1280"])


def number(text):
    """The digits of `text` as one number (figures are grouped by commas or thin spaces)."""
    digits = re.sub(r"\D", "", text)
    return int(digits) if digits else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the served demo, e.g. http://127.0.0.1:8080")
    parser.add_argument("--password", required=True, help="the admin password the demo printed")
    parser.add_argument("--truth", required=True, help="the demo's truth file (DEMO_DIR/truth.json)")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="Debian's chromium (default: %(default)s)")
    parser.add_argument("--screenshots", default="screenshots/demo")
    args = parser.parse_args()
    base = args.url.rstrip("/")
    folder = Path(args.screenshots)
    folder.mkdir(parents=True, exist_ok=True)
    venues = [v["venue"] for v in json.load(open(args.truth))["venues"]]
    names = {v["name"] for v in venues}
    venue = venues[0]
    failures = []

    def check(condition, message):
        print(("ok   " if condition else "FAIL ") + message)
        if not condition:
            failures.append(message)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport=WIDTHS["1280"])

        # 1. Find a quiet place, by the name of a demo venue.
        page.goto(base + "/")
        shoot(page, folder, "1-home")
        page.fill("#q", venue["name"])
        with page.expect_navigation():
            page.press("#q", "Enter")
        found = [t.strip() for t in page.locator("ol.results li h3 a").all_inner_texts()]
        check(venue["name"] in found, f"/ by name {venue['name']!r} finds it (results: {found})")
        check(found and all(name in names for name in found), "every result is a demo venue")
        shoot(page, folder, "2-results-by-name")

        # 2. The venue's page: the week has measured hours.
        page.locator("ol.results li h3 a", has_text=venue["name"]).first.click()
        page.wait_for_load_state()
        check(page.url.endswith("/venues/" + venue["id"]), f"the result opens the venue's page ({page.url})")
        measured = page.locator("table.week-table td:not(.empty)").filter(has_not=page.locator("abbr"))
        cells = [t for t in measured.all_inner_texts() if re.search(r"\d", t)]
        check(len(cells) >= 10, f"the venue's week shows measured hours ({len(cells)} cells)")
        summary = page.locator("main").inner_text()
        hours = re.search(r"From ([\d,]+) check-ins: ([\d,]+) hours measured", summary)
        check(hours is not None and number(hours.group(1)) > 0 and number(hours.group(2)) > 0,
              f"the venue's page counts its check-ins and measured hours ({hours and hours.group(0)})")
        shoot(page, folder, "3-venue")

        # 3. Measure here, for that venue.
        page.goto(f"{base}/measure?venue={venue['id']}")
        chosen = page.locator("#chosen-venue")
        check(chosen.count() == 1 and venue["name"] in chosen.inner_text(), "/measure opens for the venue")
        shoot(page, folder, "4-measure")

        # 4. The admin, with the printed password.
        page.goto(base + "/farmer")
        shoot(page, folder, "5-farmer-login")
        page.fill("#username", "admin")
        page.fill("#password", args.password)
        with page.expect_navigation():
            page.click("button[type=submit]")
        check(page.url.endswith("/farmer/dashboard"), f"/farmer signs in with the printed password ({page.url})")
        totals = {}
        for row in page.locator("section[aria-labelledby=totals] dl.figures").first.locator("div").all():
            totals[row.locator("dt").inner_text().strip().lower()] = number(row.locator("dd").first.inner_text())
        venue_total = next((v for k, v in totals.items() if "venue" in k), 0)
        checkin_total = next((v for k, v in totals.items() if "check-in" in k), 0)
        check(venue_total == len(venues), f"the dashboard counts the {len(venues)} venues ({totals})")
        check(checkin_total > 1000, f"the dashboard counts the check-ins ({checkin_total})")
        disputed = page.locator("section[aria-labelledby=reports] tbody tr").count()
        check(disputed > 0, f"the dashboard lists hours that reports dispute ({disputed})")
        shoot(page, folder, "6-farmer-dashboard")

        page.goto(base + "/farmer/venues")
        listed = [t.strip() for t in page.locator("tbody tr td:first-child a").all_inner_texts()]
        check(listed and all(name in names for name in listed), f"/farmer/venues lists demo venues ({len(listed)})")
        shoot(page, folder, "7-farmer-venues")

        page.locator("tbody tr td:first-child a").first.click()
        page.wait_for_load_state()
        rows = page.locator("section[aria-labelledby=checkins] tbody tr").count()
        check(rows > 0, f"a venue's admin page lists its check-ins ({rows})")
        shoot(page, folder, "8-farmer-venue")

        page.goto(base + "/farmer/reports")
        reports = page.locator("tbody tr").count()
        check(reports > 0, f"/farmer/reports lists the demo's reports ({reports})")
        shoot(page, folder, "9-farmer-reports")
        browser.close()

    if failures:
        print(f"demo check: {len(failures)} failed", file=sys.stderr)
        sys.exit(1)
    print(f"demo check: all held; screenshots in {folder}")


if __name__ == "__main__":
    main()
