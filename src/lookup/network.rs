//! Prefixes and countries: the caller's text parsed strictly (`8.8.8.0/24`,
//! `BD`), and what the current release says of them as the wire's
//! [`PrefixInfo`] and [`CountryInfo`]. HTTP and MCP both call
//! [`Lookup::prefix`] and [`Lookup::country`].
//!
//! Answers are built on a blocking thread under the AS answers' deadline
//! and with their builders ([`super::asn::build`]): the first country
//! question of a release counts the country space there
//! (`GeoDb::country_space`), and a page of a prefix reads only the rows it
//! lists.

use std::borrow::Cow;
use std::net::IpAddr;

use ipnet::IpNet;

use super::Lookup;
use super::asn::{BuildError, build, counts};
use crate::address;
use crate::geo::countries::{Country, CountryTable};
use crate::geo::{GeoDb, special};
use crate::model::{
    self, CountryAs, CountryFacts, CountryInfo, ErrorCode, PrefixInfo, PrefixPage, PrefixRow,
    RowCount,
};

/// Why a prefix or country question got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NetworkError {
    /// Not a prefix; the message says why and what would work.
    #[error("{0}")]
    InvalidPrefix(String),
    /// No country has this code; the message suggests one.
    #[error("{0}")]
    UnknownCountry(String),
    /// A page past the last.
    #[error("there {verb} {pages} page{s}", verb = if *.pages == 1 { "is" } else { "are" }, s = if *.pages == 1 { "" } else { "s" })]
    NoPage { pages: u64 },
    /// The answer was not ready in time.
    #[error("the answer could not be built in time; try again shortly")]
    Busy,
}

impl NetworkError {
    /// The error code callers see.
    pub(crate) fn code(&self) -> ErrorCode {
        match self {
            NetworkError::InvalidPrefix(_) => ErrorCode::InvalidPrefix,
            NetworkError::UnknownCountry(_) => ErrorCode::UnknownCountry,
            NetworkError::NoPage { .. } => ErrorCode::NotFound,
            NetworkError::Busy => ErrorCode::Overloaded,
        }
    }

    /// The error as the wire's `Error` body.
    pub(crate) fn body(&self) -> model::Error {
        model::Error::new(self.code(), self.to_string())
    }
}

impl From<BuildError> for NetworkError {
    fn from(_: BuildError) -> Self {
        NetworkError::Busy
    }
}

/// `8.8.8.0/24` or `2001:4860::/32`: an address in the strict forms of
/// [`address::parse`], `/`, and a length of 0 to 32 (IPv4) or 128 (IPv6)
/// in decimal digits, with no host bits set.
pub(crate) fn parse_prefix(text: &str) -> Result<IpNet, NetworkError> {
    let shown: String = text.chars().take(60).collect();
    let bad = NetworkError::InvalidPrefix;
    let Some((addr, len)) = text.split_once('/') else {
        let hint = address::parse(text)
            .map(|ip| {
                let max = if ip.is_ipv4() { 32 } else { 128 };
                format!(" (one address is {}/{max})", address::text(ip))
            })
            .unwrap_or_default();
        return Err(bad(format!(
            "not a prefix: {shown:?} has no /length; give an address, / and a length, as 8.8.8.0/24 or 2001:4860::/32{hint}"
        )));
    };
    let ip = address::parse(addr).map_err(|_| {
        bad(format!(
            "not a prefix: {:?} is not an IPv4 or IPv6 address; give one before the /, as 8.8.8.0/24 or 2001:4860::/32",
            addr.chars().take(45).collect::<String>()
        ))
    })?;
    let max: u8 = if ip.is_ipv4() { 32 } else { 128 };
    let length = (!len.is_empty() && len.len() <= 3 && len.bytes().all(|b| b.is_ascii_digit()))
        .then(|| len.parse::<u8>().ok())
        .flatten()
        .filter(|n| *n <= max)
        .ok_or_else(|| {
            bad(format!(
                "not a prefix: the length {:?} is not a whole number from 0 to {max} ({} addresses take 0 to {max})",
                len.chars().take(10).collect::<String>(),
                address::version(ip)
            ))
        })?;
    let net = IpNet::new(ip, length).map_err(|_| bad(format!("not a prefix: {shown:?}")))?;
    let canonical = net.trunc();
    if canonical.addr() != ip {
        return Err(bad(format!(
            "not a prefix: {shown:?} has host bits set (bits after the first {length} are not all zero); the prefix of that length is {}",
            address::net_text(&canonical)
        )));
    }
    Ok(canonical)
}

