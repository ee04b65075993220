#!/usr/bin/env python3
"""The face of the pages (issue 23) in a real headless Chromium, driven by
Playwright. Run by tests/external/browser.rs against a server it started:

    face_check.py --base http://127.0.0.1:PORT --out DIR --root-ip ADDR

The server must trust 127.0.0.1 as a reverse proxy (the test's does; by
hand: `iplookup serve --trusted-proxy 127.0.0.1/32`): / is shown for ADDR,
sent as X-Forwarded-For, and the check fails if / shows anything else.

Checks, each at 1280 x 800 and 390 x 844:
  * the first screen: on /8.8.8.8 and /2001:4860:4860::8888, in English and
    Bangla, the AS number, the operator and the range are inside the viewport
    without scrolling, and the map is no taller than half of it;
  * the copy buttons: with JavaScript they show, and a click puts the `curl`
    command beside it on the clipboard; the command, run against the server,
    prints the value the page shows; without JavaScript the buttons are
    hidden, the commands and every value still shown, the links still work;
  * Bangla: `Accept-Language: bn` (q-values), `?lang=bn` and the language link
    give `<html lang="bn">`, `Content-Language: bn`, `Vary: Accept-Language`,
    Bangla labels and Bengali digits as CLDR bn groups them (computed here,
    independently, from the JSON counts);
  * AS174: following `a[rel=next]` from /AS174 to the last page reaches every
    prefix once (the count equals the JSON's total); so does following the
    JSON API's `Link: rel="next"`; the CSV holds them all; its counts are
    each one unbroken number inside its box (the Bangla IPv6 count too);
  * the prefix filter of /AS15169 (JavaScript) shows only matching prefixes,
    and counts them in the page's digits (English and Bangla);
  * the `curl` commands keep their end (the field) in sight when cut;
  * /10.1.2.3 says what the block is in a sentence and links RFC 1918, in
    English and Bangla; / on a local network adds the reverse-proxy hint;
  * the footer's flags credit links flag-icons' source;
  * the search box on / takes what people paste (spaces, AS numbers, ports,
    brackets, URLs) at 1280 x 800 and 390 x 844, and gives a bad input back;
  * flags are images (this origin's SVG assets) that load;
  * no request leaves the origin and the console stays clean.
Saves the screenshots {address,private,as15169,root}-{en,bn}-{desktop,phone}.png
(the first screen; desktop light, phone dark) into --out.

Exits 0 when everything holds; otherwise prints what failed and exits 1.
"""

import argparse
import json
import os
import re
import sys
import urllib.request

from playwright.sync_api import sync_playwright

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
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
BENGALI = "০১২৩৪৫৬৭৮৯"

failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print(f"FAIL: {what}", flush=True)
    return cond


def fetch(url, headers=None):
    """(status, headers, body) of a GET, without a proxy."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with opener.open(req, timeout=30) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def bn_count(n):
    """n as CLDR bn writes it: #,##,##0 in Bengali digits (written here
    from the rule, not from the server's code)."""
    s = str(n)
    head, tail = s[:-3], s[-3:]
    groups = []
    while len(head) > 2:
        groups.insert(0, head[-2:])
        head = head[:-2]
    if head:
        groups.insert(0, head)
    text = ",".join(groups + [tail])
    return "".join(BENGALI[int(c)] if c.isdigit() else c for c in text)


def next_links(link_header):
    """{rel: url} of a Link header."""
    out = {}
    for part in (link_header or "").split(","):
        m = re.match(r'\s*<([^>]*)>\s*;\s*rel="([^"]+)"', part)
        if m:
            out[m.group(2)] = m.group(1)
    return out


