//! What the text, Markdown, HTML and CSV answers never print: C0 and C1
//! control characters, DEL, the line and paragraph separators, the
//! bidirectional overrides, isolates and marks that reorder what a reader
//! sees, and Unicode's other invisible and format characters (the
//! zero-width space, the soft hyphen, the Hangul fillers, the tag
//! characters...), which hide text from a reader (`ex\u{200b}ample.com`) or
//! from a person reviewing what a language model read. Values come from PTR records, data
//! files and request bytes; a terminal that `curl` (or `cat` of an enriched
//! CSV file) writes into must not receive an escape sequence from any of
//! them. One place, so every renderer strips the same set.

use std::borrow::Cow;

/// Whether `c` is never printed: C0 controls (U+0000..U+001F, tab and line
/// breaks included), DEL (U+007F), C1 controls (U+0080..U+009F), the line
/// and paragraph separators (U+2028, U+2029), and Unicode's invisible and
/// format characters ([`is_invisible`], which the data files' names lose
/// at load already). Joiners (U+200C, U+200D) and
/// variation selectors stay: emoji and scripts need them.
pub fn is_unsafe(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}')
        || is_invisible(c)
}

pub use iplookup_data::text::is_invisible;

/// Whether every byte of `s` is printable ASCII (the common case: nothing to
/// strip), or also `\n` when `newlines` is set.
fn plain(s: &str, newlines: bool) -> bool {
    s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) || (newlines && b == b'\n'))
}

/// A value for one line: tabs and line breaks become a space (so a value
/// can't start a forged line of its own), every other unsafe character is
/// dropped.
pub fn one_line(s: &str) -> Cow<'_, str> {
    if plain(s, false) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        s.chars()
            .filter_map(|c| match c {
                '\t' | '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{2028}' | '\u{2029}' => Some(' '),
                c if is_unsafe(c) => None,
                c => Some(c),
            })
            .collect(),
    )
}

/// A whole rendered page: every unsafe character dropped except `\n`, which
/// the renderer wrote itself.
pub fn page(s: String) -> String {
    if plain(&s, true) {
        return s;
    }
    s.chars().filter(|&c| c == '\n' || !is_unsafe(c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_are_unsafe_and_text_is_not() {
        for c in [
            '\u{0}',
            '\u{7}',
            '\t',
            '\n',
            '\r',
            '\u{1b}',
            '\u{1f}',
            '\u{7f}',
            '\u{80}',
            '\u{85}',
            '\u{9b}',
            '\u{9f}',
            '\u{61c}',
            '\u{200e}',
            '\u{200f}',
            '\u{202a}',
            '\u{202e}',
            '\u{2066}',
            '\u{2069}',
            '\u{200b}',
            '\u{2060}',
            '\u{feff}',
            '\u{2028}',
            '\u{2029}',
            '\u{e0001}',
            '\u{e0041}',
            '\u{e007f}',
            '\u{ad}',
            '\u{3164}',
            '\u{115f}',
            '\u{2064}',
            '\u{180e}',
            '\u{ffa0}',
            '\u{1d173}',
        ] {
            assert!(is_unsafe(c), "{:?}", c);
        }
        for c in [
            ' ',
            'a',
            '~',
            '\u{a0}',
            'é',
            'ব',
            '🇩',
            '\u{200d}',
            '\u{200c}',
            '\u{fe0f}',
            '\u{e0100}',
            '\u{180b}',
            '\u{2027}',
            '\u{202f}',
        ] {
            assert!(!is_unsafe(c), "{:?}", c);
        }
    }

    #[test]
    fn one_line_drops_escapes_and_flattens_line_breaks() {
        assert!(matches!(one_line("Google LLC"), Cow::Borrowed(_)));
        assert_eq!(
            one_line("\u{1b}]0;pwned\u{7}\u{1b}[31mevil\u{9b}2J"),
            "]0;pwned[31mevil2J"
        );
        assert_eq!(one_line("a\nasn: 1\r\tb"), "a asn: 1  b");
        assert_eq!(
            one_line("\u{202e}moc.live\u{202c} Ünïcode"),
            "moc.live Ünïcode"
        );
    }

    #[test]
    fn hidden_text_is_dropped_and_separators_break_no_line() {
        // "ignore" in tag characters, the way text is hidden from a reader
        // but not from a language model.
        let tagged: String = "Org"
            .chars()
            .chain(
                "ignore"
                    .chars()
                    .map(|c| char::from_u32(0xe0000 + c as u32).unwrap()),
            )
            .collect();
        assert_eq!(one_line(&tagged), "Org");
        assert_eq!(one_line("a\u{2028}b\u{2029}c"), "a b c");
        assert_eq!(one_line("soft\u{ad}hy\u{3164}\u{115f}phen"), "softhyphen");
        assert_eq!(page("x\u{2028}y\u{e0041}\n".to_owned()), "xy\n");
    }

    #[test]
    fn page_keeps_its_own_line_breaks_only() {
        let s = "a: 1\nb: \u{1b}[2J\u{200f}x\r\n".to_owned();
        assert_eq!(page(s), "a: 1\nb: [2Jx\n");
        let clean = "a: 1\n".to_owned();
        assert_eq!(page(clean.clone()), clean);
    }
}
