//! Text a reader cannot see: Unicode's invisible and format characters
//! ([`is_invisible`]), and a name without them ([`visible`]). The service's
//! text forms drop them (`fields::sanitize`) and its MCP tools give names
//! without them.

/// Unicode's `Default_Ignorable_Code_Point` characters and format
/// characters (general category `Cf`), which a reader does not see or which
/// change how the text around them shows: the soft hyphen U+00AD, the
/// bidirectional marks, overrides and isolates (U+061C, U+200E, U+200F,
/// U+202A..U+202E, U+2066..U+2069), the zero-width space, word joiner and
/// invisible operators (U+200B, U+2060..U+2064), the Hangul fillers
/// (U+115F, U+1160, U+3164, U+FFA0), the byte-order mark (U+FEFF), the tag
/// characters (U+E0000..U+E007F) and the rest of U+E0000..U+E0FFF but the
/// variation selectors; kept: the joiners U+200C and U+200D, the variation
/// selectors (U+FE00..U+FE0F, U+E0100..U+E01EF) and the Mongolian free
/// variation selectors (U+180B..U+180D, U+180F), which scripts need.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{ad}'
            | '\u{34f}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{115f}'..='\u{1160}'
            | '\u{17b4}'..='\u{17b5}'
            | '\u{180e}'
            | '\u{200b}'
            | '\u{200e}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff0}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e00ff}'
            | '\u{e01f0}'..='\u{e0fff}'
    )
}

/// `text` without its invisible and format characters ([`is_invisible`]):
/// a name as the MCP tools give it to a language model, which reads what a
/// person reviewing the answer does not see (the JSON API keeps the data as
/// it is).
/// The line and paragraph separators (U+2028, U+2029) become spaces: a
/// name is one line.
pub fn visible(text: &str) -> std::borrow::Cow<'_, str> {
    let changes = |c: char| is_invisible(c) || matches!(c, '\u{2028}' | '\u{2029}');
    if text.is_ascii() || !text.chars().any(changes) {
        return std::borrow::Cow::Borrowed(text);
    }
    let kept = text.chars().filter_map(|c| match c {
        '\u{2028}' | '\u{2029}' => Some(' '),
        c if is_invisible(c) => None,
        c => Some(c),
    });
    std::borrow::Cow::Owned(kept.collect())
}
