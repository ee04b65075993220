//! What the renderers know of the request besides the page ([`View`]).

use super::i18n::Lang;

/// What the renderers know of the request besides the page: its language,
/// whether the language was asked in the query (then the page's own links
/// keep `?lang=`), and the host the caller used (for `curl` commands).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct View {
    pub lang: Lang,
    pub lang_in_query: bool,
    pub host: Option<String>,
}

impl View {
    /// `path` as a link of this page: with `lang=` when the page's language
    /// came from the query.
    pub(crate) fn href(&self, path: &str) -> String {
        if !self.lang_in_query {
            return path.to_owned();
        }
        let sep = if path.contains('?') { '&' } else { '?' };
        format!("{path}{sep}lang={}", self.lang.code())
    }

    /// The host for `curl` commands: the caller's, else `localhost:8080`.
    pub(crate) fn host(&self) -> &str {
        self.host.as_deref().unwrap_or("localhost:8080")
    }
}
