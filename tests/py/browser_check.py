#!/usr/bin/env python3
"""The HTML pages in a real headless Chromium (Debian's `chromium`), driven by
Playwright. Run by tests/browser.rs against a server it started:

    browser_check.py --base http://127.0.0.1:PORT --out DIR [--root-ip ADDR]

Checks, on a phone viewport and a desktop one, with JavaScript on and off:
  * the visible fields of /8.8.8.8 and /2001:4860:4860::8888 (address, flag
    image, country and its Bangla name, continent, AS number, operator, range,
    local time as a clock time, currency, calling code) and of / (the caller);
  * the map: the page draws the map asset (/assets/world.HASH.svg, an SVG
    <image>) and on it the country's path (#US, #CA) with class "hit"; the
    centroid pin exists and sits inside the country's box; the pixels of the
    rendered map show land, sea and the highlighted country in the colours of
    the colour scheme (so the asset really is drawn, JavaScript or not);
  * the lookup form: fill it, submit, land on the address page;
  * links to the JSON, Markdown and text forms and the DB-IP attribution;
  * the page fits the phone's width (no horizontal scrolling);
  * no request left the server's origin, no CSP violation, no failed request.
Saves full-page desktop screenshots root.png and address.png into --out.

Exits 0 when everything holds; otherwise prints what failed and exits 1.
Never downloads a browser: Chromium is /usr/bin/chromium (or $IPLOOKUP_CHROMIUM).
"""

import argparse
import json
import os
import re
import struct
import sys
import zlib

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

CLOCK_TIME = re.compile(r"^\d{1,2}:\d{2} [AP]M \(UTC[+−]\d{2}:\d{2}\)$")

# What each address page must show: element ids and the labelled cells.
EXPECTED = {
    "/8.8.8.8": {
        "ip": "8.8.8.8",
        "code": "US",
        "country": "United States",
        "country_bn": "মার্কিন যুক্তরাষ্ট্র",
        "cells": {
            "Continent": "North America",
            "AS number": "AS15169",
            "Operator": "Google LLC",
            "Range": "8.8.8.0/24",
            "Currency": "USD",
            "Calling code": "+1",
            "Country code": "US",
            "IP version": "IPv4",
            "Public address": "Yes",
        },
    },
    "/2001:4860:4860::8888": {
        "ip": "2001:4860:4860::8888",
        "code": "CA",
        "country": "Canada",
        "country_bn": "কানাডা",
        "cells": {
            "Continent": "North America",
            "AS number": "AS15169",
            "Operator": "Google LLC",
            "Range": "2001:4860:4840::/42",
            "Currency": "CAD",
            "Calling code": "+1",
            "Country code": "CA",
            "IP version": "IPv6",
            "Public address": "Yes",
        },
    },
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


class Watch:
    """Records every request, failed request and console error of a context."""

    def __init__(self, context, base):
        self.base = base
        self.requests = []
        self.failed = []
        self.console = []
        self.errors = []
        self.assets = []
        context.on("request", lambda r: self.requests.append(r.url))
        context.on(
            "response",
            lambda r: self.assets.append((r.url, r.status, r.headers.get("content-type")))
            if "/assets/" in r.url
            else None,
        )
        context.on("response", lambda r: self.errors.append((r.url, r.status)) if r.status >= 400 else None)
        context.on("requestfailed", lambda r: self.failed.append(f"{r.url}: {r.failure}"))
        context.on("page", self._page)

    def _page(self, page):
        # "Failed to load resource" lines are the HTTP errors, judged in verify().
        page.on(
            "console",
            lambda m: self.console.append(m.text)
            if m.type in ("error", "warning") and not m.text.startswith("Failed to load resource")
            else None,
        )
        page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))

    def verify(self, label):
        check(self.requests, f"{label}: no request was recorded at all")
        prefix = self.base + "/"
        outside = [u for u in self.requests if not (u == self.base or u.startswith(prefix))]
        check(not outside, f"{label}: requests left the origin {self.base}: {outside}")
        check(not self.failed, f"{label}: failed requests: {self.failed}")
        check(not self.console, f"{label}: console errors (CSP violations?): {self.console}")
        # The only HTTP errors: the deliberate bad address, and the browser's own
        # /favicon.ico probe (the pages declare no icon).
        prefix_len = len(self.base)
        unexpected = [
            (u, s)
            for u, s in self.errors
            if not (s == 400 and "ip=1.2.3" in u) and not (s == 404 and u[prefix_len:] == "/favicon.ico")
        ]
        check(not unexpected, f"{label}: unexpected HTTP errors: {unexpected}")
        for u, s in self.errors:
            if u.endswith("/favicon.ico"):
                print(f"note: {label}: the browser asked for /favicon.ico and got {s}", flush=True)


