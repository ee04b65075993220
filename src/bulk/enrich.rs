//! The CSV rows of bulk enrichment (`iplookup lookup --format csv`), written
//! from the data straight into the output buffer: byte for byte the row
//! [`csv::row_of`] writes for the [`IpInfo`](crate::model::IpInfo) of
//! [`describe`], in the same columns, without building it
//! (`tests/it/enrich.rs` holds them to it).
//!
//! Much of a row depends on the country alone (names, flag, continent,
//! centroid, accuracy, zone, local time, currency, calling code): those
//! cells are rendered once per country and second ([`Piece::Country`]) and
//! copied from then on. What varies per address (its text, the AS number and
//! organisation, the CIDR block) is written with table lookups, no
//! allocation. Answers with a city (a city database) and any second that is
//! a leap second go the general way: [`describe`], then [`csv::row_of`].

use std::net::IpAddr;

use chrono::{DateTime, Utc};

use super::columns::{Columns, Piece};
use super::quick;
use crate::address;
use crate::fields::{Field, csv, spreadsheet_safe};
use crate::geo::countries::Country;
use crate::geo::special::SpecialBlock;
use crate::geo::{Answer, GeoDb};
use crate::lookup::{describe, local_time};
use crate::model::ErrorCode;
use crate::zone::country::zone_at;

/// Writes the CSV rows of one database at one time.
pub struct CsvRows<'db> {
    db: &'db GeoDb,
    now: DateTime<Utc>,
    /// `now` in whole seconds, and whether it is a leap second (never
    /// cached, see `local_time`).
    second: i64,
    leap: bool,
    /// The columns.
    columns: Columns,
    /// The country runs of a row ([`Piece::Country`]) for each two-letter
    /// code (`A`..`Z` twice): run `r` of code slot `c` at `c * runs + r`.
    countries: Vec<Segment>,
    /// `asn,organization,` of the AS rows met lately.
    networks: AsCells,
    /// The addresses of the inputs being written, and their answers (kept
    /// for their room).
    ips: Vec<IpAddr>,
    answers: Vec<Answer<'db>>,
}

/// `asn,organization,` (CSV-escaped, formulas defused) of AS rows, in a
/// direct-mapped cache keyed by the AS number and the address of the row's
/// organisation text (which lives as long as the release): the escaping is
/// done once per row rather than once per address.
struct AsCells {
    slots: Vec<Cached>,
    text: Vec<u8>,
}

/// One slot of [`AsCells`]: its key, and where its text lies in
/// [`AsCells::text`] (`asn,` in `from..mid`, `organization,` in `mid..to`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Cached {
    org: usize,
    asn: u32,
    from: u32,
    mid: u32,
    to: u32,
}

impl AsCells {
    const SLOTS: usize = 1 << 14;
    /// The text is started afresh past this size (rows evicted and met
    /// again would otherwise add to it forever).
    const TEXT_MAX: usize = 4 << 20;

    fn new() -> Self {
        AsCells {
            slots: vec![Cached::default(); Self::SLOTS],
            text: Vec::new(),
        }
    }

    /// `asn,` and `organization,` of an AS row.
    fn get(&mut self, asn: u32, org: &str) -> (&[u8], &[u8]) {
        let ptr = org.as_ptr() as usize;
        let slot = (ptr >> 3 ^ asn as usize) % Self::SLOTS;
        let mut cached = self.slots[slot];
        if (cached.org, cached.asn) != (ptr, asn) {
            if self.text.len() > Self::TEXT_MAX {
                self.text.clear();
                self.slots.fill(Cached::default());
            }
            let from = self.text.len() as u32;
            let mid = network_fields(&mut self.text, asn, org) as u32;
            let to = self.text.len() as u32;
            cached = Cached {
                org: ptr,
                asn,
                from,
                mid,
                to,
            };
            self.slots[slot] = cached;
        }
        let (number, name) = self.text.split_at(cached.mid as usize);
        (
            &number[cached.from as usize..],
            &name[..(cached.to - cached.mid) as usize],
        )
    }
}

/// The country runs of a row, rendered for one second.
#[derive(Default)]
struct Segment {
    /// The second it was rendered for (`None`: never).
    second: Option<i64>,
    /// Every field of the run with its comma.
    bytes: Vec<u8>,
}

/// A public address to write a row of: its text, if the input is already
/// canonical, and the globally reachable special-purpose block holding it.
#[derive(Clone, Copy)]
struct Public<'a> {
    ip: IpAddr,
    text: Option<&'a [u8]>,
    block: Option<SpecialBlock>,
}

