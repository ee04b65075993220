//! The API answers a browser JSON (issue 23, point 1; DESIGN.md section 4),
//! shown in a real headless Chromium by `tests/py/browser_formats.py`: every
//! "JSON", "Markdown" and "text" link of the pages, clicked at 1280 x 800 and
//! 390 x 844, opens a document of that media type (not the HTML page, not a
//! download), and `/api/v1/ip/8.8.8.8` opened from the address bar, with
//! Chromium's own `Accept: text/html,...`, is `application/json`.

use crate::browser::run_script;
use crate::support;

#[test]
fn the_format_links_open_their_format_in_chromium() {
    let server = support::background(support::config());
    let out = run_script("browser_formats.py", &server.base, &[]);
    assert!(out.contains("OK: "), "{out}");
    assert!(
        out.contains("address bar /api/v1/ip/8.8.8.8 (Accept: text/html"),
        "{out}"
    );
    assert!(
        out.contains("desktop /8.8.8.8: JSON -> /api/v1/ip/8.8.8.8 -> application/json"),
        "{out}"
    );
}