def cells(page):
    """The labelled cells of the page as {label: value}, from the DOM text."""
    out = {}
    for div in page.locator("dl > div").all():
        dt = div.locator("dt").text_content().strip()
        # The value; the `curl` command beside it is a dd.cmd of its own.
        value = div.locator("dd:not(.cmd)")
        out[dt] = (value.text_content().strip(), value.is_visible())
    return out


def check_no_horizontal_scroll(page, label):
    width = page.viewport_size["width"]
    scroll = page.locator("html").evaluate("e => e.scrollWidth") if js_ok(page) else None
    if scroll is not None:
        check(scroll <= width, f"{label}: page is {scroll}px wide on a {width}px viewport")
    # Also without JS: every cell and the map fit inside the viewport.
    for sel in ["h1#ip", "figure.map", "form", "dl"]:
        loc = page.locator(sel)
        if loc.count():
            box = loc.first.bounding_box()
            check(
                box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 1,
                f"{label}: {sel} overflows the {width}px viewport: {box}",
            )


def js_ok(page):
    try:
        page.evaluate("1")
        return True
    except Exception:
        return False


def computed_fill(page, selector):
    return page.locator(selector).first.evaluate("e => getComputedStyle(e).fill")


# Colours of the map, per colour scheme (the page's --land, --card, --hit).
MAP_COLOURS = {
    "light": {"land": (0xCF, 0xD6, 0xDE), "sea": (0xFF, 0xFF, 0xFF), "hit": (0xE4, 0x57, 0x2E)},
    "dark": {"land": (0x39, 0x42, 0x4D), "sea": (0x17, 0x1B, 0x21), "hit": (0xFF, 0x7A, 0x50)},
}

# Points of the map (lon, lat) and what must show there on each page: land far
# from the country (Brazil, Siberia), open sea, and the country itself (away
# from the pin's ring).
MAP_POINTS = {
    "/8.8.8.8": [("land", -50, -10), ("land", 100, 62), ("sea", -30, 0), ("hit", -110, 45)],
    "/2001:4860:4860::8888": [("land", -50, -10), ("land", 100, 62), ("sea", -30, 0), ("hit", -115, 55)],
}


def png_pixels(data):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"PNG depth {depth} colour type {colour}"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x : x + 3]) for x in range(0, stride, channels)])
        prev = line
    return width, height, rows


def check_map_pixels(page, path, label, scheme):
    """The rendered map shows land, sea and the country in the scheme's colours."""
    svg = page.locator("figure.map svg").first
    width, height, rows = png_pixels(svg.screenshot())
    colours = MAP_COLOURS[scheme]
    for what, lon, lat in MAP_POINTS[path]:
        x = int((lon + 180) / 360 * width)
        y = int((90 - lat) / 180 * height)
        got = rows[y][x]
        want = colours[what]
        check(
            all(abs(g - w) <= 12 for g, w in zip(got, want)),
            f"{label}: map pixel at {lon},{lat} ({what}) is rgb{got}, want about rgb{want} ({scheme})",
        )


