//! The one `If-None-Match` matcher of every route: weak comparison
//! (RFC 9110, section 8.8.3.2: two entity tags match when their opaque
//! tags are the same, whether either is weak or not), and `*`, which
//! matches any current representation (section 13.1.2). Every answer that
//! carries an `ETag` and revalidates (pages and the API in four formats,
//! single fields, the AS prefixes as CSV, assets) asks here.

/// Whether the `If-None-Match` value `if_none_match` (a comma-separated
/// list, or several header lines joined with commas) names `etag` (the
/// answer's `ETag`; `None`: it has none) or is `*`.
pub(crate) fn matches(if_none_match: &str, etag: Option<&str>) -> bool {
    let ours = etag.map(opaque).filter(|t| !t.is_empty());
    if_none_match.split(',').any(|tag| {
        let tag = tag.trim();
        tag == "*" || ours.is_some_and(|ours| opaque(tag) == ours)
    })
}

/// The opaque tag of an entity tag (`"x"` of `W/"x"` or of `"x"`).
fn opaque(tag: &str) -> &str {
    let tag = tag.trim();
    tag.strip_prefix("W/").unwrap_or(tag)
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn weak_comparison_and_the_star() {
        let ours = "W/\"r1-json\"";
        for inm in [
            "W/\"r1-json\"",
            "\"r1-json\"",
            " W/\"r0-json\" , W/\"r1-json\" ",
            "*",
            "W/\"other\", *",
        ] {
            assert!(matches(inm, Some(ours)), "{inm}");
        }
        assert!(
            matches("W/\"a\"", Some("\"a\"")),
            "a strong tag of ours too"
        );
        assert!(matches("*", None), "`*` matches an answer without a tag");
        assert!(!matches("W/\"a\"", None));
        assert!(!matches("", Some("")));
        for inm in [
            "W/\"r1-html\"",
            "r1-json",
            "W/\"r1-json",
            "",
            "W/W/\"r1-json\"",
        ] {
            assert!(!matches(inm, Some(ours)), "{inm}");
        }
    }
}
