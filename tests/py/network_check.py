#!/usr/bin/env python3
"""The network view's pages (issue 30) in a real headless Chromium, driven by
Playwright. Run by tests/external/browser.rs against a server it started:

    network_check.py --base http://127.0.0.1:PORT --out DIR

Checks, each at 1280 x 800 and 390 x 844, in English and Bangla:
  * /AS174: the way to the prefixes (`#to-prefixes-link`) is on the first
    screen, and following it brings the prefix list into view;
  * /AS174?q=2001:550 (the search form, submitted without JavaScript) lists
    only AS174's prefixes that contain 2001:550, as many as the JSON's
    `search.matches` says on this page;
  * the address page's range link opens the prefix page of that range;
  * /country/BD lists its ASes (as many rows as the JSON's page: the first
    100 in view, the others behind "show") and each links its AS page;
  * no request leaves the origin.
Saves the screenshots {as174,prefix,country}-{en,bn}-{desktop,phone}.png
(the first screen) into --out.

Exits 0 when everything holds; otherwise prints what failed and exits 1.
"""

import argparse
import json
import os
import sys
import urllib.request
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

import lazy_sections

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", flush=True)
    return cond


def get_json(url):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(urllib.request.Request(url, headers={"Accept": "application/json"}), timeout=120) as r:
        return json.loads(r.read())


def in_first_screen(page, selector, height):
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height


def room_held(page, label, path):
    """A part laid out only when scrolled near (`content-visibility: auto`:
    a section, or a chunk of a long list) holds at least its real height
    while skipped; taller content is drawn over what follows when a tool
    measures the skipped part. Returns how many list chunks there are."""
    rows, short = lazy_sections.room_held(page)
    check(rows, f"{label}: {path} has no part laid out only when near")
    check(not short, f"{label}: {path}: parts taller than the room held: {short}")
    return sum(1 for r in rows if r[0].startswith("ul.chunk"))


def filter_keeps_matches_together(page, label):
    """The script's filter over the 500 prefixes of /AS174's first page (GB's
    are in its first, second and ninth chunks):
    the count says how many match, only matching items show, and they stand
    together (a chunk without a match is hidden, the others laid out), so
    the last match is not pushed down by the room skipped chunks hold."""
    every = page.evaluate("[...document.querySelectorAll('#prefixes li')].map(li => li.textContent)")
    want = [t for t in every if "gb" in t.lower()]
    page.fill("#filter input", "GB")
    page.wait_for_timeout(300)
    shown = page.locator("#prefixes li:visible").all_inner_texts()
    check(len(shown) == len(want) > 0, f"{label}: the filter shows {len(shown)} of the page's {len(want)} prefixes in GB")
    lead = page.evaluate("document.querySelector('#prefixes').getBoundingClientRect().height")
    check(lead < 24 * len(want) + 400, f"{label}: the {len(want)} matches stand together ({lead:.0f} px)")
    page.fill("#filter input", "")
    page.wait_for_timeout(300)
    check(page.locator("#prefixes li:visible").count() == len(every), f"{label}: clearing the filter shows every prefix again")