def check_address_page(page, path, label, js, scheme):
    want = EXPECTED[path]
    check(page.title().startswith(want["ip"]), f"{label}: title {page.title()!r}")
    ip = page.locator("#ip")
    check(ip.is_visible(), f"{label}: the address is not visible")
    check(ip.text_content().strip() == want["ip"], f"{label}: #ip is {ip.text_content()!r}")
    country = page.locator("#country")
    check(country.is_visible(), f"{label}: the country is not visible")
    check(country.text_content().strip() == want["country"], f"{label}: country {country.text_content()!r}")
    bn = page.locator("#country-other")
    check(bn.is_visible(), f"{label}: the Bangla name is not visible")
    check(bn.text_content().strip() == want["country_bn"], f"{label}: Bangla name {bn.text_content()!r}")
    check(bn.get_attribute("lang") == "bn", f"{label}: Bangla name not marked lang=bn")
    flag = page.locator("#summary img.flag")
    check(flag.count() == 1, f"{label}: no flag image")
    if flag.count() == 1:
        src = flag.get_attribute("src") or ""
        check(re.fullmatch(r"/assets/flag-[a-z]{2}\.[0-9a-f]{16}\.svg", src) is not None, f"{label}: flag {src!r}")
        check(flag.evaluate("i => i.complete && i.naturalWidth > 0"), f"{label}: the flag image did not load")

    got = cells(page)
    for name, value in want["cells"].items():
        have = got.get(name)
        check(have is not None, f"{label}: no {name!r} cell (cells: {sorted(got)})")
        if have:
            check(have[0] == value, f"{label}: {name} is {have[0]!r}, want {value!r}")
            check(have[1], f"{label}: {name} is not visible")
    # The United States and Canada keep several times at once: at country
    # accuracy no local time, and the time zone row says how many (issue 33).
    check("Local time" not in got, f"{label}: a local time at country accuracy: {got.get('Local time')}")
    tz = got.get("Time zone", ("", False))
    check(" spans " in tz[0] and " time zones" in tz[0], f"{label}: time zone {tz[0]!r}")
    check(tz[1], f"{label}: time zone not visible")

    # The map: the country highlighted; at country accuracy no pin (the
    # centroid is no place).
    code = want["code"]
    hit = page.locator(f"figure.map svg path#{code}")
    check(hit.count() == 1, f"{label}: no map path #{code}")
    check("hit" in (hit.get_attribute("class") or "").split(), f"{label}: #{code} has no class hit")
    check(page.locator("svg path.hit").count() == 1, f"{label}: more than one highlighted country")
    check(page.locator("figure.map").is_visible(), f"{label}: the map is not visible")
    check(page.locator("svg circle#pin").count() == 0, f"{label}: a pin at country accuracy")
    # The map itself is this service's asset, drawn under the country.
    image = page.locator("figure.map svg image")
    check(image.count() == 1, f"{label}: the map is not an <image>")
    href = image.first.get_attribute("href") or ""
    check(re.fullmatch(r"/assets/world\.[0-9a-f]{16}\.svg", href) is not None, f"{label}: map href {href!r}")
    check(page.locator("figure.map svg path").count() == 1, f"{label}: outlines other than the country's in the page")
    check_map_pixels(page, path, label, scheme)
    if js:
        fill = computed_fill(page, f"path#{code}")
        check(fill == "rgb({}, {}, {})".format(*MAP_COLOURS[scheme]["hit"]), f"{label}: #{code} fill is {fill}")

    # Links to the other forms of the same page, and the attribution.
    for href in [f"/api/v1/ip/{want['ip']}", f"{path}?format=md", f"{path}?format=text"]:
        check(page.locator(f'a[href="{href}"]').count() >= 1, f"{label}: no link to {href}")
    attr = page.locator('a[href="https://db-ip.com"]')
    check(attr.count() == 1 and attr.text_content() == "IP Geolocation by DB-IP", f"{label}: attribution link")
    check(attr.is_visible(), f"{label}: attribution not visible")
    scripts = page.locator("script")
    srcs = [scripts.nth(i).get_attribute("src") or "" for i in range(scripts.count())]
    check(
        len(srcs) == 1 and re.fullmatch(r"/assets/page\.[0-9a-f]{16}\.js", srcs[0]) is not None,
        f"{label}: scripts other than the page's own asset: {srcs}",
    )