class Watch:
    def __init__(self, context, base):
        self.base, self.requests, self.console, self.failed = base, [], [], []
        context.on("request", lambda r: self.requests.append(r.url))
        context.on("requestfailed", lambda r: self.failed.append(f"{r.url}: {r.failure}"))
        context.on("page", self._page)

    def _page(self, page):
        page.on(
            "console",
            lambda m: self.console.append(m.text)
            if m.type in ("error", "warning") and not m.text.startswith("Failed to load resource")
            else None,
        )
        page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))

    def verify(self, label):
        outside = [u for u in self.requests if not (u == self.base or u.startswith(self.base + "/"))]
        check(not outside, f"{label}: requests left the origin: {outside}")
        check(not self.failed, f"{label}: failed requests: {self.failed}")
        check(not self.console, f"{label}: console errors: {self.console}")


def in_first_screen(page, selector, viewport, label):
    loc = page.locator(selector)
    if not check(loc.count() == 1, f"{label}: no {selector}"):
        return
    box = loc.bounding_box()
    check(loc.is_visible(), f"{label}: {selector} is not visible")
    check(
        box is not None
        and box["y"] >= 0
        and box["y"] + box["height"] <= viewport["height"]
        and box["x"] >= 0
        and box["x"] + box["width"] <= viewport["width"] + 1,
        f"{label}: {selector} at {box} is not on the first {viewport['width']}x{viewport['height']} screen",
    )


def run_first_screen(browser, base):
    for name, viewport in [("phone", PHONE), ("desktop", DESKTOP)]:
        for lang in ("en", "bn"):
            for path, asn, org, rng in [
                ("/8.8.8.8", "AS15169", "Google LLC", "8.8.8.0/24"),
                ("/2001:4860:4860::8888", "AS15169", "Google LLC", "2001:4860:4840::/42"),
            ]:
                label = f"first screen {name} {lang} {path}"
                context = browser.new_context(viewport=viewport, device_scale_factor=1, is_mobile=name == "phone")
                watch = Watch(context, base)
                page = context.new_page()
                page.goto(f"{base}{path}?lang={lang}")
                for sel in ["#summary-asn", "#summary-org", "#summary-range"]:
                    in_first_screen(page, sel, viewport, label)
                check(page.locator("#summary-asn").inner_text() == asn, f"{label}: AS {page.locator('#summary-asn').inner_text()!r}")
                check(page.locator("#summary-org").inner_text() == org, f"{label}: operator")
                check(page.locator("#summary-range").inner_text() == rng, f"{label}: range")
                m = page.locator("figure.map").bounding_box()
                check(
                    m is not None and m["width"] <= viewport["width"] and m["height"] <= viewport["height"] / 2,
                    f"{label}: the map is {m}, more than half the screen",
                )
                width = page.evaluate("document.documentElement.scrollWidth")
                check(width <= viewport["width"], f"{label}: page {width}px wide")
                flag = page.locator("#summary img.flag")
                check(flag.count() == 1, f"{label}: no flag image in the summary")
                if flag.count():
                    src = flag.get_attribute("src") or ""
                    check(re.fullmatch(r"/assets/flag-[a-z]{2}\.[0-9a-f]{16}\.svg", src) is not None, f"{label}: flag src {src!r}")
                    check(flag.evaluate("i => i.complete && i.naturalWidth > 0"), f"{label}: the flag did not load")
                context.close()
                watch.verify(label)
    print("first screen: AS number, operator and range on the first screen, en and bn, phone and desktop", flush=True)


# The end of a command (`/8.8.8.8/asn`) inside the box that shows it: a
# command too long for its column is cut at its start, never its end.
FIELD_IN_SIGHT = """(code) => {
  const u = code.querySelector(".u"), t = code.querySelector("bdo").lastChild;
  const field = "/" + code.id.slice(4);
  const r = document.createRange();
  r.setStart(t, t.length - field.length); r.setEnd(t, t.length);
  const f = r.getBoundingClientRect(), box = u.getBoundingClientRect();
  return f.width > 0 && f.left >= box.left - 0.5 && f.right <= box.right + 0.5;
}"""


