//! Walks the whole embedded dataset: every row of `data/dbip-country-lite.csv.gz`
//! and `data/asn.csv.gz`, both families, is looked up at its start, midpoint and
//! end, and the answer must agree with the row (and with the row's range); the
//! address just past a row that is followed by a gap must have no data.
//!
//! The CSV is read here with a separate, deliberately simple reader, so a bug in
//! the service's own reader cannot hide itself.

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Instant;

use iplookup::GeoDb;
use iplookup::geo::Answer;

fn read_gz(path: &str) -> String {
    let file = std::fs::File::open(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file))
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// An address of either family as an integer, and back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Addr {
    V4(u32),
    V6(u128),
}

impl Addr {
    fn parse(s: &str) -> Addr {
        match s
            .parse::<IpAddr>()
            .unwrap_or_else(|_| panic!("bad address {s:?}"))
        {
            IpAddr::V4(a) => Addr::V4(a.into()),
            IpAddr::V6(a) => Addr::V6(a.into()),
        }
    }
    fn ip(self) -> IpAddr {
        match self {
            Addr::V4(a) => Ipv4Addr::from(a).into(),
            Addr::V6(a) => Ipv6Addr::from(a).into(),
        }
    }
    fn mid(self, end: Addr) -> Addr {
        match (self, end) {
            (Addr::V4(s), Addr::V4(e)) => Addr::V4(s + (e - s) / 2),
            (Addr::V6(s), Addr::V6(e)) => Addr::V6(s + (e - s) / 2),
            _ => panic!("mixed families"),
        }
    }
    fn succ(self) -> Option<Addr> {
        match self {
            Addr::V4(a) => a.checked_add(1).map(Addr::V4),
            Addr::V6(a) => a.checked_add(1).map(Addr::V6),
        }
    }
    fn pred(self) -> Option<Addr> {
        match self {
            Addr::V4(a) => a.checked_sub(1).map(Addr::V4),
            Addr::V6(a) => a.checked_sub(1).map(Addr::V6),
        }
    }
    fn max_like(self) -> Addr {
        match self {
            Addr::V4(_) => Addr::V4(u32::MAX),
            Addr::V6(_) => Addr::V6(u128::MAX),
        }
    }
    fn same_family(self, other: Addr) -> bool {
        matches!(
            (self, other),
            (Addr::V4(_), Addr::V4(_)) | (Addr::V6(_), Addr::V6(_))
        )
    }
}

/// One source row: its range and what it says, as a line number for messages.
struct Row<'a, T> {
    line: usize,
    start: Addr,
    end: Addr,
    value: T,
    text: &'a str,
}

/// What a walk found.
#[derive(Debug, Default)]
struct Walk {
    rows: usize,
    v4: usize,
    v6: usize,
    lookups: usize,
    gaps: usize,
    /// (line, start, effective start) of rows whose start lay inside the previous row.
    trimmed: Vec<(usize, IpAddr, IpAddr)>,
    dropped: Vec<usize>,
    /// (line, row text) of rows wholly in space that is not globally
    /// reachable: dropped at load (`special_dropped`), so their addresses
    /// are a gap of the table.
    special: Vec<(usize, String)>,
}