def check_form(page, base, label, target_ip):
    form_input = page.locator('form input[name="ip"]')
    check(form_input.is_visible(), f"{label}: lookup input not visible")
    form_input.fill(target_ip)
    with page.expect_navigation():
        page.locator('form button[type="submit"]').click()
    want = f"{base}/{target_ip}"
    check(page.url == want, f"{label}: form landed on {page.url}, want {want}")
    check(page.locator("#ip").text_content().strip() == target_ip, f"{label}: form result page")


CONTRAST_JS = """
() => {
  const parse = s => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const bg = el => {
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const sel of ["h1#ip", "#summary", ".kicker", "form input", "form button", "dt", "dd", "code.cmd", "button.copy", "main > p a", "footer", "footer a"]) {
    const el = document.querySelector(sel);
    if (!el) continue;
    const fg = parse(getComputedStyle(el).color).slice(0, 3);
    const b = bg(el);
    const [l1, l2] = [lum(fg), lum(b)].sort((a, c) => c - a);
    out.push({ sel, fg: fg.join(","), bg: b.join(","), ratio: (l1 + 0.05) / (l2 + 0.05) });
  }
  return out;
}
"""

# Share of the highlighted country's own pixels that are really on top (not
# hidden under the pin), sampled on a grid over its box.
VISIBLE_SHARE_JS = """
([code]) => {
  const path = document.querySelector(`figure.map svg path#${code}`);
  const svg = path.ownerSVGElement;
  const inv = svg.getScreenCTM().inverse();
  const box = path.getBoundingClientRect();
  let inside = 0, visible = 0;
  const n = 40;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    const x = box.left + (i + 0.5) * box.width / n, y = box.top + (j + 0.5) * box.height / n;
    const pt = new DOMPoint(x, y).matrixTransform(inv);
    if (!path.isPointInFill(pt)) continue;
    inside++;
    if (document.elementFromPoint(x, y) === path) visible++;
  }
  return { inside, visible, share: inside ? visible / inside : 0, width: box.width, height: box.height };
}
"""


def run_contrast(browser, base):
    """Text contrast (WCAG AA, 4.5:1) of the page's text in both colour schemes."""
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport=PHONE, color_scheme=scheme, device_scale_factor=1)
        page = context.new_page()
        page.goto(base + "/8.8.8.8")
        for r in page.evaluate(CONTRAST_JS):
            check(
                r["ratio"] >= 4.5,
                f"{scheme}: {r['sel']} text rgb({r['fg']}) on rgb({r['bg']}) has contrast "
                f"{r['ratio']:.2f}:1, below WCAG AA 4.5:1",
            )
        context.close()


def run_small_country(browser, base):
    """A small country (Bangladesh, /103.4.145.1) stays visibly highlighted: the
    centroid pin must not cover most of it."""
    for name, viewport in [("phone", PHONE), ("desktop", DESKTOP)]:
        context = browser.new_context(viewport=viewport, device_scale_factor=1)
        page = context.new_page()
        page.goto(base + "/103.4.145.1")
        check(page.locator("path#BD.hit").count() == 1, f"{name}: #BD not highlighted")
        # elementFromPoint sees only the viewport: bring the map into it.
        page.locator("figure.map").scroll_into_view_if_needed()
        r = page.evaluate(VISIBLE_SHARE_JS, ["BD"])
        check(
            r["share"] >= 0.5,
            f"{name}: only {r['share']:.0%} of highlighted Bangladesh "
            f"({r['width']:.1f}x{r['height']:.1f}px) is visible; the pin covers the rest",
        )
        context.close()