def run_copy_and_nojs(browser, base):
    host = base.split("://", 1)[1]
    for name, viewport in [("desktop", DESKTOP), ("phone", PHONE)]:
        label = f"copy {name}"
        context = browser.new_context(viewport=viewport, device_scale_factor=1, is_mobile=name == "phone")
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
        watch = Watch(context, base)
        page = context.new_page()
        page.goto(base + "/8.8.8.8")
        buttons = page.locator("button.copy")
        check(buttons.count() >= 10, f"{label}: {buttons.count()} copy buttons")
        check(buttons.first.is_visible(), f"{label}: the buttons are hidden with JavaScript on")
        for field, shown in [("asn", "AS15169"), ("country_code", "US"), ("organization", "Google LLC")]:
            code = page.locator(f"code#cmd-{field}")
            # The whole command (a phone hides the host behind `…`, CSS only).
            command = code.evaluate("e => e.textContent")
            want = f"curl {host}/api/v1/ip/8.8.8.8/{field}"
            check(command == want, f"{label}: command {command!r}, want {want!r}")
            shown_text = code.inner_text()
            visible = f"curl /api/v1/ip/8.8.8.8/{field}" if name == "phone" else want
            check(shown_text == visible, f"{label}: the command shows {shown_text!r}, want {visible!r}")
            check(code.evaluate(FIELD_IN_SIGHT), f"{label}: the end of {command!r} is cut off")
            button = page.locator(f'button.copy[data-for="cmd-{field}"]')
            bbox = button.bounding_box()
            check(bbox is not None and bbox["x"] + bbox["width"] <= viewport["width"], f"{label}: copy button at {bbox}")
            button.click()
            page.wait_for_timeout(100)
            clip = page.evaluate("navigator.clipboard.readText()")
            check(clip == command, f"{label}: clipboard holds {clip!r} after copying {command!r}")
            # The command prints what the page shows.
            status, _, body = fetch("http://" + command.split(" ", 1)[1])
            check(status == 200 and body.strip() in shown, f"{label}: {command} printed {status} {body!r}, page shows {shown!r}")
        # Every command on the page keeps its field in sight.
        cut = [c.get_attribute("id") for c in page.locator("code.cmd").all() if not c.evaluate(FIELD_IN_SIGHT)]
        check(not cut, f"{label}: commands cut at their end: {cut}")
        check(page.locator('button.copy[data-for="cmd-asn"]').inner_text() in ("Copied", "Copy"), f"{label}: button label")
        context.close()
        watch.verify(label)

    context = browser.new_context(viewport=PHONE, device_scale_factor=1, java_script_enabled=False)
    watch = Watch(context, base)
    page = context.new_page()
    page.goto(base + "/8.8.8.8")
    check(page.locator("button.copy").count() >= 10, "nojs: the buttons are in the page")
    check(not page.locator("button.copy").first.is_visible(), "nojs: a copy button shows without JavaScript")
    check(page.locator("code#cmd-asn").is_visible(), "nojs: the commands are not shown")
    for sel, text in [("dd#asn", "AS15169"), ("dd#organization", "Google LLC"), ("dd#is_public", "Yes"), ("dd#country-name", "United States")]:
        check(page.locator(sel).inner_text().strip() == text, f"nojs: {sel} is {page.locator(sel).inner_text()!r}")
    # At country accuracy the United States (several zones keeping different
    # times) has no local time: the page says how many zones it spans (issue 33).
    check(page.locator("dd#local_time").count() == 0, "nojs: a local time for a country of several zones")
    zones = page.locator("dd#time_zone").inner_text()
    check(re.fullmatch(r"United States spans \d+ time zones: no one local time at country accuracy", zones) is not None,
          f"nojs: time zone {zones!r}")
    check(re.fullmatch(r"\d+\.\d\d° [NS], \d+\.\d\d° [EW] \(country centroid\)", page.locator("dd#coordinates").inner_text()) is not None,
          f"nojs: coordinates {page.locator('dd#coordinates').inner_text()!r}")
    check(page.locator("#releases").inner_text().startswith("Data: country "), "nojs: the data releases in the footer")
    check(page.locator('a[href="/docs"]').count() == 1, "nojs: the docs are not linked once (issue 32: not twice)")
    credit = page.locator("footer a#flags-credit")
    check(credit.count() == 1 and credit.get_attribute("href") == "https://github.com/lipis/flag-icons"
          and credit.inner_text() == "flag-icons", "nojs: the flags' credit does not link its source")
    with page.expect_navigation():
        page.locator("#summary-asn").click()
    check(page.url == base + "/AS15169", f"nojs: the AS link went to {page.url}")
    check(not page.locator("#filter").is_visible(), "nojs: the filter shows without JavaScript")
    first = page.locator("#prefixes li a").first
    href = first.get_attribute("href")
    with page.expect_navigation():
        first.click()
    # A prefix opens its prefix page (issue 30), not its first address's.
    prefix = page.locator("h1#prefix")
    check(page.url == base + href and prefix.count() == 1 and prefix.inner_text().strip() == href[1:],
          f"nojs: a prefix link went to {page.url}")
    context.close()
    watch.verify("nojs")
    print("copy: buttons copy the commands, which print the values; without JavaScript the page works", flush=True)