/// Walks sorted rows of both families: checks every row at start, midpoint and
/// end (from its effective start: an overlapping later row begins after the
/// earlier one, which wins), and the gap address after rows followed by a gap.
fn walk<'a, T>(
    rows: impl Iterator<Item = Row<'a, T>>,
    db: &GeoDb,
    range_of: impl Fn(IpAddr, &Answer<'_>) -> (IpAddr, IpAddr),
    check: impl Fn(&Answer<'_>, &T) -> bool,
    is_gap: impl Fn(&Answer<'_>) -> bool,
) -> Walk {
    let mut w = Walk::default();
    // Per family: the first address not covered by earlier rows.
    let mut next_v4: Option<Addr> = Some(Addr::V4(0));
    let mut next_v6: Option<Addr> = Some(Addr::V6(0));
    let mut failures = Vec::new();
    let mut failed = 0usize;
    let mut fail = |msg: String| {
        failed += 1;
        if failures.len() < 20 {
            failures.push(msg);
        }
    };
    for row in rows {
        if iplookup_data::special::range_holding(row.start.ip(), row.end.ip()).is_some() {
            w.special.push((row.line, row.text.to_owned()));
            continue;
        }
        w.rows += 1;
        assert!(
            row.start.same_family(row.end),
            "line {}: mixed families",
            row.line
        );
        assert!(row.start <= row.end, "line {}: start > end", row.line);
        let next = match row.start {
            Addr::V4(_) => {
                w.v4 += 1;
                &mut next_v4
            }
            Addr::V6(_) => {
                w.v6 += 1;
                &mut next_v6
            }
        };
        let Some(cover) = *next else {
            w.dropped.push(row.line);
            continue;
        };
        let start = if row.start < cover {
            if row.end < cover {
                w.dropped.push(row.line);
                continue;
            }
            w.trimmed.push((row.line, row.start.ip(), cover.ip()));
            cover
        } else {
            // Addresses between the previous row and this one: no data.
            if row.start > cover {
                let gap_end = row.start.pred().unwrap();
                for probe in [cover, cover.mid(gap_end), gap_end] {
                    w.gaps += 1;
                    let a = db.lookup(probe.ip());
                    if !is_gap(&a) {
                        fail(format!(
                            "gap address {} before line {} has data: {a:?}",
                            probe.ip(),
                            row.line
                        ));
                    }
                    if range_of(probe.ip(), &a) != (cover.ip(), gap_end.ip()) {
                        fail(format!(
                            "gap address {} before line {}: range {:?}",
                            probe.ip(),
                            row.line,
                            range_of(probe.ip(), &a)
                        ));
                    }
                }
            }
            row.start
        };
        for probe in [start, start.mid(row.end), row.end] {
            w.lookups += 1;
            let a = db.lookup(probe.ip());
            if !check(&a, &row.value) {
                fail(format!(
                    "line {} ({}): {} answers {a:?}",
                    row.line,
                    row.text,
                    probe.ip()
                ));
            }
            if range_of(probe.ip(), &a) != (start.ip(), row.end.ip()) {
                fail(format!(
                    "line {} ({}): {} is in range {:?}, expected ({}, {})",
                    row.line,
                    row.text,
                    probe.ip(),
                    range_of(probe.ip(), &a),
                    start.ip(),
                    row.end.ip()
                ));
            }
        }
        *next = row.end.succ();
    }
    // After the last row of each family, up to the end of the address space.
    for cover in [next_v4, next_v6].into_iter().flatten() {
        let last = cover.max_like();
        for probe in [cover, cover.mid(last), last] {
            w.gaps += 1;
            let a = db.lookup(probe.ip());
            if !is_gap(&a) {
                fail(format!(
                    "gap address {} after the last row has data: {a:?}",
                    probe.ip()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{failed} failures, first ones:\n{}",
        failures.join("\n")
    );
    w
}

fn country_rows(text: &str) -> impl Iterator<Item = Row<'_, [u8; 2]>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, line)| {
            let mut f = line.split(',');
            let (start, end, cc) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            assert!(f.next().is_none(), "line {}: extra fields", i + 1);
            let cc: [u8; 2] = cc
                .as_bytes()
                .try_into()
                .unwrap_or_else(|_| panic!("line {}: code {cc:?}", i + 1));
            Row {
                line: i + 1,
                start: Addr::parse(start),
                end: Addr::parse(end),
                value: cc,
                text: line,
            }
        })
}

/// Organisation names may be quoted, with `""` for a quote inside.
fn asn_rows(text: &str) -> impl Iterator<Item = Row<'_, (u32, std::borrow::Cow<'_, str>)>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, line)| {
            let mut f = line.splitn(4, ',');
            let (start, end, asn, org) = (
                f.next().unwrap(),
                f.next().unwrap(),
                f.next().unwrap(),
                f.next().unwrap(),
            );
            let org: std::borrow::Cow<'_, str> = match org.strip_prefix('"') {
                Some(quoted) => {
                    let inner = quoted
                        .strip_suffix('"')
                        .unwrap_or_else(|| panic!("line {}: unterminated quote", i + 1));
                    if inner.contains("\"\"") {
                        inner.replace("\"\"", "\"").into()
                    } else {
                        inner.into()
                    }
                }
                None => {
                    assert!(!org.contains('"'), "line {}: stray quote", i + 1);
                    org.into()
                }
            };
            Row {
                line: i + 1,
                start: Addr::parse(start),
                end: Addr::parse(end),
                value: (
                    asn.parse()
                        .unwrap_or_else(|_| panic!("line {}: asn {asn:?}", i + 1)),
                    org,
                ),
                text: line,
            }
        })
}