/// Inputs read and looked up together (see [`GeoDb::lookup_many`]).
const GROUP: usize = 32;

/// What an input is.
#[derive(Clone, Copy)]
enum Parsed {
    /// Not an address.
    Invalid,
    /// An address of a special-purpose block that is not public.
    Special(IpAddr, SpecialBlock),
    /// A public address; whether the input is its canonical text already;
    /// the globally reachable special-purpose block holding it, if any.
    Public(IpAddr, bool, Option<SpecialBlock>),
}

impl Parsed {
    fn read(input: &[u8]) -> Parsed {
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
                None => return Parsed::Invalid,
            }
        };
        match crate::geo::special::block(address::canonical(ip)) {
            Some(block) if !block.global => Parsed::Special(ip, block),
            block => Parsed::Public(ip, canonical, block),
        }
    }
}

impl<'db> CsvRows<'db> {
    /// Rows of the columns `fields` answered from `db`, `local_time` as of `now`.
    pub fn new(db: &'db GeoDb, now: DateTime<Utc>, fields: &[Field]) -> Self {
        let columns = Columns::new(fields);
        let mut countries = Vec::new();
        countries.resize_with(26 * 26 * columns.country_runs(), Segment::default);
        let mut rows = CsvRows {
            db,
            now,
            second: 0,
            leap: false,
            columns,
            countries,
            networks: AsCells::new(),
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
            let mut read = [Parsed::Invalid; GROUP];
            self.ips.clear();
            for (input, read) in group.iter().zip(&mut read) {
                *read = Parsed::read(input);
                if let Parsed::Public(ip, ..) = *read {
                    self.ips.push(ip);
                }
            }
            self.db.lookup_many(&self.ips, &mut answers);
            // One answer for each public address, in order.
            let mut found = answers.iter();
            for (input, read) in group.iter().zip(read) {
                match read {
                    Parsed::Public(ip, canonical, block) => {
                        let text = canonical.then_some(*input);
                        let public = Public { ip, text, block };
                        match found.next() {
                            Some(answer) => self.answer(out, public, answer),
                            None => self.answer(out, public, &self.db.lookup(ip)),
                        }
                    }
                    Parsed::Special(ip, block) => self.not_public(out, ip, &block),
                    Parsed::Invalid => {
                        failed += 1;
                        csv::error_row_of(
                            out,
                            self.columns.fields(),
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

    /// Appends the row of a public address from its answer.
    fn answer(&mut self, out: &mut Vec<u8>, public: Public<'_>, answer: &Answer) {
        let Public { ip, text, block } = public;
        if (answer.city.is_some() && answer.country.is_some()) || self.leap {
            let info = describe(self.db, ip, self.now);
            return csv::row_of(out, self.columns.fields(), &info);
        }
        for at in 0..self.columns.pieces().len() {
            match self.columns.pieces()[at] {
                Piece::Ip => match text {
                    Some(text) => out.extend_from_slice(text),
                    None => csv::ip(out, ip),
                },
                Piece::Version => out.extend_from_slice(version(ip)),
                Piece::IsPublic => out.extend_from_slice(b"true"),
                Piece::Country(run) => {
                    match answer.country {
                        Some(c) => self.country(out, c, run),
                        None => empty(out, self.columns.country_run(run).len()),
                    }
                    continue;
                }
                Piece::Asn | Piece::Organization | Piece::Network => {
                    match answer.network {
                        Some((asn, org)) => {
                            let (number, name) = self.networks.get(asn, org);
                            let piece = self.columns.pieces()[at];
                            if piece != Piece::Organization {
                                out.extend_from_slice(number);
                            }
                            if piece != Piece::Asn {
                                out.extend_from_slice(name);
                            }
                        }
                        None => empty(out, cells(self.columns.pieces()[at])),
                    }
                    continue;
                }
                Piece::Range => {
                    if let Some(net) = &answer.range {
                        csv::net(out, net);
                    }
                }
                Piece::ReverseDns => {}
                Piece::SpecialPurpose => {
                    if let Some(block) = &block {
                        csv::cell(out, block.name);
                    }
                }
            }
            out.push(b',');
        }
        out.push(b'\n');
    }

    /// The row of an address in a special-purpose block: not public, its
    /// block as the range and its name, nothing else.
    fn not_public(&self, out: &mut Vec<u8>, ip: IpAddr, block: &SpecialBlock) {
        for piece in self.columns.pieces() {
            match piece {
                Piece::Ip => csv::ip(out, ip),
                Piece::Version => out.extend_from_slice(version(ip)),
                Piece::IsPublic => out.extend_from_slice(b"false"),
                Piece::Country(run) => {
                    empty(out, self.columns.country_run(*run).len() - 1);
                }
                Piece::Network => out.push(b','),
                Piece::Range => csv::net(out, &block.net),
                Piece::SpecialPurpose => csv::cell(out, block.name),
                Piece::Asn | Piece::Organization | Piece::ReverseDns => {}
            }
            out.push(b',');
        }
        out.push(b'\n');
    }

    /// Appends a run of country cells, rendered again when the second changed.
    fn country(&mut self, out: &mut Vec<u8>, c: &Country, run: usize) {
        let second = self.second;
        let fields = self.columns.country_run(run);
        let at = slot(&c.code).map(|s| s * self.columns.country_runs() + run);
        let Some(segment) = at.and_then(|i| self.countries.get_mut(i)) else {
            // Never for a country of the table (its codes are A-Z twice).
            return country_cells(out, fields, c, self.now);
        };
        if segment.second != Some(second) {
            segment.bytes.clear();
            country_cells(&mut segment.bytes, fields, c, self.now);
            segment.second = Some(second);
        }
        out.extend_from_slice(&segment.bytes);
    }
}

/// The text of an address's family.
fn version(ip: IpAddr) -> &'static [u8] {
    match ip {
        IpAddr::V4(_) => b"IPv4",
        IpAddr::V6(_) => b"IPv6",
    }
}

/// `n` empty cells, each with its comma.
fn empty(out: &mut Vec<u8>, n: usize) {
    out.extend(std::iter::repeat_n(b',', n));
}

/// How many cells an AS piece has.
fn cells(piece: Piece) -> usize {
    if piece == Piece::Network { 2 } else { 1 }
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

/// The cells of country fields in a country-level answer (no city), each
/// with its comma: what `lookup::location` fills.
fn country_cells(out: &mut Vec<u8>, fields: &[Field], c: &Country, now: DateTime<Utc>) {
    for field in fields {
        let text = match field {
            Field::CountryCode => Some(c.code.as_str()),
            Field::Country => Some(c.name.as_str()),
            Field::CountryBn => c.name_bn.as_deref(),
            Field::Flag => Some(c.flag()),
            Field::Continent => c.continent.as_deref(),
            Field::Latitude => {
                csv::float(out, c.latitude);
                None
            }
            Field::Longitude => {
                csv::float(out, c.longitude);
                None
            }
            Field::Accuracy => Some("country"),
            Field::TimeZone => zone_at(&c.code, c.time_zone, now).map(|tz| tz.name()),
            Field::LocalTime => {
                if let Some(tz) = zone_at(&c.code, c.time_zone, now) {
                    csv::cell(out, &local_time(tz, now));
                }
                None
            }
            Field::Currency => c.currency.as_deref(),
            Field::CallingCode => {
                // `+61` would be a formula: defused as in every CSV answer.
                if let Some(code) = c.calling_code.as_deref() {
                    csv::cell(out, &spreadsheet_safe(code.into()));
                }
                None
            }
            // `city`, and fields that do not come from the country.
            _ => None,
        };
        if let Some(v) = text {
            csv::cell(out, v);
        }
        out.push(b',');
    }
}

/// Appends `asn,organization,` of an AS row (an empty organisation is
/// null); returns where `organization,` starts in `out`.
fn network_fields(out: &mut Vec<u8>, asn: u32, org: &str) -> usize {
    out.extend_from_slice(itoa::Buffer::new().format(asn).as_bytes());
    out.push(b',');
    let mid = out.len();
    if !org.is_empty() {
        csv::cell(out, &spreadsheet_safe(org.into()));
    }
    out.push(b',');
    mid
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
        let mut cache = AsCells::new();
        for round in 0..2 {
            for (i, org) in orgs.iter().enumerate() {
                let asn = (i % 1000) as u32 + round;
                let (mut got, mut want) = (Vec::new(), Vec::new());
                let (number, name) = cache.get(asn, org);
                got.extend_from_slice(number);
                let mid = got.len();
                got.extend_from_slice(name);
                assert_eq!(network_fields(&mut want, asn, org), mid);
                assert_eq!(got, want, "{asn} {org:?}");
            }
        }
        assert!(cache.text.len() <= AsCells::TEXT_MAX + 200);
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