def run_filter(browser, base):
    for name, viewport in [("desktop", DESKTOP), ("phone", PHONE)]:
        for lang in ("en", "bn"):
            label = f"filter {name} {lang}"
            context = browser.new_context(viewport=viewport, device_scale_factor=1, is_mobile=name == "phone")
            watch = Watch(context, base)
            page = context.new_page()
            page.goto(f"{base}/AS15169?lang={lang}")
            box = page.locator("#filter input")
            check(box.is_visible(), f"{label}: the filter box is hidden with JavaScript")
            b = box.bounding_box()
            check(b is not None and b["x"] >= 0 and b["x"] + b["width"] <= viewport["width"], f"{label}: filter box at {b}")
            items = page.locator("#prefixes li")
            texts = items.all_inner_texts()
            want = sum(1 for t in texts if "8.8." in t)
            box.fill("8.8.")
            shown = page.locator("#prefixes li:visible").count()
            check(0 < want == shown < len(texts), f"{label}: '8.8.' shows {shown} of {len(texts)}, want {want}")
            # The count of shown prefixes in the page's digits.
            count = page.locator("#shown").inner_text()
            digits = str(want) if lang == "en" else bn_count(want)
            check(count == digits, f"{label}: the count says {count!r}, want {digits!r}")
            box.fill("")
            check(page.locator("#prefixes li:visible").count() == len(texts), f"{label}: clearing shows all again")
            context.close()
            watch.verify(label)
    print(f"filter: '8.8.' keeps {want} of {len(texts)} prefixes (1280x800, 390x844, en and bn)", flush=True)


def run_special(browser, base):
    """What a special-purpose address is, in a sentence with its RFC linked,
    on /10.1.2.3 in English and Bangla, at both sizes; and on / for a caller
    on a local network, the reverse-proxy hint."""
    sentences = {"en": "Private addresses are for", "bn": "ব্যক্তিগত ঠিকানা বাড়ি, অফিস"}
    hints = {"en": "--trusted-proxy", "bn": "--trusted-proxy সহ চালু করুন"}
    for name, viewport in [("desktop", DESKTOP), ("phone", PHONE)]:
        for lang in ("en", "bn"):
            label = f"special {name} {lang}"
            context = browser.new_context(viewport=viewport, device_scale_factor=1, is_mobile=name == "phone")
            watch = Watch(context, base)
            page = context.new_page()
            page.goto(f"{base}/10.1.2.3?lang={lang}")
            about = page.locator("#special-about")
            check(about.count() == 1 and about.is_visible(), f"{label}: the sentence is not shown")
            text = about.inner_text()
            check(text.startswith(sentences[lang]), f"{label}: sentence {text!r}")
            check(about.get_attribute("lang") is None, f"{label}: the sentence is marked lang={about.get_attribute('lang')}")
            in_first_screen(page, "#special-about", viewport, label)
            rfc = page.locator("#special-about a#special-rfc")
            check(rfc.is_visible() and rfc.inner_text() == "RFC 1918", f"{label}: RFC link text {rfc.inner_text()!r}")
            check(rfc.get_attribute("href") == "https://www.rfc-editor.org/rfc/rfc1918", f"{label}: RFC link {rfc.get_attribute('href')}")
            block = page.locator("dd#special-block").inner_text()
            check("RFC 1918" in block and (lang == "en") == block.startswith("Private-Use"), f"{label}: block {block!r}")
            # The caller on a local network (the socket peer, no proxy header).
            page.goto(f"{base}/?lang={lang}")
            hint = page.locator("#special-about").inner_text()
            check(hints[lang] in hint, f"{label}: no reverse-proxy hint on /: {hint!r}")
            context.close()
            watch.verify(label)
    print("special: the sentence and its RFC link on /10.1.2.3 and the proxy hint on /, en and bn, 1280x800 and 390x844", flush=True)