def run_dual(browser, base):
    """The root page of a service with --ipv4-url http://v4.test:PORT and
    --ipv6-url http://v6.test:PORT, opened at http://dual.test:PORT/, Chromium
    resolving v4.test to 127.0.0.1 and v6.test to [::1] (--resolver-rules):
    with JavaScript, both addresses side by side (127.0.0.1 and ::1) and no
    CSP violation or failed request; without, links to both origins."""
    port = base.rsplit(":", 1)[1]
    v4, v6 = f"http://v4.test:{port}", f"http://v6.test:{port}"
    context = browser.new_context(viewport=DESKTOP)
    console, failed = [], []
    page = context.new_page()
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    page.on("requestfailed", lambda r: failed.append(f"{r.url}: {r.failure}"))
    page.goto(base + "/")
    check(page.locator("h1#ip").inner_text() == "127.0.0.1", "dual/js: the page's own address")
    # Poll through locators (Playwright's own isolated world): a string
    # evaluated in the page would itself be refused by the page's CSP.
    for _ in range(150):
        if (page.locator("#ipv4").inner_text(), page.locator("#ipv6").inner_text()) == ("127.0.0.1", "::1"):
            break
        page.wait_for_timeout(100)
    got4 = page.locator("#ipv4").inner_text()
    got6 = page.locator("#ipv6").inner_text()
    check(got4 == "127.0.0.1", f"dual/js: IPv4 address shown as {got4!r}, not 127.0.0.1")
    check(got6 == "::1", f"dual/js: IPv6 address shown as {got6!r}, not ::1")
    check(not console, f"dual/js: console errors (CSP?): {console}")
    check(not failed, f"dual/js: failed requests: {failed}")
    context.close()
    context = browser.new_context(viewport=DESKTOP, java_script_enabled=False)
    page = context.new_page()
    page.goto(base + "/")
    for id_, origin in [("ipv4", v4), ("ipv6", v6)]:
        link = page.locator(f"a#{id_}")
        check(link.get_attribute("href") == origin + "/", f"dual/nojs: #{id_} links to {origin}/")
        check(origin in link.inner_text(), f"dual/nojs: #{id_} names {origin}")
    context.close()
    print(f"dual: IPv4 {got4}, IPv6 {got6}")