/// One page of `net` in `db`: page `number` (from 1) of `per_page` rows.
pub(crate) fn describe_prefix(
    db: &GeoDb,
    net: IpNet,
    number: u32,
    per_page: u32,
) -> Result<PrefixInfo, NetworkError> {
    let per = u64::from(per_page.max(1));
    let offset = u64::from(number.max(1) - 1) * per;
    let view = db.prefix(net, offset, per_page.max(1) as usize);
    let pages = view.row_count.div_ceil(per).max(1);
    if u64::from(number) > pages || number == 0 {
        return Err(NetworkError::NoPage { pages });
    }
    let size = 1u128
        .checked_shl(u32::from(net.max_prefix_len() - net.prefix_len()))
        .map_or_else(
            || "340282366920938463463374607431768211456".to_owned(),
            |n| n.to_string(),
        );
    let special = special::block(net.network())
        .filter(|b| b.net.contains(&net))
        .map(|b| super::special_purpose(&b));
    let rows = view
        .rows
        .iter()
        .map(|r| PrefixRow {
            first: address::text(r.first),
            last: address::text(r.last),
            clipped: r.clipped,
            country_code: r.country.map(|c| Cow::Borrowed(c.code.as_str())),
            asn: r.network.map(|n| n.0),
            organization: r.network.map(|n| n.1.to_owned()),
            addresses: span_text(r.first, r.last),
            prefixes: r.prefixes.iter().map(address::net_text).collect(),
        })
        .collect();
    Ok(PrefixInfo {
        prefix: address::net_text(&net),
        version: address::version(net.addr()).to_owned(),
        addresses: size,
        covering: view.covering.as_ref().map(address::net_text),
        special_purpose: special,
        row_count: view.row_count,
        rows,
        page: PrefixPage {
            number,
            pages: pages.min(u64::from(u32::MAX)) as u32,
            per_page,
        },
    })
}

/// How many addresses `a..=b` holds, in decimal (2^128 for all of IPv6).
fn span_text(a: IpAddr, b: IpAddr) -> String {
    let wide = |ip: IpAddr| match ip {
        IpAddr::V4(a) => u128::from(u32::from(a)),
        IpAddr::V6(a) => u128::from(a),
    };
    let d = wide(b).saturating_sub(wide(a));
    d.checked_add(1).map_or_else(
        || "340282366920938463463374607431768211456".to_owned(),
        |n| n.to_string(),
    )
}

/// The country of a code (`BD`, `bd`); an unknown one gets a suggestion.
pub(crate) fn parse_country(
    text: &str,
    countries: &'static CountryTable,
) -> Result<&'static Country, NetworkError> {
    let code = text.to_ascii_uppercase();
    if let Some(c) = countries.get(&code) {
        return Ok(c);
    }
    let shown: String = text.chars().take(40).collect();
    let folded = text.trim().to_lowercase();
    let by_name = countries.iter().find(|c| {
        c.name.to_lowercase() == folded || c.name_bn.as_deref().is_some_and(|n| n == text.trim())
    });
    let alias = ALIASES
        .iter()
        .find(|(a, _)| *a == code)
        .and_then(|(_, c)| countries.get(c));
    let hint = match by_name.or(alias) {
        Some(c) => format!(
            "{} is {}: /api/v1/country/{}",
            shown_name(c, text),
            c.code,
            c.code
        ),
        None => match nearest(&code, countries) {
            Some(c) => format!("did you mean {} ({})?", c.code, c.name),
            None => "for example BD (Bangladesh) or US (United States)".to_owned(),
        },
    };
    Err(NetworkError::UnknownCountry(format!(
        "no country has the code {shown:?}: give an ISO 3166-1 alpha-2 code; {hint}"
    )))
}