def run_bangla(browser, base):
    # The headers, over HTTP.
    for headers, url in [
        ({"Accept-Language": "bn-BD,bn;q=0.9,en;q=0.5", "Accept": "text/html"}, "/8.8.8.8"),
        ({"Accept-Language": "en;q=0.3, bn;q=0.8", "Accept": "text/html"}, "/8.8.8.8"),
        ({"Accept": "text/html"}, "/8.8.8.8?lang=bn"),
        ({"Accept-Language": "bn"}, "/8.8.8.8?format=text"),
        ({"Accept-Language": "bn"}, "/AS15169?format=md"),
    ]:
        status, h, body = fetch(base + url, headers)
        check(status == 200, f"bn {url} {headers}: status {status}")
        check(h.get("Content-Language") == "bn", f"bn {url} {headers}: Content-Language {h.get('Content-Language')}")
        check("accept-language" in (h.get("Vary") or "").lower(), f"bn {url}: Vary {h.get('Vary')}")
        check(any(c in body for c in BENGALI), f"bn {url}: no Bengali digit in the body")
    status, h, body = fetch(base + "/8.8.8.8", {"Accept-Language": "bn;q=0, en", "Accept": "text/html"})
    check(h.get("Content-Language") == "en" and '<html lang="en">' in body, "bn;q=0 refuses Bangla")
    status, h, body = fetch(base + "/api/v1/ip/8.8.8.8", {"Accept-Language": "bn"})
    check(json.loads(body)["location"]["country"] == "United States" and "Content-Language" not in h,
          "JSON is the same in Bangla")

    api = json.loads(fetch(base + "/api/v1/asn/15169")[2])
    for name, viewport in [("phone", PHONE), ("desktop", DESKTOP)]:
        context = browser.new_context(viewport=viewport, device_scale_factor=1, locale="bn-BD")
        watch = Watch(context, base)
        page = context.new_page()
        resp = page.goto(base + "/8.8.8.8")
        label = f"bn {name}"
        check(resp.headers.get("content-language") == "bn", f"{label}: Content-Language {resp.headers.get('content-language')}")
        check(page.locator("html").get_attribute("lang") == "bn", f"{label}: html lang")
        check(page.locator("#country").inner_text() == "মার্কিন যুক্তরাষ্ট্র", f"{label}: country {page.locator('#country').inner_text()!r}")
        check(page.locator("#network h2").inner_text().strip().lower() == "নেটওয়ার্ক", f"{label}: Network heading {page.locator('#network h2').inner_text()!r}")
        # The United States keeps several times at once: no local time, the
        # number of its zones in Bengali digits instead (issue 33).
        zones = page.locator("dd#time_zone").inner_text()
        check(page.locator("dd#local_time").count() == 0 and re.search(f"[{BENGALI}]+টি সময় অঞ্চলে", zones) is not None,
              f"{label}: time zone {zones!r}")
        check("উত্তর" in page.locator("dd#coordinates").inner_text(), f"{label}: coordinates {page.locator('dd#coordinates').inner_text()!r}")
        check(page.locator("dd#is_public").inner_text() == "হ্যাঁ", f"{label}: public")
        check("জুন" in page.locator("#releases").inner_text(), f"{label}: release dates {page.locator('#releases').inner_text()!r}")
        english = page.locator("dd#country-other")
        check(english.inner_text() == "United States" and english.get_attribute("lang") == "en", f"{label}: the English name, labelled")
        # The AS page: counts in Bengali digits, grouped as CLDR bn does.
        page.goto(base + "/AS15169")
        got = page.locator("#addresses-v4").inner_text()
        want = bn_count(api["addresses"]["v4"])
        check(got == want, f"{label}: IPv4 addresses {got!r}, want {want!r}")
        v6 = page.locator("#addresses-v6").inner_text()
        check(v6.startswith(bn_count(int(api["addresses"]["v6"]))) and "/৪৮" in v6, f"{label}: IPv6 addresses {v6!r}")
        check(page.locator("#countries tbody tr").first.inner_text().find("মার্কিন যুক্তরাষ্ট্র") >= 0, f"{label}: countries in Bangla")
        context.close()
        watch.verify(label)

    # The language link, both ways, on an English browser.
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    page.goto(base + "/8.8.8.8")
    check(page.locator("html").get_attribute("lang") == "en", "link: English by default")
    link = page.locator("#lang-link")
    check(link.inner_text() == "বাংলা" and link.get_attribute("lang") == "bn", f"link: {link.inner_text()!r}")
    with page.expect_navigation():
        link.click()
    check(page.locator("html").get_attribute("lang") == "bn", f"link: {page.url} is not in Bangla")
    # A link of the Bangla page keeps the language (the query asked for it).
    with page.expect_navigation():
        page.locator("#summary-asn").click()
    check(page.locator("html").get_attribute("lang") == "bn", f"link: the AS page {page.url} is not in Bangla")
    with page.expect_navigation():
        page.locator("#lang-link").click()
    check(page.locator("html").get_attribute("lang") == "en", f"link: back to English at {page.url}")
    # An error page in Bangla.
    page.goto(base + "/AS99999999999?lang=bn")
    check(page.locator("html").get_attribute("lang") == "bn" and page.locator("#error").inner_text() == "এটি কোনো AS নম্বর নয়",
          f"link: the error page in Bangla: {page.locator('h1').inner_text()!r}")
    context.close()
    print(f"bangla: lang=bn, Content-Language, Bengali digits ({want} addresses)", flush=True)


