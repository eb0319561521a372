#!/usr/bin/env python3
"""The pages for people in a real browser: Debian's chromium driven by Playwright (PyPI; its own
browser download is never used), every step by keyboard alone, axe-core (axe-playwright-python)
on every page, and screenshots at 390 and 1280 px wide.

Against a served city (e.g. `hearclear-bench simulate` into `hearclear serve`), it:

1. opens /, tabs to "Venue name", types the start of a venue's name, presses Enter;
2. tabs to the first result and opens it with Enter;
3. on the venue's page, tabs to the report form, chooses a feeling with the arrow keys, types a
   comment, and sends it with Enter;
4. back at /, types coordinates, chooses "On a day, at an hour", a day and an hour with the arrow
   keys, ticks "Easy to talk" with Space, and searches with Enter;
5. in a browser that shares its location (granted, at --lat/--lon), tabs to "Near me" and presses
   Enter; with --map, the results' map must show a marker for each result;

and fails (exit 1) when a step does not reach its page, a page scrolls sideways at 320 px, or axe
finds a serious or critical violation. Screenshots go to --screenshots (default screenshots/pages, gitignored).

    scripts/pages-browser.py --url http://127.0.0.1:8080 --name "The Ar" --lat 51.5 --lon -0.12
"""

import argparse
import os
import sys
from pathlib import Path

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import sync_playwright

from page_checks import WIDTHS, shoot, tab_to

SERIOUS = {"serious", "critical"}


def submit(page, key="Enter"):
    """Presses `key` and waits for the page it leads to."""
    with page.expect_navigation():
        page.keyboard.press(key)
    page.wait_for_load_state()


def check_axe(page, axe, failures, name):
    results = axe.run(page)
    violations = results.response.get("violations", [])
    bad = [v for v in violations if v.get("impact") in SERIOUS]
    for v in violations:
        print(f"  axe {v.get('impact')}: {v['id']} ({len(v['nodes'])} nodes) — {v['help']}")
    if bad:
        failures.append(f"{name}: {', '.join(v['id'] for v in bad)}")
    print(f"{name}: {len(violations)} axe violations, {len(bad)} serious or critical")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the served HearClear, e.g. http://127.0.0.1:8080")
    parser.add_argument("--name", required=True, help="the start of a venue's name to search for")
    parser.add_argument("--lat", required=True, help="latitude of a point with venues around")
    parser.add_argument("--lon", required=True, help="longitude of that point")
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="Debian's chromium (default: %(default)s)")
    parser.add_argument("--screenshots", default="screenshots/pages")
    parser.add_argument("--map", action="store_true", help="the server has a map (--map-tiles-url): check it")
    args = parser.parse_args()
    folder = Path(args.screenshots)
    folder.mkdir(parents=True, exist_ok=True)
    failures = []
    axe = Axe()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport=WIDTHS["1280"])
        page.goto(args.url + "/")
        check_axe(page, axe, failures, "home")
        shoot(page, folder, "home", failures)

        # 1. By name.
        tab_to(page, "#q")
        page.keyboard.type(args.name)
        submit(page)
        results = page.locator("ol.results li h3 a")
        if results.count() == 0:
            failures.append(f"no result for the name {args.name!r}")
        check_axe(page, axe, failures, "results by name")
        shoot(page, folder, "results-by-name", failures)

        # 2. The first result, by keyboard.
        tab_to(page, "ol.results li h3 a")
        submit(page)
        if "/venues/" not in page.url:
            failures.append(f"Enter on the first result went to {page.url}")
        check_axe(page, axe, failures, "venue")
        shoot(page, folder, "venue", failures)

        # 3. The report form: a feeling (arrow keys within the radio group), a comment, Enter.
        tab_to(page, "input[name=felt]")
        page.keyboard.press("ArrowDown")
        tab_to(page, "#comment")
        page.keyboard.type("Checked by keyboard: a band started at nine.")
        tab_to(page, "form[method=post] button[type=submit]")
        submit(page)
        text = page.inner_text("main") if page.locator("main").count() else page.inner_text("body")
        if "thank" not in text.lower():
            failures.append(f"the report did not reach its thank-you page: {page.url}")
        check_axe(page, axe, failures, "report sent")
        shoot(page, folder, "report-sent", failures)

        # 4. By coordinates, at a day and hour, easy to talk.
        page.goto(args.url + "/")
        tab_to(page, "#lat")
        page.keyboard.type(args.lat)
        tab_to(page, "#lon")
        page.keyboard.type(args.lon)
        tab_to(page, "#when-now")
        page.keyboard.press("ArrowDown")  # moves the choice to "On a day, at an hour"
        tab_to(page, "#day")
        page.keyboard.press("ArrowDown")
        tab_to(page, "#hour")
        for _ in range(3):
            page.keyboard.press("ArrowDown")
        tab_to(page, "#talk")
        page.keyboard.press("Space")
        tab_to(page, "form.search button[type=submit]")
        submit(page)
        query = page.url.split("?", 1)[-1]
        for part in ("when=at", "talk=easy", "lat=", "lon="):
            if part not in query:
                failures.append(f"the coordinate search lost {part}: {page.url}")
        check_axe(page, axe, failures, "results by coordinates")
        shoot(page, folder, "results-by-coordinates", failures)

        # 5. Near me (the browser's location, granted), and the map of the results: Leaflet from
        #    the server; its tiles come from a tile server the test does not have, so the map
        #    shows markers on a blank ground.
        context = browser.new_context(
            viewport=WIDTHS["1280"], permissions=["geolocation"],
            geolocation={"latitude": float(args.lat), "longitude": float(args.lon)})
        page = context.new_page()
        page.goto(args.url + "/")
        tab_to(page, "#near-me")
        submit(page)
        query = page.url.split("?", 1)[-1]
        if "lat=" not in query or "lon=" not in query:
            failures.append(f"near me did not search by coordinates: {page.url}")
        found = page.locator("ol.results > li").count()
        if found == 0:
            failures.append("near me found nothing")
        if args.map:
            page.wait_for_selector(".leaflet-marker-icon", timeout=10000)
            markers = page.locator(".leaflet-marker-icon").count()
            if markers != found:
                failures.append(f"the map shows {markers} markers for {found} results")
            print(f"near me: {found} results, {markers} markers on the map")
        check_axe(page, axe, failures, "results near me")
        shoot(page, folder, "results-near-me", failures)
        context.close()
        browser.close()
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print(f"every step by keyboard; no serious or critical axe violation; screenshots in {folder}")


if __name__ == "__main__":
    main()
