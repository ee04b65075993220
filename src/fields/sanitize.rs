//! What the text, Markdown, HTML and CSV answers never print: C0 and C1
//! control characters, DEL, and the bidirectional overrides, isolates and
//! marks that reorder what a reader sees, and the invisible zero-width
//! space, word joiner and byte-order mark (U+200B, U+2060, U+FEFF), which
//! hide text from a reader (`ex\u{200b}ample.com`). Values come from PTR records, data
//! files and request bytes; a terminal that `curl` (or `cat` of an enriched
//! CSV file) writes into must not receive an escape sequence from any of
//! them. One place, so every renderer strips the same set.

use std::borrow::Cow;

/// Whether `c` is never printed: C0 controls (U+0000..U+001F, tab and line
/// breaks included), DEL (U+007F), C1 controls (U+0080..U+009F), and the
/// bidi controls U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069,
/// and the zero-width space, word joiner and byte-order mark (U+200B,
/// U+2060, U+FEFF). Joiners (U+200C, U+200D) stay: emoji and scripts need
/// them.
pub fn is_unsafe(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200b}'
            | '\u{2060}'
            | '\u{feff}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

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
                '\t' | '\n' | '\r' | '\u{b}' | '\u{c}' => Some(' '),
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
            '\u{0}', '\u{7}', '\t', '\n', '\r', '\u{1b}', '\u{1f}', '\u{7f}', '\u{80}', '\u{85}',
            '\u{9b}', '\u{9f}', '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202e}',
            '\u{2066}', '\u{2069}', '\u{200b}', '\u{2060}', '\u{feff}',
        ] {
            assert!(is_unsafe(c), "{:?}", c);
        }
        for c in [
            ' ', 'a', '~', '\u{a0}', 'é', 'ব', '🇩', '\u{200d}', '\u{2065}', '\u{206a}', '\u{2029}',
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
    fn page_keeps_its_own_line_breaks_only() {
        let s = "a: 1\nb: \u{1b}[2J\u{200f}x\r\n".to_owned();
        assert_eq!(page(s), "a: 1\nb: [2Jx\n");
        let clean = "a: 1\n".to_owned();
        assert_eq!(page(clean.clone()), clean);
    }
}