def run_as174(browser, base):
    api = json.loads(fetch(base + "/api/v1/asn/174")[2])
    total = api["prefix_count"]["v4"] + api["prefix_count"]["v6"]
    check(api["page"]["pages"] > 1, f"AS174: {api['page']}")
    # The HTML pages, following rel=next with JavaScript off, at both sizes.
    for name, viewport in [("phone", PHONE), ("desktop", DESKTOP)]:
        context = browser.new_context(viewport=viewport, java_script_enabled=False, device_scale_factor=1, is_mobile=name == "phone")
        page = context.new_page()
        page.goto(base + "/AS174")
        seen, pages = [], 0
        while True:
            pages += 1
            seen.extend(page.locator("#prefixes li a").all_text_contents())
            nxt = page.locator('a[rel="next"]')
            if nxt.count() == 0:
                break
            check(nxt.first.is_visible(), f"AS174 {name}: the next link on page {pages} is not visible")
            with page.expect_navigation():
                nxt.first.click()
            if pages > 1000:
                break
        width = page.evaluate("document.documentElement.scrollWidth")
        check(width <= viewport["width"], f"AS174 {name}: the last page is {width}px wide")
        context.close()
        check(len(seen) == total, f"AS174 {name}: {len(seen)} prefixes on {pages} HTML pages, the JSON says {total}")
        check(len(set(seen)) == len(seen), f"AS174 {name}: a prefix on two pages")
        check(pages == api["page"]["pages"], f"AS174 {name}: {pages} HTML pages, the JSON says {api['page']['pages']}")
    # The counts: each one unbroken number, inside its box (the Bangla
    # IPv6 count is the longest: 31 digits and 15 separators).
    for name, viewport in [("phone", PHONE), ("desktop", DESKTOP)]:
        for lang in ("bn", "en"):
            context = browser.new_context(viewport=viewport, device_scale_factor=1, is_mobile=name == "phone")
            page = context.new_page()
            page.goto(f"{base}/AS174?lang={lang}")
            nums = page.locator("#counts .num")
            check(nums.count() == 5, f"AS174 {name} {lang}: {nums.count()} counts")
            broken = [n.inner_text() for n in nums.all() if n.evaluate("e => e.getClientRects().length") != 1]
            check(not broken, f"AS174 {name} {lang}: counts broken across lines: {broken}")
            v6 = page.locator("#addresses-v6")
            over = v6.evaluate("e => e.scrollWidth - e.clientWidth")
            check(over <= 0, f"AS174 {name} {lang}: the IPv6 count overflows its box by {over}px")
            want = bn_count(int(api["addresses"]["v6"])) if lang == "bn" else f"{int(api['addresses']['v6']):,}"
            check(nums.nth(1).inner_text() == want, f"AS174 {name} {lang}: IPv6 count {nums.nth(1).inner_text()!r}, want {want!r}")
            context.close()
    # The JSON API, following Link: rel="next".
    url, json_seen, n = base + "/api/v1/asn/174", [], 0
    while url:
        status, h, body = fetch(url)
        check(status == 200, f"AS174 JSON {url}: {status}")
        doc = json.loads(body)
        n += 1
        check(doc["page"]["number"] == n, f"AS174 JSON: page {doc['page']} at step {n}")
        json_seen.extend(doc["prefixes"]["v4"] + doc["prefixes"]["v6"])
        nxt = next_links(", ".join(h.get_all("Link") or [])).get("next")
        url = base + nxt if nxt else None
        if n > 1000:
            break
    check(json_seen == seen, f"AS174: the JSON pages hold {len(json_seen)} prefixes, the HTML pages {len(seen)}")
    # Markdown and text pages have the same Link header.
    for fmt in ("md", "text"):
        status, h, _ = fetch(base + f"/AS174?format={fmt}&page=2")
        links = next_links(", ".join(h.get_all("Link") or []))
        check(links.get("prev") == f"/AS174?format={fmt}" and links.get("next") == f"/AS174?page=3&format={fmt}",
              f"AS174 {fmt}: Link {h.get('Link')}")
    status, h, csv = fetch(base + "/api/v1/asn/174/prefixes.csv")
    rows = csv.strip().split("\n")
    check(status == 200 and h.get("Content-Type", "").startswith("text/csv"), f"AS174 CSV: {status} {h.get('Content-Type')}")
    check(rows[0] == "prefix,version,country_code,addresses" and [r.split(",")[0] for r in rows[1:]] == seen, f"AS174 CSV: {len(rows) - 1} rows")
    print(f"as174: {len(seen)} prefixes on {pages} pages at 390x844 and 1280x800, HTML = JSON = CSV; counts unbroken", flush=True)