#[test]
fn every_country_row_agrees_with_the_lookup() {
    let t0 = Instant::now();
    let db = GeoDb::embedded().unwrap();
    let text = read_gz("data/dbip-country-lite.csv.gz");
    let w = walk(
        country_rows(&text),
        &db,
        // The answer's row is the country row where the ASN table has no
        // data (elsewhere it is the ASN row, walked below); the source table
        // must hold the row everywhere.
        |ip, a| match (a.network, db.row(ip)) {
            (None, Some(range)) => range,
            _ => db.source_ranges(ip).0,
        },
        |a, cc| a.country.is_some_and(|c| c.code.as_bytes() == cc),
        |a| a.country.is_none(),
    );
    eprintln!("country: {w:?} in {:?}", t0.elapsed());
    assert_eq!(
        w.rows as u64,
        db.release().country.rows,
        "every row was kept"
    );
    assert!(
        w.v4 > 100_000 && w.v6 > 100_000,
        "both families walked: {w:?}"
    );
    assert!(
        w.trimmed.is_empty() && w.dropped.is_empty(),
        "the country file has no overlaps: {w:?}"
    );
    // DB-IP's country file covers nearly everything; a few gaps remain (3 probes each).
    assert!(w.gaps >= 30, "gaps probed: {w:?}");
    // The rows DB-IP places in the IETF's 2001::/23 (outside its public
    // entries: Teredo 2001::/32, 2001:1::/32, ... 2001:30::-2001:1ff::):
    // dropped at load and counted.
    assert_eq!(w.special.len(), 13, "{:?}", w.special);
    for (line, text) in &w.special {
        let start: Ipv6Addr = text.split(',').next().unwrap().parse().unwrap();
        assert_eq!(start.segments()[0], 0x2001, "line {line}: {text}");
        assert!(start.segments()[1] < 0x200, "line {line}: {text}");
    }
    let special = db
        .release()
        .country
        .defects
        .get(iplookup_data::policy::Defect::Special);
    assert_eq!(special, 13);
}

