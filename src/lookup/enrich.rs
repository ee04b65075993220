//! The CSV rows of bulk enrichment (`iplookup lookup --format csv`), written
//! from the data straight into the output buffer: byte for byte the row
//! [`csv::row`] writes for the [`IpInfo`](crate::model::IpInfo) of
//! [`describe`], without building it (`tests/it/enrich.rs` holds them to it).
//!
//! Most of a row depends on the country alone: from `country_code` to
//! `calling_code` (names, flag, continent, centroid, accuracy, zone, local
//! time, currency, calling code) it is rendered once per country and second
//! and copied from then on. What varies per address (its text, the AS
//! number and organisation, the CIDR block) is written with table lookups,
//! no allocation. Answers with a city (a city database) and any second that
//! is a leap second go the general way: [`describe`], then [`csv::row`].

use std::net::IpAddr;

use chrono::{DateTime, Utc};

use super::{describe, local_time, quick, special};
use crate::address;
use crate::fields::{csv, spreadsheet_safe};
use crate::geo::countries::Country;
use crate::geo::special::SpecialBlock;
use crate::geo::{Answer, GeoDb};
use crate::model::ErrorCode;

/// Fields from `country_code` to `calling_code`: the part of a row that
/// comes from the country.
const COUNTRY_FIELDS: usize = 13;

/// Writes the CSV rows of one database at one time.
pub struct CsvRows<'db> {
    db: &'db GeoDb,
    now: DateTime<Utc>,
    /// `now` in whole seconds, and whether it is a leap second (never
    /// cached, see `local_time`).
    second: i64,
    leap: bool,
    /// The country part of a row for each two-letter code (`A`..`Z` twice).
    countries: Vec<Segment>,
    /// `asn,organization,` of the AS rows met lately.
    networks: Networks,
    /// The addresses of the inputs being written, and their answers (kept
    /// for their room).
    ips: Vec<IpAddr>,
    answers: Vec<Answer<'db>>,
}

/// `asn,organization,` (CSV-escaped, formulas defused) of AS rows, in a
/// direct-mapped cache keyed by the AS number and the address of the row's
/// organisation text (which lives as long as the release): the escaping is
/// done once per row rather than once per address.
struct Networks {
    /// Per slot: the key, and the text's place in `text`.
    slots: Vec<((usize, u32), u32, u32)>,
    text: Vec<u8>,
}

impl Networks {
    const SLOTS: usize = 1 << 14;
    /// The text is started afresh past this size (rows evicted and met
    /// again would otherwise add to it forever).
    const TEXT_MAX: usize = 4 << 20;

    fn new() -> Self {
        Networks {
            slots: vec![((0, 0), 0, 0); Self::SLOTS],
            text: Vec::new(),
        }
    }

    /// Appends `asn,organization,` of an AS row.
    fn write(&mut self, out: &mut Vec<u8>, asn: u32, org: &str) {
        if org.is_empty() {
            // (Every empty text may share one address.)
            return network_fields(out, asn, org);
        }
        let key = (org.as_ptr() as usize, asn);
        let slot = (key.0 >> 3 ^ key.1 as usize) % Self::SLOTS;
        let (k, from, to) = self.slots[slot];
        if k != key {
            if self.text.len() > Self::TEXT_MAX {
                self.text.clear();
                self.slots.fill(((0, 0), 0, 0));
            }
            let from = self.text.len();
            network_fields(&mut self.text, asn, org);
            self.slots[slot] = (key, from as u32, self.text.len() as u32);
            return out.extend_from_slice(&self.text[from..]);
        }
        out.extend_from_slice(&self.text[from as usize..to as usize]);
    }
}

/// Inputs read and looked up together (see [`GeoDb::lookup_many`]).
const GROUP: usize = 16;

/// What an input is.
#[derive(Clone, Copy)]
enum Input {
    /// Not an address.
    Invalid,
    /// An address of a special-purpose block that is not public.
    Special(IpAddr, SpecialBlock),
    /// A public address; whether the input is its canonical text already.
    Public(IpAddr, bool),
}