SHOTS = [
    ("address", "/8.8.8.8"),
    ("private", "/10.1.2.3"),
    ("as15169", "/AS15169"),
    ("root", "/"),
]


def run_screenshots(browser, base, out, root_ip):
    os.makedirs(out, exist_ok=True)
    headers = {"X-Forwarded-For": root_ip}
    for device, viewport, scheme in [("desktop", DESKTOP, "light"), ("phone", PHONE, "dark")]:
        for lang in ("en", "bn"):
            context = browser.new_context(
                viewport=viewport,
                device_scale_factor=1,
                color_scheme=scheme,
                is_mobile=device == "phone",
                has_touch=device == "phone",
                locale="bn-BD" if lang == "bn" else "en-US",
                extra_http_headers={**headers, "Accept-Language": lang},
            )
            watch = Watch(context, base)
            page = context.new_page()
            for name, path in SHOTS:
                page.goto(base + path)
                page.wait_for_load_state("networkidle")
                check(page.locator("html").get_attribute("lang") == lang, f"screenshot {name} {lang}: lang")
                if name == "root":
                    # The caller the proxy names, not the proxy: the server
                    # must trust 127.0.0.1 (--trusted-proxy 127.0.0.1/32).
                    shown = page.locator("h1#ip").inner_text()
                    check(shown == root_ip, f"screenshot root {lang} {device}: / shows {shown!r}, not {root_ip!r} (is 127.0.0.1 a trusted proxy?)")
                page.screenshot(path=os.path.join(out, f"{name}-{lang}-{device}.png"))
            context.close()
            watch.verify(f"screenshots {device} {lang}")
    print(f"screenshots: {len(SHOTS) * 4} in {out}", flush=True)