/// The name `text` gave for `c` (an alias: the country's English name).
fn shown_name(c: &Country, text: &str) -> String {
    if text.trim().len() > 2 {
        c.name.clone()
    } else {
        format!("{} ({})", text.trim().to_ascii_uppercase(), c.name)
    }
}

/// Codes people use that ISO 3166-1 gives another country's code or none.
const ALIASES: [(&str, &str); 2] = [("UK", "GB"), ("EL", "GR")];

/// A code one letter away from `code` (two letters), the first by code.
fn nearest(code: &str, countries: &'static CountryTable) -> Option<&'static Country> {
    let b = code.as_bytes();
    if b.len() != 2 {
        return None;
    }
    countries.iter().find(|c| {
        let k = c.code.as_bytes();
        (k[0] == b[0]) != (k[1] == b[1]) || (k[0] == b[1] && k[1] == b[0])
    })
}

/// The facts of a country (the one conversion to [`CountryFacts`]).
pub(crate) fn facts(c: &'static Country) -> CountryFacts {
    CountryFacts {
        country_code: Cow::Borrowed(c.code.as_str()),
        country: Cow::Borrowed(c.name.as_str()),
        country_bn: c.name_bn.as_deref().map(Cow::Borrowed),
        flag: Cow::Borrowed(c.flag()),
        continent: c.continent.as_deref().map(Cow::Borrowed),
        currency: c.currency.as_deref().map(Cow::Borrowed),
        calling_code: c.calling_code.as_deref().map(Cow::Borrowed),
        time_zones: c.time_zones().into_iter().map(str::to_owned).collect(),
        latitude: c.latitude,
        longitude: c.longitude,
    }
}

/// One page of the country `c` in `db`: page `number` (from 1) of its ASes.
pub(crate) fn describe_country(
    db: &GeoDb,
    c: &'static Country,
    number: u32,
    per_page: u32,
) -> Result<CountryInfo, NetworkError> {
    let space = db.country_space();
    let world = space.world();
    let entry = space.get(&c.code);
    let (here, holders) =
        entry.map_or((Default::default(), &[][..]), |e| (e.space, &e.holders[..]));
    let per = per_page.max(1) as usize;
    let pages = holders.len().div_ceil(per).max(1) as u64;
    if u64::from(number) > pages || number == 0 {
        return Err(NetworkError::NoPage { pages });
    }
    let index = db.asn_index();
    let networks = &db.asn_tables().networks;
    let start = (number as usize - 1) * per;
    let ases = holders
        .iter()
        .skip(start)
        .take(per)
        .map(|h| CountryAs {
            asn: h.asn,
            organization: index.name(networks, h.asn).unwrap_or_default().to_owned(),
            addresses: counts(h.v4, h.v6, (here.v4, here.v6)),
        })
        .collect();
    Ok(CountryInfo {
        country: facts(c),
        addresses: counts(here.v4, here.v6, (world.v4, world.v6)),
        rows: RowCount {
            v4: here.rows_v4,
            v6: here.rows_v6,
        },
        as_count: holders.len() as u64,
        ases,
        page: PrefixPage {
            number,
            pages: pages.min(u64::from(u32::MAX)) as u32,
            per_page,
        },
    })
}

impl Lookup {
    /// A page of the prefix named by the caller's `text`, built on a
    /// blocking thread.
    pub(crate) async fn prefix(
        &self,
        text: &str,
        number: u32,
        per_page: u32,
    ) -> Result<(PrefixInfo, std::sync::Arc<str>), NetworkError> {
        let net = parse_prefix(text)?;
        let db = self.db();
        let tag = db.tag();
        let info = build(move || describe_prefix(&db, net, number, per_page)).await??;
        Ok((info, tag))
    }

    /// A page of the country named by the caller's `text`, built on a
    /// blocking thread.
    pub(crate) async fn country(
        &self,
        text: &str,
        number: u32,
        per_page: u32,
    ) -> Result<(CountryInfo, std::sync::Arc<str>), NetworkError> {
        let db = self.db();
        let c = parse_country(text, db.countries())?;
        let tag = db.tag();
        let info = build(move || describe_country(&db, c, number, per_page)).await??;
        Ok((info, tag))
    }

    /// [`Lookup::prefix`] on the calling thread (the documentation's examples).
    pub(crate) fn prefix_now(&self, text: &str, per_page: u32) -> Result<PrefixInfo, NetworkError> {
        describe_prefix(&self.db(), parse_prefix(text)?, 1, per_page)
    }

    /// [`Lookup::country`] on the calling thread (the documentation's examples).
    pub(crate) fn country_now(
        &self,
        text: &str,
        per_page: u32,
    ) -> Result<CountryInfo, NetworkError> {
        let db = self.db();
        let c = parse_country(text, db.countries())?;
        describe_country(&db, c, 1, per_page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_parse_strictly_and_say_what_would_work() {
        for (text, canonical) in [
            ("8.8.8.0/24", "8.8.8.0/24"),
            ("0.0.0.0/0", "0.0.0.0/0"),
            ("2001:4860::/32", "2001:4860::/32"),
            ("2001:4860:0::/32", "2001:4860::/32"),
            ("1.2.3.4/32", "1.2.3.4/32"),
        ] {
            assert_eq!(
                parse_prefix(text).map(|n| address::net_text(&n)),
                Ok(canonical.to_owned())
            );
        }
        let err = |t: &str| parse_prefix(t).unwrap_err().to_string();
        assert!(
            err("8.8.8.8/24").contains("the prefix of that length is 8.8.8.0/24"),
            "{}",
            err("8.8.8.8/24")
        );
        assert!(err("8.8.8.0/33").contains("0 to 32"));
        assert!(err("2001:db8::/129").contains("0 to 128"));
        assert!(err("8.8.8.8").contains("8.8.8.8/32"));
        for bad in [
            "x/24",
            "8.8.8.0/",
            "8.8.8.0/+4",
            "8.8.8.0/024x",
            "/24",
            "8.8.8.0/24/1",
            "8.8.8.0/ 24",
        ] {
            assert!(
                matches!(parse_prefix(bad), Err(NetworkError::InvalidPrefix(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn countries_are_found_by_code_in_any_case_and_suggested() {
        let t = CountryTable::embedded().unwrap();
        assert_eq!(parse_country("bd", t).unwrap().code, "BD");
        assert_eq!(parse_country("BD", t).unwrap().code, "BD");
        let e = parse_country("Bangladesh", t).unwrap_err().to_string();
        assert!(e.contains("Bangladesh is BD"), "{e}");
        let e = parse_country("বাংলাদেশ", t).unwrap_err().to_string();
        assert!(e.contains("Bangladesh is BD"), "{e}");
        let e = parse_country("XB", t).unwrap_err().to_string();
        assert!(e.contains("did you mean"), "{e}");
        let uk = parse_country("UK", t).unwrap_err();
        assert_eq!(uk.code(), ErrorCode::UnknownCountry);
        assert!(uk.to_string().contains("is GB"), "{uk}");
    }

    /// A country's total is the sum over its rows; its ASes are paged.
    #[test]
    fn a_country_answer_counts_its_rows() {
        let db = GeoDb::embedded().unwrap();
        let bd = describe_country(&db, db.countries().get("BD").unwrap(), 1, 50).unwrap();
        assert_eq!(bd.country.country_bn.as_deref(), Some("বাংলাদেশ"));
        assert_eq!(bd.country.time_zones, ["Asia/Dhaka"]);
        assert!(bd.addresses.v4 > 1_000_000 && bd.addresses.v4_share > 0.0);
        assert_eq!(bd.ases.len(), 50);
        assert!(bd.as_count > 50);
        let last = bd.as_count.div_ceil(50) as u32;
        assert_eq!(bd.page.pages, last);
        assert!(describe_country(&db, db.countries().get("BD").unwrap(), last + 1, 50).is_err());
    }
}
