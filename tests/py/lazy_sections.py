"""The sections and list chunks (`ul.chunk`, a long list written in parts)
a page lays out only when scrolled near (`content-visibility: auto`), for
docs_check.py and network_check.py: the
room each holds while skipped against its real height. Content taller than
the room held is drawn over what follows when a tool measures a skipped
section (Lighthouse's tap-target audit once saw one copy button over
another on /docs)."""

ROOM_HELD = """() => [...document.querySelectorAll('section, ul.chunk')]
  .filter(s => getComputedStyle(s).contentVisibility === 'auto')
  .map((s, i) => {
    const m = /([0-9.]+)px/.exec(getComputedStyle(s).containIntrinsicHeight);
    const held = m ? parseFloat(m[1]) : 0;
    s.style.contentVisibility = 'visible';
    const real = s.getBoundingClientRect().height;
    s.style.contentVisibility = '';
    return [s.id || `${s.tagName.toLowerCase()}.chunk[${i}]`, held, real];
  })"""


def room_held(page):
    """`(rows, short)`: each lazy section's id (a chunk: `ul.chunk[i]`), room
    held and real height in px, and a line for each one taller than its
    room."""
    rows = page.evaluate(ROOM_HELD)
    short = [f"#{i}: {h:.0f} px held, {r:.0f} px real" for i, h, r in rows if r > h]
    return rows, short