def run_search(browser, base):
    """Issue 23 point 5 in the browser: what people paste into the box on /
    lands on the page they meant; what it cannot use comes back in the box,
    with the reason, as a 400 page with a human headline."""
    pasted = [
        (" 8.8.8.8 ", "/8.8.8.8"),
        ("AS15169", "/AS15169"),
        ("as15169", "/AS15169"),
        ("[2001:db8::1]:443", "/2001:db8::1"),
        ("1.2.3.4:80", "/1.2.3.4"),
        ("https://1.2.3.4/x", "/1.2.3.4"),
    ]
    for viewport in (DESKTOP, PHONE):
        context = browser.new_context(viewport=viewport, device_scale_factor=1)
        page = context.new_page()
        for typed, path in pasted:
            page.goto(base + "/")
            page.locator('form[role="search"] input[name="ip"]').fill(typed)
            with page.expect_navigation():
                page.locator('form[role="search"] button[type="submit"]').click()
            check(page.url == base + path, f"search {viewport['width']}: {typed!r} went to {page.url}")
        page.goto(base + "/")
        page.locator('form[role="search"] input[name="ip"]').fill("999.1.1.1")
        with page.expect_navigation() as nav:
            page.locator('form[role="search"] button[type="submit"]').click()
        check(nav.value.status == 400, f"search {viewport['width']}: a bad input is {nav.value.status}")
        headline = page.locator("h1#error").inner_text()
        check("400" not in headline and "Bad Request" not in headline, f"search: headline {headline!r}")
        check(page.locator('form[role="search"] input[name="ip"]').input_value() == "999.1.1.1",
              "search: the input is not back in the box")
        check(page.locator('a[href="/docs"]').count() >= 1, "search: the error page does not link the docs")
        context.close()
    print("search: pasted inputs go where meant; a bad one comes back in the box (1280x800, 390x844)", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--root-ip", required=True,
                    help="the caller / shows, sent as X-Forwarded-For: the server must trust 127.0.0.1 as a proxy")
    a = ap.parse_args()
    base = a.base.rstrip("/")
    exe = os.environ.get("IPLOOKUP_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        print(f"browser: Chromium {browser.version}", flush=True)
        run_first_screen(browser, base)
        run_copy_and_nojs(browser, base)
        run_filter(browser, base)
        run_special(browser, base)
        run_bangla(browser, base)
        run_as174(browser, base)
        run_search(browser, base)
        run_screenshots(browser, base, a.out, a.root_ip)
        browser.close()
    if failures:
        print(f"{len(failures)} of {checks} checks failed:")
        for f in failures:
            print(f"  - {f}")
        sys.exit(1)
    print(f"OK: {checks} checks")


if __name__ == "__main__":
    main()
