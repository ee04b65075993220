"""Renders Markdown read from standard input with GitHub's own renderer,
cmark-gfm (PyPI `cmarkgfm`, pinned in tests/requirements.txt), with every GFM
extension on (table, autolink, strikethrough, tagfilter, tasklist) and raw
HTML passed through (`--unsafe`), so that any markup a value smuggles in
shows up in the output.

Usage: python tests/py/markdown_render.py < page.md

Prints one JSON object on stdout:
  html:  the rendered HTML
  links: the `href` of every <a>, in order
  tags:  how many of each element the page has, by name
  rows:  the body rows of every table, each a list of cells, each
         {"html": inner HTML, "text": its text, "tags": element names in it}
  comments: how many HTML comments (cmark-gfm writes raw HTML it drops as one)
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from html.parser import HTMLParser

import cmarkgfm
from cmarkgfm.cmark import Options

EXTENSIONS = ["table", "autolink", "strikethrough", "tagfilter", "tasklist"]


class Walk(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.tags: Counter[str] = Counter()
        self.rows: list[list[dict]] = []
        self.comments = 0
        self.in_body = False
        self.cell: dict | None = None

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        if tag == "a":
            self.links.append(dict(attrs).get("href", ""))
        if tag == "tbody":
            self.in_body = True
        elif tag == "tr" and self.in_body:
            self.rows.append([])
        elif tag == "td" and self.in_body:
            self.cell = {"html": "", "text": "", "tags": []}
        elif self.cell is not None:
            self.cell["tags"].append(tag)
            self.cell["html"] += self.get_starttag_text() or ""

    def handle_endtag(self, tag):
        if tag == "tbody":
            self.in_body = False
        elif tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        elif self.cell is not None:
            self.cell["html"] += f"</{tag}>"

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["html"] += data
            self.cell["text"] += data

    def handle_comment(self, data):
        self.comments += 1
        if self.cell is not None:
            self.cell["tags"].append("!--")


def main() -> None:
    text = sys.stdin.buffer.read().decode("utf-8")
    html = cmarkgfm.markdown_to_html_with_extensions(
        text, options=Options.CMARK_OPT_UNSAFE, extensions=EXTENSIONS
    )
    walk = Walk()
    walk.feed(html)
    walk.close()
    json.dump(
        {
            "html": html,
            "links": walk.links,
            "tags": walk.tags,
            "rows": walk.rows,
            "comments": walk.comments,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