impl Input {
    fn read(input: &[u8]) -> Input {
        // A dotted quad that parses is its own canonical text (four
        // decimal octets, no leading zeros), so is the full IPv6 form
        // `quick::full_v6` takes; other forms are written.
        let (ip, canonical) = if let Some(v4) = quick::v4(input) {
            (IpAddr::V4(v4), true)
        } else if let Some(v6) = quick::full_v6(input) {
            (IpAddr::V6(v6), true)
        } else {
            let parsed = quick::parse(input).or_else(|| {
                let text = std::str::from_utf8(input).ok()?;
                address::parse(text).ok()
            });
            match parsed {
                Some(ip) => (ip, false),
                None => return Input::Invalid,
            }
        };
        match special(ip) {
            Some(block) => Input::Special(ip, block),
            None => Input::Public(ip, canonical),
        }
    }
}

/// The country part of a row, rendered for one second.
#[derive(Default)]
struct Segment {
    /// The second it was rendered for (`None`: never).
    second: Option<i64>,
    /// `country_code,...,calling_code,`: every field with its comma.
    bytes: Vec<u8>,
}

impl<'db> CsvRows<'db> {
    /// Rows answered from `db`, `local_time` as of `now`.
    pub fn new(db: &'db GeoDb, now: DateTime<Utc>) -> Self {
        let mut countries = Vec::new();
        countries.resize_with(26 * 26, Segment::default);
        let mut rows = CsvRows {
            db,
            now,
            second: 0,
            leap: false,
            countries,
            networks: Networks::new(),
            ips: Vec::with_capacity(GROUP),
            answers: Vec::with_capacity(GROUP),
        };
        rows.set_now(now);
        rows
    }

    /// The time `local_time` is given for from the next row on.
    pub fn set_now(&mut self, now: DateTime<Utc>) {
        self.now = now;
        self.second = now.timestamp();
        self.leap = now.timestamp_subsec_nanos() >= 1_000_000_000;
    }

    /// Appends the row of one input (a line or an argument): the answer, or
    /// an error row keeping the input (not UTF-8: the bad bytes as U+FFFD).
    /// Returns whether the input was an address.
    pub fn line(&mut self, out: &mut Vec<u8>, input: &[u8]) -> bool {
        self.lines(out, &[input]) == 0
    }

    /// Appends the rows of several inputs, in order, as [`CsvRows::line`]
    /// would one by one; their addresses are looked up together
    /// ([`GeoDb::lookup_many`]). Returns how many inputs were not addresses.
    pub fn lines(&mut self, out: &mut Vec<u8>, inputs: &[&[u8]]) -> usize {
        let mut failed = 0;
        let mut answers = std::mem::take(&mut self.answers);
        for group in inputs.chunks(GROUP) {
            let mut read = [Input::Invalid; GROUP];
            self.ips.clear();
            for (input, read) in group.iter().zip(&mut read) {
                *read = Input::read(input);
                if let Input::Public(ip, _) = *read {
                    self.ips.push(ip);
                }
            }
            self.db.lookup_many(&self.ips, &mut answers);
            // One answer for each public address, in order.
            let mut found = answers.iter();
            for (input, read) in group.iter().zip(read) {
                match read {
                    Input::Public(ip, canonical) => {
                        let text = canonical.then_some(*input);
                        match found.next() {
                            Some(answer) => self.answer(out, ip, text, answer),
                            None => self.answer(out, ip, text, &self.db.lookup(ip)),
                        }
                    }
                    Input::Special(ip, block) => not_public(out, ip, &block.net),
                    Input::Invalid => {
                        failed += 1;
                        csv::error_row(
                            out,
                            &String::from_utf8_lossy(input),
                            ErrorCode::InvalidIp.as_str(),
                        );
                    }
                }
            }
        }
        self.answers = answers;
        failed
    }

    /// Appends the row of a public address (`text`: its text, if the input
    /// is already canonical) from its answer.
    fn answer(&mut self, out: &mut Vec<u8>, ip: IpAddr, text: Option<&[u8]>, answer: &Answer) {
        if (answer.city.is_some() && answer.country.is_some()) || self.leap {
            return csv::row(out, &describe(self.db, ip, self.now));
        }
        match text {
            Some(text) => out.extend_from_slice(text),
            None => csv::ip(out, ip),
        }
        out.extend_from_slice(match ip {
            IpAddr::V4(_) => b",IPv4,true,",
            IpAddr::V6(_) => b",IPv6,true,",
        });
        match answer.country {
            Some(c) => self.country(out, c),
            None => out.extend_from_slice(&[b','; COUNTRY_FIELDS]),
        }
        match answer.network {
            Some((asn, org)) => self.networks.write(out, asn, org),
            None => out.extend_from_slice(b",,"),
        }
        if let Some(net) = &answer.range {
            csv::net(out, net);
        }
        out.extend_from_slice(b",,\n");
    }