def run_extra(mode, base, extra_args):
    exe = os.environ.get("IPLOOKUP_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS + extra_args)
        {"contrast": run_contrast, "small-country": run_small_country, "dual": run_dual}[mode](browser, base)
        browser.close()
    if failures:
        print(f"{len(failures)} of {checks} checks failed:")
        for f in failures:
            print(f"  - {f}")
        return 1
    print(f"OK: {checks} checks")
    return 0


def run(base, out, root_ip):
    exe = os.environ.get("IPLOOKUP_CHROMIUM", "/usr/bin/chromium")
    if not os.path.exists(exe):
        print(f"FAIL: no Chromium at {exe} (install Debian's chromium)")
        return 1
    os.makedirs(out, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, headless=True, args=CHROMIUM_ARGS)
        print(f"browser: Chromium {browser.version}", flush=True)
        for vp_name, viewport, scheme in [("phone", PHONE, "dark"), ("desktop", DESKTOP, "light")]:
            for js in (True, False):
                label = f"{vp_name}/{'js' if js else 'nojs'}"
                context = browser.new_context(
                    viewport=viewport,
                    java_script_enabled=js,
                    color_scheme=scheme,
                    is_mobile=vp_name == "phone",
                    has_touch=vp_name == "phone",
                    device_scale_factor=1,
                    locale="en-US",
                )
                watch = Watch(context, base)
                page = context.new_page()
                for path in EXPECTED:
                    resp = page.goto(base + path)
                    check(resp is not None and resp.status == 200, f"{label} {path}: status {resp and resp.status}")
                    ct = resp.headers.get("content-type", "")
                    check(ct == "text/html; charset=utf-8", f"{label} {path}: content-type {ct}")
                    check("content-security-policy" in resp.headers, f"{label} {path}: no CSP")
                    check_address_page(page, path, f"{label} {path}", js, scheme)
                    check_no_horizontal_scroll(page, f"{label} {path}")

                # The root: the caller, as the browser sees it.
                resp = page.goto(base + "/")
                check(resp.status == 200, f"{label} /: status {resp.status}")
                check(page.locator("#ip").text_content().strip() == "127.0.0.1", f"{label} /: #ip")
                lead = page.locator("#summary").text_content()
                check(
                    "Loopback (RFC 1122)" in lead and "special-purpose address" in lead,
                    f"{label} /: the registry entry of 127.0.0.1 in the lead: {lead!r}",
                )
                check(page.locator('a[href="https://db-ip.com"]').count() == 1, f"{label} /: attribution")
                check_no_horizontal_scroll(page, f"{label} /")

                # The form, from the root and from an address page.
                check_form(page, base, f"{label} form from /", "1.1.1.1")
                check_form(page, base, f"{label} form from /1.1.1.1", "2001:4860:4860::8888")
                # A bad address gets the error page, still a page with the form.
                page.locator('form input[name="ip"]').fill("1.2.3")
                with page.expect_navigation():
                    page.locator('form button[type="submit"]').click()
                check("1.2.3" in page.locator("p.lead").text_content(), f"{label}: bad address message")
                check(page.locator('form input[name="ip"]').is_visible(), f"{label}: form on the error page")
                context.close()
                watch.verify(label)
                check(watch.assets, f"{label}: the map asset was never requested")
                for url, status, ctype in watch.assets:
                    want = "text/javascript; charset=utf-8" if url.endswith(".js") else "image/svg+xml"
                    check(status == 200 and ctype == want, f"{label}: {url}: {status} {ctype}")
                print(f"{label}: {len(watch.requests)} requests, all to {base}", flush=True)

        # Screenshots (desktop, full page, light scheme).
        headers = {"X-Forwarded-For": root_ip} if root_ip else {}
        context = browser.new_context(
            viewport=DESKTOP, device_scale_factor=1, color_scheme="light", extra_http_headers=headers
        )
        watch = Watch(context, base)
        page = context.new_page()
        page.goto(base + "/")
        if root_ip:
            check(page.locator("#ip").text_content().strip() == root_ip, f"screenshot /: #ip via trusted proxy")
            check(page.locator("svg path.hit").count() == 1, "screenshot /: country highlighted")
        page.screenshot(path=os.path.join(out, "root.png"), full_page=True)
        page.goto(base + "/8.8.8.8")
        page.screenshot(path=os.path.join(out, "address.png"), full_page=True)
        context.close()
        watch.verify("screenshots")

        # Phone screenshots, for looking at (not committed).
        context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, color_scheme="dark")
        page = context.new_page()
        page.goto(base + "/2001:4860:4860::8888")
        page.screenshot(path=os.path.join(out, "address-phone-dark.png"), full_page=True)
        context.close()
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
    ap.add_argument("--base", required=True, help="server base URL, e.g. http://127.0.0.1:8080")
    ap.add_argument("--out", help="directory for the screenshots (main checks)")
    ap.add_argument(
        "--only",
        choices=["contrast", "small-country", "dual"],
        help="run only this extra check instead of the main ones",
    )
    ap.add_argument("--root-ip", default="", help="X-Forwarded-For for the root screenshot (server must trust 127.0.0.1)")
    ap.add_argument("--resolver-rules", help="Chromium --host-resolver-rules (the dual check)")
    a = ap.parse_args()
    if a.only:
        extra = [f"--host-resolver-rules={a.resolver_rules}"] if a.resolver_rules else []
        sys.exit(run_extra(a.only, a.base.rstrip("/"), extra))
    if not a.out:
        ap.error("--out is required")
    sys.exit(run(a.base.rstrip("/"), a.out, a.root_ip))


if __name__ == "__main__":
    main()
