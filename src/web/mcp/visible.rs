//! What a language model reads of an answer: the names from the data files
//! (organisation, city) and the PTR name without the invisible and format
//! characters a person reviewing the answer cannot see
//! ([`iplookup_data::text::visible`]: tag characters, U+2028, U+00AD,
//! U+3164, ...), so no hidden text reaches a model through `/mcp`. The
//! JSON API keeps the data as it is; the text forms drop the same set
//! ([`crate::fields::sanitize`]).

use iplookup_data::text::visible;

use super::super::batch::BatchEntry;
use crate::model::{AsnInfo, CountryInfo, IpInfo, PrefixInfo};

/// `text` cleaned in place, when it holds anything to clean.
fn clean(text: &mut String) {
    if let std::borrow::Cow::Owned(clean) = visible(text) {
        *text = clean;
    }
}

/// `info` as a model reads it.
pub(super) fn info(mut info: IpInfo) -> IpInfo {
    for text in [
        info.network.organization.as_mut(),
        info.location.city.as_mut(),
        info.network.reverse_dns.as_mut(),
    ]
    .into_iter()
    .flatten()
    {
        clean(text);
    }
    info
}

/// Each entry of a batch as a model reads it.
pub(super) fn entries(entries: Vec<BatchEntry>) -> Vec<BatchEntry> {
    entries
        .into_iter()
        .map(|entry| match entry {
            BatchEntry::Info(i) => BatchEntry::Info(Box::new(info(*i))),
            other => other,
        })
        .collect()
}

/// An AS answer as a model reads it.
pub(super) fn asn(mut info: AsnInfo) -> AsnInfo {
    clean(&mut info.organization);
    info
}

/// A prefix answer as a model reads it: each row's organisation.
pub(super) fn prefix(mut info: PrefixInfo) -> PrefixInfo {
    for row in &mut info.rows {
        if let Some(org) = row.organization.as_mut() {
            clean(org);
        }
    }
    info
}

/// A country answer as a model reads it: each AS's organisation.
pub(super) fn country(mut info: CountryInfo) -> CountryInfo {
    for each in &mut info.ases {
        clean(&mut each.organization);
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_text_is_dropped_from_names() {
        let mut i = crate::lookup::blank();
        i.network.organization = Some("Acme\u{e0069}\u{e0067}\u{2028}Net\u{ad}".into());
        i.location.city = Some("Da\u{3164}ka".into());
        let i = info(i);
        assert_eq!(i.network.organization.as_deref(), Some("Acme Net"));
        assert_eq!(i.location.city.as_deref(), Some("Daka"));
    }
}