def run(browser, base, out):
    origin = urlsplit(base).netloc
    as174 = get_json(f"{base}/api/v1/asn/174?q=2001:550")
    want_matches = len(as174["prefixes"]["v4"]) + len(as174["prefixes"]["v6"])
    check(want_matches > 0, "AS174 has prefixes containing 2001:550 in the data")
    country = get_json(f"{base}/api/v1/country/BD")
    info = get_json(f"{base}/api/v1/ip/8.8.8.8")
    rng = info["network"]["range"]
    for lang in ["en", "bn"]:
        q = "?lang=bn" if lang == "bn" else ""
        for name, viewport in VIEWPORTS.items():
            label = f"{lang} {name}"
            context = browser.new_context(viewport=viewport, device_scale_factor=1, is_mobile=name == "phone")
            page = context.new_page()
            foreign = []
            page.on("request", lambda r: urlsplit(r.url).netloc not in (origin, "") and not r.url.startswith("data:") and foreign.append(r.url))

            for path in ["/AS174", "/AS6939", "/country/US"]:
                page.goto(f"{base}{path}{q}")
                chunks = room_held(page, label, path)
                if path == "/AS174":
                    check(chunks == 10, f"{label}: /AS174's 500 prefixes in 10 chunks laid out when near, not {chunks}")
            page.goto(f"{base}/AS174{q}")
            check(in_first_screen(page, "#to-prefixes-link", viewport["height"]), f"{label}: /AS174 way to the prefixes on the first screen")
            page.screenshot(path=os.path.join(out, f"as174-{lang}-{name}.png"))
            page.click("#to-prefixes-link")
            page.wait_for_function("location.hash === '#prefix-section'")
            page.wait_for_timeout(800)
            top = page.evaluate("document.querySelector('#prefix-section h2').getBoundingClientRect().top")
            check(-2 <= top < viewport["height"] / 2, f"{label}: the link brings the prefixes into view (heading at {top:.0f} px)")

            page.goto(f"{base}/AS174{q}")
            filter_keeps_matches_together(page, label)
            page.fill("#prefix-search input[name=q]", "2001:550")
            page.click("#prefix-search button")
            page.wait_for_load_state()
            # textContent: the items of a chunk not yet scrolled near have no
            # innerText until it is laid out.
            items = page.evaluate("[...document.querySelectorAll('#prefixes li')].map(li => li.textContent)")
            check(len(items) == want_matches, f"{label}: ?q=2001:550 lists {len(items)}, the JSON {want_matches}")
            check(all("2001:550" in i for i in items), f"{label}: every match contains 2001:550")
            check("q=2001" in page.url, f"{label}: the search is in the URL ({page.url})")

            page.goto(f"{base}/8.8.8.8{q}")
            page.click("#summary-range")
            page.wait_for_load_state()
            check(urlsplit(page.url).path == f"/{rng}", f"{label}: the range link opens /{rng} ({page.url})")
            check(page.locator("h1").first.inner_text().strip() == rng, f"{label}: the prefix page is headed {rng}")
            page.screenshot(path=os.path.join(out, f"prefix-{lang}-{name}.png"))

            page.goto(f"{base}/country/BD{q}")
            page.screenshot(path=os.path.join(out, f"country-{lang}-{name}.png"))
            # The first 100 of the page's ASes in view, the others behind
            # "show the other N" (a closed <details>): as many as the JSON's page.
            total = len(country["ases"])
            rows = page.locator("#ases tbody tr")
            check(rows.count() == min(total, 100), f"{label}: /country/BD shows {rows.count()} ASes first, of the JSON's {total}")
            rest = page.locator("#ases-rest tbody tr")
            check(total <= 100 or not rest.first.is_visible(), f"{label}: the other ASes wait behind 'show'")
            if total > 100:
                page.click("#more-ases summary")
                check(rest.first.is_visible(), f"{label}: 'show' opens the other ASes")
            check(rows.count() + rest.count() == total, f"{label}: /country/BD lists {rows.count()} + {rest.count()} ASes, the JSON {total}")
            top = country["ases"][0]["asn"]
            check(page.locator(f"#ases a[href^='/AS{top}']").count() >= 1, f"{label}: its first AS links /AS{top}")

            check(not foreign, f"{label}: requests left the origin: {foreign[:3]}")
            context.close()
    print(f"network pages: {checks} checks", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    base = a.base.rstrip("/")
    os.makedirs(a.out, exist_ok=True)
    exe = os.environ.get("IPLOOKUP_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        print(f"browser: Chromium {browser.version}", flush=True)
        run(browser, base, a.out)
        browser.close()
    if failures:
        print(f"{len(failures)} of {checks} checks failed:")
        for f in failures:
            print(f"  {f}")
        sys.exit(1)
    print(f"OK: {checks} checks")


if __name__ == "__main__":
    main()
