#!/usr/bin/env python3
"""/docs in a real headless Chromium (Debian's `chromium`), driven by
Playwright. Run by tests/external/docs.rs against a server it started:

    docs_check.py --base http://127.0.0.1:PORT --out DIR

Checks, on a desktop (1280 px) and a phone (390 px) viewport, JavaScript on
and off:
  * no literal backtick in the page's visible text (code is <code>);
  * the table of contents resolves: every #anchor of nav#toc names an element;
  * it stays in view: after scrolling to the middle of the page, nav#toc is at
    the top of the viewport (a sticky sidebar at 1280 px, a sticky menu at
    390 px); no code "8.8.8.8" breaks across lines; copy buttons on the
    examples (JavaScript on);
  * the first operation on the page is a lookup (GET /api/v1/me), and the
    lookups come before the pages;
  * every operation has a `curl` example naming the server's base URL;
  * the field tables describe IpInfo's members (country_bn, calling_code,
    accuracy) and the error table lists invalid_ip with 400;
  * the contents mark where the reader is (JavaScript on);
  * GET /api/v1/ip/{ip} shows its call in curl, Python, TypeScript and
    Rust (all shown without JavaScript, as tabs with it);
  * the batch route has a table of its request body, and its try-it form
    (JavaScript on) answers a JSON and an NDJSON batch;
  * the try-it form of GET /api/v1/ip/{ip} answers 8.8.8.8: with JavaScript
    on the page (the JSON shown in its <pre>), without it by navigating to
    the answer;
  * no request left the server's origin, no CSP violation or console error;
  * the page fits the phone's width (no horizontal scrolling).
Saves screenshots of the top of the page, docs-desktop.png (1280 px wide)
and docs-phone.png (390 px), into --out.

Exits 0 when everything holds; otherwise prints what failed and exits 1.
"""

import argparse
import json
import os
import sys

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


def render_all(page):
    """The operation and schema sections are `content-visibility: auto`: the
    browser renders a section only near the screen, and the text of one it
    has not rendered reads as empty (`innerText`). A reader scrolling sees
    each; these checks read them all at once, so render them all first."""
    page.evaluate("document.querySelectorAll('section').forEach(s => s.style.contentVisibility = 'visible')")


def room_held(page, label):
    """Each `content-visibility: auto` section holds at least its real height
    while skipped ([`lazy_sections`])."""
    rows, short = lazy_sections.room_held(page)
    check(len(rows) > 30, f"{label}: {len(rows)} sections laid out when near")
    check(not short, f"{label}: sections taller than the room held for them: {short}")


