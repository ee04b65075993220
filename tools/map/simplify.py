#!/usr/bin/env python3
"""Simplifies assets/world.svg in place (issue 32: the map is one cached
asset and small): each ring of a country's path (`M x y l dx dy ... z`, the
only commands the file uses) is simplified with Douglas-Peucker at TOLERANCE
map units (1000 x 500 for the world, so 0.3 units are about a quarter of a
pixel on a 1280 px screen), rings smaller than MIN_RING units across are
dropped unless they are the country's largest, and coordinates keep one
decimal. Run it again and it changes nothing more than rounding.
Usage: tools/map/simplify.py [TOLERANCE] [MIN_RING]
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SVG = ROOT / "assets" / "world.svg"
TOLERANCE = float(sys.argv[1]) if len(sys.argv) > 1 else 0.3
MIN_RING = float(sys.argv[2]) if len(sys.argv) > 2 else 1.2
NUM = re.compile(r"-?\d*\.?\d+")


def rings(d):
    out = []
    for part in d.split("M")[1:]:
        body = part.rstrip().rstrip("z")
        if "l" in body:
            start, rest = body.split("l", 1)
        else:
            start, rest = body, ""
        x, y = (float(v) for v in NUM.findall(start))
        pts = [(x, y)]
        nums = [float(v) for v in NUM.findall(rest)]
        for i in range(0, len(nums) - 1, 2):
            x += nums[i]
            y += nums[i + 1]
            pts.append((x, y))
        out.append(pts)
    return out


def dp(pts, tol):
    if len(pts) < 3:
        return pts
    keep = [False] * len(pts)
    keep[0] = keep[-1] = True
    stack = [(0, len(pts) - 1)]
    while stack:
        a, b = stack.pop()
        (x1, y1), (x2, y2) = pts[a], pts[b]
        dx, dy = x2 - x1, y2 - y1
        norm = (dx * dx + dy * dy) ** 0.5
        best, at = -1.0, -1
        for i in range(a + 1, b):
            px, py = pts[i]
            if norm == 0:
                dist = ((px - x1) ** 2 + (py - y1) ** 2) ** 0.5
            else:
                dist = abs(dy * px - dx * py + x2 * y1 - y2 * x1) / norm
            if dist > best:
                best, at = dist, i
        if best > tol:
            keep[at] = True
            stack.append((a, at))
            stack.append((at, b))
    return [p for p, k in zip(pts, keep) if k]


def size(pts):
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return max(max(xs) - min(xs), max(ys) - min(ys))


def fmt(v):
    s = f"{round(v, 1):.1f}".rstrip("0").rstrip(".")
    if s in ("-0", ""):
        s = "0"
    return s.replace("0.", ".", 1) if s.startswith("0.") else s.replace("-0.", "-.", 1)


def path(rs):
    out = []
    for pts in rs:
        # Integer tenths, so relative steps add up exactly.
        q = [(round(x * 10), round(y * 10)) for x, y in pts]
        s = f"M{fmt(q[0][0] / 10)} {fmt(q[0][1] / 10)}l"
        steps = []
        for (ax, ay), (bx, by) in zip(q, q[1:]):
            if (ax, ay) == (bx, by):
                continue
            dx, dy = fmt((bx - ax) / 10), fmt((by - ay) / 10)
            steps.append(dx + ("" if dy.startswith("-") else " ") + dy)
        s += "".join(
            st if i == 0 or st.startswith("-") else " " + st for i, st in enumerate(steps)
        )
        out.append(s + "z")
    return "".join(out)


def main():
    text = SVG.read_text()
    def one(m):
        code, d = m.group(1), m.group(2)
        rs = rings(d)
        largest = max(rs, key=size)
        kept = [dp(r, TOLERANCE) for r in rs if r is largest or size(r) >= MIN_RING]
        kept = [r for r in kept if len(r) >= 3]
        if not kept:
            kept = [dp(largest, TOLERANCE)] if len(largest) >= 3 else [largest]
        return f'<path id="{code}" d="{path(kept)}"/>'
    out = re.sub(r'<path id="([A-Z]+)" d="([^"]*)"/>', one, text)
    if "simplified by tools/map/simplify.py" not in out:
        out = out.replace(" -->", f"; simplified by tools/map/simplify.py (Douglas-Peucker {TOLERANCE}, rings under {MIN_RING} dropped) -->", 1)
    SVG.write_text(out)
    print(f"{len(text)} -> {len(out)} bytes")


if __name__ == "__main__":
    main()
