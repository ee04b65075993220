#!/usr/bin/env python3
"""Simplifies the flags of assets/flags/flags-4x3.tsv for 24 x 18 px
(issue 32: each flag under 2 KB). Input: the svgo output of tools/flags/build
run a second time on the flags scaled to a 64 x 48 viewBox with integer
coordinates (see tools/flags/build). A flag still over LIMIT bytes loses the
shapes painted last (an emblem's finest drawing, invisible at that size)
until it fits; the fields, painted first, and the emblem's first shapes
stay. Reads `code<TAB>svg` lines on
stdin, writes them on stdout.
"""
import re
import sys

LIMIT = 2000
SHAPE = re.compile(r"<(?:path|use|circle|ellipse|polygon|polyline|rect)\b[^>]*/>")


def prune(svg: str) -> str:
    """Drops the gradients nothing refers to any more."""
    while True:
        used = set(re.findall(r'(?:url\(#|href="#)([^)"]+)', svg))
        pruned = re.sub(
            r'<(linearGradient|radialGradient)\b[^>]*\bid="([^"]+)"[^>]*?(?:/>|>.*?</\1>)',
            lambda m: m.group(0) if m.group(2) in used else "",
            svg,
            flags=re.S,
        )
        if pruned == svg:
            return svg
        svg = pruned


def simplify(svg: str) -> str:
    svg = prune(svg)
    while len(svg) > LIMIT:
        # The shapes of a clip path or mask are kept (they cut the others).
        clips = [m.span() for m in re.finditer(r"<(clipPath|mask)\b.*?</\1>", svg, re.S)]
        shapes = [
            m for m in SHAPE.finditer(svg)
            if not any(a <= m.start() < b for a, b in clips)
        ]
        if not shapes:
            break
        # Painted last, an emblem's finest strokes; the fields come first.
        last = shapes[-1]
        svg = svg[: last.start()] + svg[last.end():]
        svg = prune(re.sub(r"<g[^>]*>\s*</g>", "", svg))
    return svg


for line in sys.stdin:
    code, svg = line.rstrip("\n").split("\t", 1)
    print(f"{code}\t{simplify(svg)}")