#[test]
fn every_asn_row_agrees_with_the_lookup() {
    let t0 = Instant::now();
    let db = GeoDb::embedded().unwrap();
    let text = read_gz("data/asn.csv.gz");
    let w = walk(
        asn_rows(&text),
        &db,
        // Where there is a network the answer's row is its ASN row; in ASN
        // gaps the source table must hold the gap.
        |ip, a| match (a.network, db.row(ip)) {
            (Some(_), Some(range)) => range,
            _ => db.source_ranges(ip).1,
        },
        |a, (asn, org)| a.network == Some((*asn, org.as_ref())),
        |a| a.network.is_none(),
    );
    eprintln!(
        "asn: {:?} in {:?}",
        (
            w.rows, w.v4, w.v6, w.lookups, w.gaps, &w.trimmed, &w.dropped
        ),
        t0.elapsed()
    );
    assert!(
        w.v4 > 100_000 && w.v6 > 50_000,
        "both families walked: {w:?}"
    );
    assert!(w.gaps > 1000, "gaps probed: {w:?}");
    // The one known overlapping pair (DESIGN.md section 6): the later row is
    // trimmed to start after the earlier one; nothing else overlaps.
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    // Line 399115 is 214.95.0.0-215.0.255.255 AS749, line 399116 is
    // 215.0.0.0-215.1.3.255 AS721 (1-based, the file has no header line).
    assert_eq!(w.trimmed, [(399116, ip("215.0.0.0"), ip("215.1.0.0"))]);
    assert!(w.dropped.is_empty(), "{w:?}");
    // Teredo's 2001::/32 (Hurricane Electric's row), inside the IETF's
    // 2001::/23: dropped at load and counted.
    let teredo = "2001::,2001::ffff:ffff:ffff:ffff:ffff:ffff,6939,Hurricane Electric LLC";
    assert_eq!(w.special, [(411962, teredo.to_owned())]);
    let asn = &db.release().asn;
    assert_eq!((asn.trimmed, asn.skipped), (1, 1));
    assert!(
        asn.notes.iter().any(|n| n.contains("line 399116")),
        "the load notes name the trimmed line: {:?}",
        asn.notes
    );
    assert_eq!(w.rows as u64, db.release().asn.rows, "every row was kept");
}

#[test]
fn overlapping_asn_pair_keeps_the_earlier_row() {
    let db = GeoDb::embedded().unwrap();
    let ip = |s: &str| s.parse::<IpAddr>().unwrap();
    let asn = |s: &str| db.lookup(ip(s)).network.map(|(a, _)| a);
    // Line 399115: 214.95.0.0-215.0.255.255 AS749; line 399116: 215.0.0.0-215.1.3.255 AS721.
    for a in [
        "214.95.0.0",
        "214.255.255.255",
        "215.0.0.0",
        "215.0.128.0",
        "215.0.255.255",
    ] {
        assert_eq!(asn(a), Some(749), "{a}");
    }
    for a in ["215.1.0.0", "215.1.2.3", "215.1.3.255"] {
        assert_eq!(asn(a), Some(721), "{a}");
    }
    assert_eq!(asn("215.1.4.0"), Some(27066));
    let first = db.lookup(ip("215.0.0.0"));
    assert_eq!(
        first.network,
        Some((749, "United States Department of Defense (DoD)"))
    );
    assert_eq!(
        db.row(ip("215.0.0.0")),
        Some((ip("214.95.0.0"), ip("215.0.255.255")))
    );
    let later = db.lookup(ip("215.1.0.0"));
    assert_eq!(later.network, Some((721, "DoD Network Information Center")));
    assert_eq!(
        db.row(ip("215.1.0.0")),
        Some((ip("215.1.0.0"), ip("215.1.3.255")))
    );
    // And through the public answer: the range is cut at the trimmed start.
    let info = iplookup::lookup::describe(&db, ip("215.1.0.1"), chrono::Utc::now());
    assert_eq!(info.network.range.as_deref(), Some("215.1.0.0/22"));
    let info = iplookup::lookup::describe(&db, ip("215.0.0.1"), chrono::Utc::now());
    assert_eq!(info.network.range.as_deref(), Some("215.0.0.0/16"));
}

#[test]
fn quoted_organisations_are_unescaped() {
    // A row with `""` inside a quoted name, read from the data itself.
    let text = read_gz("data/asn.csv.gz");
    let line = text
        .lines()
        .find(|l| l.contains("\"\"") && !l.contains(':'))
        .expect("the ASN file has an escaped quote in an IPv4 row");
    let row = asn_rows(line).next().unwrap();
    let db = GeoDb::embedded().unwrap();
    let a = db.lookup(row.start.ip());
    let (asn, org) = a.network.expect("network");
    assert_eq!(asn, row.value.0);
    assert_eq!(org, row.value.1.as_ref());
    assert!(
        org.contains('"') && !org.contains("\"\""),
        "{org:?} from {line:?}"
    );
}