    /// Appends the country part, rendered again when the second changed.
    fn country(&mut self, out: &mut Vec<u8>, c: &Country) {
        let second = self.second;
        let Some(segment) = slot(&c.code).and_then(|i| self.countries.get_mut(i)) else {
            // Never for a country of the table (its codes are A-Z twice).
            return country_fields(out, c, self.now);
        };
        if segment.second != Some(second) {
            segment.bytes.clear();
            country_fields(&mut segment.bytes, c, self.now);
            segment.second = Some(second);
        }
        out.extend_from_slice(&segment.bytes);
    }
}

/// The slot of a two-letter upper-case code.
fn slot(code: &str) -> Option<usize> {
    match code.as_bytes() {
        [a @ b'A'..=b'Z', b @ b'A'..=b'Z'] => {
            Some(usize::from(a - b'A') * 26 + usize::from(b - b'A'))
        }
        _ => None,
    }
}

/// The row of an address in a special-purpose block: not public, its
/// block as the range, nothing else.
fn not_public(out: &mut Vec<u8>, ip: IpAddr, block: &ipnet::IpNet) {
    csv::ip(out, ip);
    out.extend_from_slice(match ip {
        IpAddr::V4(_) => b",IPv4,false,",
        IpAddr::V6(_) => b",IPv6,false,",
    });
    // The country fields, `asn` and `organization`: empty.
    out.extend_from_slice(&[b','; COUNTRY_FIELDS + 2]);
    csv::net(out, block);
    out.extend_from_slice(b",,\n");
}

/// `country_code,...,calling_code,` of a country-level answer (no city):
/// the fields `lookup::location` fills, each with its comma.
fn country_fields(out: &mut Vec<u8>, c: &Country, now: DateTime<Utc>) {
    let text = |out: &mut Vec<u8>, value: Option<&str>| {
        if let Some(v) = value {
            csv::cell(out, v);
        }
        out.push(b',');
    };
    text(out, Some(&c.code));
    text(out, Some(&c.name));
    text(out, c.name_bn.as_deref());
    text(out, Some(c.flag()));
    text(out, c.continent.as_deref());
    text(out, None); // city
    csv::float(out, c.latitude);
    out.push(b',');
    csv::float(out, c.longitude);
    out.push(b',');
    text(out, Some("country")); // accuracy
    text(out, c.time_zone.map(|tz| tz.name()));
    let local = c.time_zone.map(|tz| local_time(tz, now));
    text(out, local.as_deref());
    text(out, c.currency.as_deref());
    text(out, c.calling_code.as_deref());
}

/// `asn,organization,` of an AS row (an empty organisation is null).
fn network_fields(out: &mut Vec<u8>, asn: u32, org: &str) {
    out.extend_from_slice(itoa::Buffer::new().format(asn).as_bytes());
    out.push(b',');
    if !org.is_empty() {
        csv::cell(out, &spreadsheet_safe(org.into()));
    }
    out.push(b',');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache gives what rendering gives, for rows met again, rows
    /// sharing a slot, an empty organisation, and past the text's limit.
    #[test]
    fn the_network_cache_writes_what_rendering_writes() {
        let orgs: Vec<String> = (0..120_000)
            .map(|i| match i % 4 {
                0 => format!("Org {i}, Inc."),
                1 => format!("=cmd|{i}"),
                2 => format!("\"Quoted\" {i} {}", "x".repeat(i % 50)),
                _ => String::new(),
            })
            .collect();
        let mut cache = Networks::new();
        for round in 0..2 {
            for (i, org) in orgs.iter().enumerate() {
                let asn = (i % 1000) as u32 + round;
                let (mut got, mut want) = (Vec::new(), Vec::new());
                cache.write(&mut got, asn, org);
                network_fields(&mut want, asn, org);
                assert_eq!(got, want, "{asn} {org:?}");
            }
        }
        assert!(cache.text.len() <= Networks::TEXT_MAX + 200);
    }

    #[test]
    fn slots_cover_the_two_letter_codes_only() {
        assert_eq!(slot("AA"), Some(0));
        assert_eq!(slot("ZZ"), Some(26 * 26 - 1));
        for bad in ["", "A", "ABC", "aa", "A1", "ÄA"] {
            assert_eq!(slot(bad), None, "{bad:?}");
        }
    }
}