def run(base, out):
    exe = os.environ.get("IPLOOKUP_CHROMIUM", "/usr/bin/chromium")
    if not os.path.exists(exe):
        print(f"FAIL: no Chromium at {exe}")
        return 1
    os.makedirs(out, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        print(f"browser: Chromium {browser.version}", flush=True)
        for name, viewport in VIEWPORTS.items():
            for js in (True, False):
                label = f"{name}/{'js' if js else 'nojs'}"
                context = browser.new_context(
                    viewport=viewport,
                    java_script_enabled=js,
                    is_mobile=name == "phone",
                    has_touch=name == "phone",
                    device_scale_factor=1,
                    color_scheme="light",
                    locale="en-US",
                )
                requests, console, failed = [], [], []
                context.on("request", lambda r: requests.append(r.url))
                # A JSON answer has no icon link: Chromium then asks /favicon.ico (404).
                context.on(
                    "response",
                    lambda r: failed.append(f"{r.status} {r.url}")
                    if r.status >= 400 and not r.url.endswith("/favicon.ico")
                    else None,
                )
                page = context.new_page()
                page.on(
                    "console",
                    lambda m: console.append(m.text)
                    if m.type in ("error", "warning") and not m.text.startswith("Failed to load resource")
                    else None,
                )
                page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
                resp = page.goto(base + "/docs")
                check(resp is not None and resp.status == 200, f"{label}: /docs status")
                check(
                    resp.headers.get("content-type", "").startswith("text/html"),
                    f"{label}: /docs content-type {resp.headers.get('content-type')}",
                )
                if js:
                    # Without a script every language's sample shows at once:
                    # taller sections, a case no auditor of the page sees.
                    room_held(page, label)
                render_all(page)
                text = page.locator("body").inner_text()
                ticks = text.count("`")
                check(ticks == 0, f"{label}: {ticks} literal backticks in the visible text")
                check(page.locator("code").count() > 100, f"{label}: code spans rendered as <code>")

                # The table of contents resolves.
                hrefs = page.eval_on_selector_all("nav#toc a", "as => as.map(a => a.getAttribute('href'))")
                check(len(hrefs) > 25, f"{label}: table of contents has {len(hrefs)} links")
                missing = [h for h in hrefs if not h.startswith("#") or page.locator(f"[id='{h[1:]}']").count() != 1]
                check(not missing, f"{label}: contents links without a target: {missing}")
                # The contents stay in view: a sidebar (desktop) or a sticky
                # menu (phone) after scrolling to the middle of the page.
                page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight / 2)")
                page.wait_for_timeout(200)
                top, bottom = page.evaluate(
                    "(() => { const r = document.querySelector('nav#toc').getBoundingClientRect(); return [r.top, r.bottom]; })()"
                )
                check(
                    page.evaluate("window.scrollY") > 1000 and 0 <= top < 40 and top < bottom <= viewport["height"],
                    f"{label}: contents not in view in the middle of the page: top {top}, bottom {bottom}",
                )
                if js:
                    # The contents mark where the reader is: one link, whose
                    # target reaches the top quarter of the viewport.
                    page.wait_for_timeout(300)
                    marked = page.eval_on_selector_all(
                        "nav#toc a[aria-current]", "as => as.map(a => a.getAttribute('href'))"
                    )
                    where = (
                        page.evaluate(
                            f"(() => {{ const r = document.getElementById({json.dumps(marked[0][1:])}).getBoundingClientRect(); return [r.top, r.bottom]; }})()"
                        )
                        if len(marked) == 1
                        else None
                    )
                    check(
                        where is not None and where[0] <= viewport["height"] / 4 and where[1] > 0,
                        f"{label}: contents mark {marked} at {where} in the middle of the page",
                    )
                shown = page.locator('nav#toc a[href="#fields"]' if name == "desktop" else "nav#toc summary")
                check(shown.is_visible(), f"{label}: contents' {'links' if name == 'desktop' else 'menu'} shown")
                page.evaluate("window.scrollTo(0, 0)")
                # "8.8.8.8" never broken across lines.
                broken = page.evaluate(
                    "[...document.querySelectorAll('code')].filter(c => /^\"?8\\.8\\.8\\.8\"?$/.test(c.textContent) && c.getClientRects().length > 1).length"
                )
                check(broken == 0, f"{label}: {broken} '8.8.8.8' broken across lines")
                if js:
                    copies = page.locator("section#api_ip button.copy")
                    check(
                        copies.count() == page.locator("section#api_ip pre.request, section#api_ip pre.client").count() > 0
                        and copies.last.is_visible(),
                        f"{label}: copy buttons on the examples",
                    )
                    if not page.locator('nav#toc a[href="#api_asn"]').is_visible():
                        page.locator("nav#toc summary").click()
                    page.locator('nav#toc a[href="#api_asn"]').click()
                    check(page.evaluate("location.hash") == "#api_asn", f"{label}: following a contents link")

                # GET /api/v1/ip/{ip} in each language, from the tested calls:
                # one after another without JavaScript, tabs with it.
                calls = {
                    "curl": "curl ",
                    "python": "api_ip.sync(",
                    "typescript": 'api.GET("/api/v1/ip/{ip}"',
                    "rust": ".api_ip(",
                }
                for lang, text in calls.items():
                    pane = page.locator(f'section#api_ip .langs .lang[data-lang="{lang}"]')
                    code = pane.locator("pre.client").all_inner_texts() if pane.count() == 1 else []
                    check(code and text in code[0], f"{label}: api_ip {lang} call: {code}")
                    check(pane.count() == 1 and pane.is_visible() == (not js or lang == "curl"),
                          f"{label}: api_ip {lang} call shown: {pane.count() == 1 and pane.is_visible()}")
                if js:
                    tabs = page.locator("section#api_ip .langs [role=tab]")
                    check(tabs.all_inner_texts() == ["curl", "Python", "TypeScript", "Rust"],
                          f"{label}: language tabs {tabs.all_inner_texts()}")
                    page.locator('section#api_ip .langs [role=tab][data-lang="rust"]').click()
                    check(
                        page.locator('section#api_ip .lang[data-lang="rust"]').is_visible()
                        and not page.locator('section#api_ip .lang[data-lang="curl"]').is_visible()
                        and page.locator('section#api_me .lang[data-lang="rust"]').is_visible(),
                        f"{label}: the Rust tab shows the Rust calls, here and on every lookup",
                    )
                    page.locator('section#api_ip .langs [role=tab][data-lang="curl"]').click()

                # The batch route: a table of its body, a form that answers
                # (it sends JSON: with JavaScript only).
                tables = page.locator("section#api_ip_batch table").all_inner_texts()
                table = next((t for t in tables if t.upper().startswith("MEDIA TYPE\tTYPE")), repr(tables))
                check("application/json" in table and "array of string" in table and "required" in table,
                      f"{label}: batch body table {table[:200]!r}")
                bform = page.locator("section#api_ip_batch form[data-post]")
                check(bform.count() == 1 and bform.is_visible() == js, f"{label}: batch try-it form shown: {js}")
                if js:
                    bform.locator('textarea[name="body"]').fill("8.8.8.8\nnot-an-ip")
                    bform.locator('select[name="format"]').select_option("json")
                    bform.locator('button[type="submit"]').click()
                    page.wait_for_function(
                        "() => document.querySelector('section#api_ip_batch pre.live').textContent.includes('\\n200\\n')",
                        timeout=10000,
                    )
                    got = bform.locator("pre.live").inner_text()
                    check('"ip": "8.8.8.8"' in got and '"error": "invalid_ip"' in got and "United States" in got,
                          f"{label}: batch try-it answer {got[:300]!r}")
                    bform.locator('select[name="format"]').select_option("ndjson")
                    bform.locator('button[type="submit"]').click()
                    page.wait_for_function(
                        "() => document.querySelector('section#api_ip_batch pre.live').textContent.includes('?format=ndjson\\n200')",
                        timeout=10000,
                    )

                # Order: the first operation is a lookup.
                ops = page.eval_on_selector_all("section.op", "ss => ss.map(s => s.id)")
                check(ops[:1] == ["api_me"], f"{label}: first operation is {ops[:1]}")
                check(
                    ops.index("api_ip") < ops.index("address_page") < ops.index("llms_txt") < ops.index("healthz"),
                    f"{label}: groups out of order: {ops}",
                )
                first_heading = page.locator("section.op h3").first.inner_text()
                check("/api/v1/me" in first_heading, f"{label}: first operation heading {first_heading!r}")

                # Examples everywhere, with this server's base.
                for op in ops:
                    reqs = page.locator(f"section#{op} pre.request").all_inner_texts()
                    check(
                        any(r.startswith("curl ") and base in r for r in reqs),
                        f"{label}: {op} has no curl example on {base}: {reqs}",
                    )
                answer = page.locator("section#api_ip pre.answer").first.inner_text()
                check('"country_bn"' in answer and '"8.8.8.8"' in answer, f"{label}: api_ip answer example")

                # One field reference, one error table.
                fields = page.locator("#fields").inner_text()
                for f in ("country_bn", "calling_code", "accuracy", "reverse_dns", "local_time"):
                    check(f in fields, f"{label}: field table lacks {f}")
                errors = page.locator("#errors table").inner_text()
                check("invalid_ip\t400" in errors or "invalid_ip 400" in errors, f"{label}: error table: {errors[:200]!r}")

                # Try it: GET /api/v1/ip/{ip} with 8.8.8.8.
                form = page.locator("section#api_ip form.try")
                check(form.count() == 1, f"{label}: api_ip try-it form")
                form.locator('input[name="ip"]').fill("8.8.8.8")
                if js:
                    form.locator('button[type="submit"]').click()
                    live = form.locator("pre.live")
                    live.wait_for(state="visible", timeout=10000)
                    page.wait_for_function(
                        "() => document.querySelector('section#api_ip pre.live').textContent.includes('200')",
                        timeout=10000,
                    )
                    got = live.inner_text()
                    check(page.url.endswith("/docs#api_asn"), f"{label}: the page stayed ({page.url})")
                    check("United States" in got and '"ip": "8.8.8.8"' in got, f"{label}: try-it answer {got[:300]!r}")
                    # The field form too.
                    ff = page.locator("section#api_ip_field form.try")
                    ff.locator('select[name="field"]').select_option("asn")
                    ff.locator('button[type="submit"]').click()
                    page.wait_for_function(
                        "() => document.querySelector('section#api_ip_field pre.live').textContent.includes('15169')",
                        timeout=10000,
                    )
                else:
                    with page.expect_navigation():
                        form.locator('button[type="submit"]').click()
                    check(
                        page.url == base + "/api/v1/ip/8.8.8.8?format=json",
                        f"{label}: the form went to {page.url}",
                    )
                    body = page.locator("body").inner_text()
                    try:
                        answer = json.loads(body)
                    except ValueError:
                        answer = {}
                    check(
                        answer.get("ip") == "8.8.8.8" and answer.get("location", {}).get("country") == "United States",
                        f"{label}: the answer: {body[:200]!r}",
                    )
                    page.goto(base + "/docs")
                    render_all(page)

                if name == "phone":
                    width = page.evaluate("document.documentElement.scrollWidth")
                    check(width <= viewport["width"], f"{label}: page is {width}px wide")
                if js:
                    page.goto(base + "/docs")
                    # The top of the page: the contents and the first lookup.
                    height = min(page.evaluate("document.documentElement.scrollHeight"), 2000 if name == "desktop" else 2600)
                    page.screenshot(
                        path=os.path.join(out, f"docs-{name}.png"),
                        full_page=True,
                        clip={"x": 0, "y": 0, "width": viewport["width"], "height": height},
                    )
                outside = [u for u in requests if not (u == base or u.startswith(base + "/"))]
                check(not outside, f"{label}: requests outside the origin: {outside}")
                check(not console, f"{label}: console errors: {console}")
                check(not failed, f"{label}: failed requests: {failed}")
                context.close()
                print(f"{label}: {len(ops)} operations, {len(hrefs)} contents links", flush=True)
        browser.close()
    print(json.dumps({"checks": checks, "failures": len(failures)}))
    if failures:
        print(f"{len(failures)} of {checks} checks failed:")
        for f in failures:
            print(f"  - {f}")
        return 1
    print(f"OK: {checks} checks")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    sys.exit(run(a.base.rstrip("/"), a.out))


if __name__ == "__main__":
    main()
