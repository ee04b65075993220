#!/usr/bin/env python3
"""The "JSON / Markdown / text" links of the pages, followed in a real headless
Chromium (Debian's `chromium`, driven by Playwright). Run by
tests/external/api_in_browser.rs against a server it started:

    browser_formats.py --base http://127.0.0.1:PORT

For each page (/, /8.8.8.8, /10.1.2.3, /2001:db8::1, /AS15169) at 1280 x 800
and 390 x 844: every link named JSON, Markdown or text is clicked as a person
would, and the document Chromium then shows must be that format: its
Content-Type (application/json, text/markdown, text/plain) and a body of that
form (JSON that parses, Markdown with a heading, text without markup); no
download instead of a page. Then /api/v1/ip/8.8.8.8 typed into the address
bar (Chromium's own Accept: text/html,...) must be application/json too, and
?format=html the HTML page.

Exits 0 when everything holds; otherwise prints what failed and exits 1.
Never downloads a browser: Chromium is /usr/bin/chromium (or $IPLOOKUP_CHROMIUM).
"""

import argparse
import json
import os
import sys

from playwright.sync_api import sync_playwright

from browser_check import CHROMIUM_ARGS, DESKTOP, PHONE

PAGES = ["/", "/8.8.8.8", "/10.1.2.3", "/2001:db8::1", "/AS15169"]

# Link text -> the media type the document must have.
WANT = {
    "JSON": "application/json",
    "Markdown": "text/markdown",
    "text": "text/plain",
}

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", flush=True)
    return cond


def media_type(response):
    return (response.headers.get("content-type") or "").split(";")[0].strip()


def body_fits(kind, body):
    """Whether the body has the form of its media type."""
    if kind == "application/json":
        try:
            return isinstance(json.loads(body), dict)
        except ValueError:
            return False
    if kind == "text/markdown":
        return body.lstrip().startswith("#")
    return "<html" not in body.lower() and "<!doctype" not in body.lower()


def follow_links(browser, base, label, viewport):
    context = browser.new_context(viewport=viewport, device_scale_factor=1, accept_downloads=True)
    downloads = []
    context.on("page", lambda p: p.on("download", lambda d: downloads.append(d.url)))
    page = context.new_page()
    page.on("download", lambda d: downloads.append(d.url))
    for path in PAGES:
        for name, want in WANT.items():
            resp = page.goto(base + path)
            check(resp is not None and resp.status == 200, f"{label} {path}: status {resp and resp.status}")
            link = page.get_by_role("link", name=name, exact=True)
            if not check(link.count() >= 1, f"{label} {path}: no link named {name!r}"):
                continue
            href = link.first.get_attribute("href")
            with page.expect_navigation() as nav:
                link.first.click()
            opened = nav.value
            got = media_type(opened) if opened else None
            check(
                got == want,
                f"{label} {path}: the {name} link ({href}) opened {got!r}, not {want}",
            )
            body = opened.text() if opened else ""
            check(body_fits(want, body), f"{label} {path}: the {name} link ({href}) is not {want}: {body[:80]!r}")
            # What Chromium shows is the body as text, not a page built from it.
            check(page.locator("html").count() == 1, f"{label} {path}: no document after {name}")
            print(f"{label} {path}: {name} -> {href} -> {got}", flush=True)
    check(not downloads, f"{label}: links downloaded instead of opening: {downloads}")
    context.close()


def address_bar(browser, base):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    for path in ["/api/v1/ip/8.8.8.8", "/api/v1/me", "/api/v1/asn/15169"]:
        resp = page.goto(base + path)
        # The headers Chromium really sent (set by its network stack).
        accept = resp.request.all_headers().get("accept", "")
        check("text/html" in accept, f"address bar {path}: Chromium's Accept was {accept!r}")
        got = media_type(resp)
        check(got == "application/json", f"address bar {path}: {got!r}, not application/json")
        check(body_fits("application/json", resp.text()), f"address bar {path}: body {resp.text()[:80]!r}")
        print(f"address bar {path} (Accept: {accept}) -> {got}", flush=True)
    resp = page.goto(base + "/api/v1/ip/8.8.8.8?format=html")
    check(media_type(resp) == "text/html", f"?format=html: {media_type(resp)!r}")
    check(page.locator("h1#ip").count() == 1, "?format=html: not the address page")
    context.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, help="server base URL, e.g. http://127.0.0.1:8080")
    a = ap.parse_args()
    base = a.base.rstrip("/")
    exe = os.environ.get("IPLOOKUP_CHROMIUM", "/usr/bin/chromium")
    if not os.path.exists(exe):
        print(f"FAIL: no Chromium at {exe} (install Debian's chromium)")
        sys.exit(1)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        print(f"browser: Chromium {browser.version}", flush=True)
        for label, viewport in [("desktop", DESKTOP), ("phone", PHONE)]:
            follow_links(browser, base, label, viewport)
        address_bar(browser, base)
        browser.close()
    if failures:
        print(f"{len(failures)} of {checks} checks failed:")
        for f in failures:
            print(f"  - {f}")
        sys.exit(1)
    print(f"OK: {checks} checks")


if __name__ == "__main__":
    main()
