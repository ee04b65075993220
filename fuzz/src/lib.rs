//! The invariants the fuzz targets check: one `pub fn <target>(data: &[u8])`
//! per target, panicking when an invariant does not hold.
//!
//! The fuzz targets in `fuzz_targets/` are one-line wrappers around these
//! functions, and `tests/it/fuzz_regressions.rs` includes this file by path and
//! replays every file of `fuzz/corpus/<target>/` through them, so a corpus
//! entry means the same thing under `cargo fuzz run` and under `cargo test`.
//!
//! Input formats (chosen so that seeds are readable text files):
//! - `address_parse`: the bytes (lossy UTF-8) are one path segment.
//! - `negotiate`: line 1 is `Accept`, line 2 `User-Agent`, line 3 (if
//!   present) the `?format=` value; a missing line is an absent header.
//! - `forwarded`: line 1 is the socket peer (`ip` or `ip:port`; anything else
//!   means `10.0.0.1`); each further line is `name: value` (any header name;
//!   the value as raw bytes, skipped if `HeaderValue::from_bytes` refuses it),
//!   or `trust: CIDR` to trust one more block besides [`DEFAULT_TRUSTED`],
//!   or `read: NAME` to check `--client-ip-header NAME` too, besides
//!   [`HEADERS_READ`].
//! - `csv_country`, `csv_asn`: a whole DB-IP CSV file.
//! - `mmdb`: a whole MaxMind-format database, given to all three MMDB readers.
//! - `snapshot_decode`: a whole snapshot (`IPLKSNP1...`).

use std::borrow::Cow;
use std::io::BufRead;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use ipnet::IpNet;

use iplookup::address;
use iplookup::geo::csv;
use iplookup::geo::import::{AsnArrays, CountryArrays, ImportStats};
use iplookup::geo::mmdb as geo_mmdb;
use iplookup::geo::networks::Networks;
use iplookup::geo::policy::Policy;
use iplookup::geo::ranges::{Key, RangeTable, Value};
use iplookup::geo::rows;
use iplookup::geo::snapshot::{self, Parts};
use iplookup::geo::{GeoDb, Release};
use iplookup::web::serve::client::{self, ClientIpHeader, TrustedProxies};
use iplookup::web::serve::negotiate::{self, Format, NoFormat};

// ---------------------------------------------------------------------------
// address::parse

/// `address::parse` on the input as one path segment.
pub fn address_parse(data: &[u8]) {
    check_address(&String::from_utf8_lossy(data));
}

/// `address::parse` agrees with std, is strict, and its output is canonical.
pub fn check_address(input: &str) {
    let ours = address::parse(input);
    let std = input.parse::<IpAddr>();
    match &ours {
        Ok(ip) => {
            let Ok(std_ip) = std else {
                panic!("{input:?} accepted as {ip}, but std refuses it");
            };
            assert_eq!(
                *ip,
                address::canonical(std_ip),
                "{input:?}: parse and std disagree"
            );
            assert!(
                !input.contains('%')
                    && !input.starts_with('[')
                    && !input.chars().any(char::is_whitespace),
                "{input:?}: zone id, bracket or whitespace accepted"
            );
            // Strictness, independently of std: only hex digits, colons and dots,
            // and any dotted part is four decimal octets without leading zeros.
            assert!(
                input
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.'),
                "{input:?}: accepted with a character outside [0-9a-fA-F:.]"
            );
            let dotted = input.rsplit(':').next().unwrap_or(input);
            if dotted.contains('.') {
                assert!(
                    is_strict_dotted_quad(dotted),
                    "{input:?}: loose dotted quad {dotted:?} accepted"
                );
            }
            // A plain IPv4 address has exactly one spelling.
            if !input.contains(':') {
                assert_eq!(ip.to_string(), input, "{input:?}: IPv4 not canonical");
            }
            // Canonical form: IPv4-mapped IPv6 is reported as IPv4.
            if let IpAddr::V6(v6) = ip {
                assert!(
                    v6.to_ipv4_mapped().is_none(),
                    "{input:?}: mapped address {ip} not reported as IPv4"
                );
            }
            // The canonical output re-parses to the same address and is a fixed point.
            let text = ip.to_string();
            assert_eq!(
                address::parse(&text).as_ref(),
                Ok(ip),
                "{input:?}: canonical {text:?} does not re-parse"
            );
            assert_eq!(address::canonical(*ip), *ip);
        }
        Err(e) => {
            assert!(
                std.is_err(),
                "{input:?}: std parses it as {:?} but parse refuses it",
                std.ok()
            );
            assert!(
                input.starts_with(e.input.as_str()) && e.input.chars().count() <= 100,
                "{input:?}: error quotes {:?}",
                e.input
            );
            let _ = e.to_string();
        }
    }
}

fn is_strict_dotted_quad(s: &str) -> bool {
    let octets: Vec<&str> = s.split('.').collect();
    octets.len() == 4
        && octets.iter().all(|o| {
            !o.is_empty()
                && o.len() <= 3
                && o.bytes().all(|b| b.is_ascii_digit())
                && (o.len() == 1 || !o.starts_with('0'))
                && o.parse::<u16>().is_ok_and(|v| v <= 255)
        })
}

// ---------------------------------------------------------------------------
// negotiate::choose and negotiate::is_command_line

/// `choose` with every default and with and without a query; `is_command_line`
/// on the User-Agent line (and on the Accept line, as more arbitrary text).
pub fn negotiate(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.splitn(3, '\n');
    let accept = lines.next();
    let user_agent = lines.next();
    let query = lines.next();
    for default in Format::ALL {
        check_choose(query, accept, default);
        check_choose(None, accept, default);
        check_choose(None, user_agent, default);
    }
    check_command_line(user_agent);
    check_command_line(accept);
    check_command_line(None);
}

/// The query wins; an empty or absent Accept gives the default; a chosen
/// format is one of the four and is named (or wildcarded) by the Accept header,
/// or is the API's JSON default for an Accept that takes only HTML.
pub fn check_choose(query: Option<&str>, accept: Option<&str>, default: Format) {
    let got = negotiate::choose(query, accept, default);
    assert_eq!(
        got,
        negotiate::choose(query, accept, default),
        "not deterministic"
    );
    if let Some(q) = query {
        let want =
            Format::from_query(q).ok_or_else(|| NoFormat::BadFormat(q.chars().take(40).collect()));
        assert_eq!(got, want, "query {q:?}");
        return;
    }
    match (accept.map(str::trim).filter(|a| !a.is_empty()), got) {
        (None, got) => assert_eq!(got, Ok(default), "no Accept: {accept:?}"),
        (Some(a), Ok(format)) => {
            assert!(Format::ALL.contains(&format));
            assert_eq!(Format::from_query(format.query_name()), Some(format));
            // On the API (default JSON), HTML is offered to `?format=html`
            // only: an Accept that takes HTML and none of the others is
            // disregarded and gets JSON (RFC 9110 section 12.5.1).
            let html_only =
                default == Format::Json && format == default && mentions(a, Format::Html);
            assert!(
                mentions(a, format) || html_only,
                "Accept {a:?} gave {format:?}, which it does not name"
            );
        }
        (Some(_), Err(NoFormat::NotAcceptable)) => {}
        (Some(a), Err(other)) => panic!("Accept {a:?} without a query gave {other:?}"),
    }
}

/// Whether the Accept text names `format`'s media type, its `type/*` or `*/*`
/// (whitespace ignored, ASCII case-insensitive): necessary for choosing it.
fn mentions(accept: &str, format: Format) -> bool {
    let squeezed: String = accept
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let media = format.media_type();
    let kind = media.split('/').next().unwrap_or(media);
    squeezed.contains(media) || squeezed.contains(&format!("{kind}/*")) || squeezed.contains("*/*")
}

/// No User-Agent, or one that does not start like a browser's, is a program.
pub fn check_command_line(user_agent: Option<&str>) {
    let got = negotiate::is_command_line(user_agent);
    match user_agent {
        None => assert!(got, "absent User-Agent is not a command-line client"),
        Some(ua) => {
            let lower = ua.to_ascii_lowercase();
            if !lower.starts_with("mozilla/") && !lower.starts_with("opera/") {
                assert!(
                    got,
                    "{ua:?} does not look like a browser but was taken for one"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// client::client_addr

/// The blocks trusted in every `forwarded` run (a `trust:` line adds more).
pub const DEFAULT_TRUSTED: [&str; 5] = [
    "10.0.0.0/8",
    "127.0.0.0/8",
    "192.168.0.0/16",
    "::1/128",
    "fd00::/8",
];

/// The `--client-ip-header` values every `forwarded` run checks (a `read:`
/// line adds one).
pub const HEADERS_READ: [&str; 4] = [
    "x-forwarded-for",
    "forwarded",
    "x-real-ip",
    "cf-connecting-ip",
];

/// Builds the peer, the headers and the trusted blocks from the input and
/// checks `client_addr` reading each of [`HEADERS_READ`].
pub fn forwarded(data: &[u8]) {
    let mut lines = data.split(|b| *b == b'\n');
    let first = lines.next().unwrap_or_default();
    let peer = std::str::from_utf8(first)
        .ok()
        .and_then(|s| {
            let s = s.trim();
            s.parse::<SocketAddr>()
                .ok()
                .or_else(|| s.parse::<IpAddr>().ok().map(|ip| SocketAddr::new(ip, 4000)))
        })
        .unwrap_or_else(|| SocketAddr::new(Ipv4Addr::new(10, 0, 0, 1).into(), 4000));
    let mut nets: Vec<IpNet> = DEFAULT_TRUSTED.iter().map(|n| n.parse().unwrap()).collect();
    let mut headers = HeaderMap::new();
    let mut read: Vec<ClientIpHeader> = HEADERS_READ.iter().map(|h| h.parse().unwrap()).collect();
    for line in lines {
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            continue;
        };
        let name = line[..colon].trim_ascii();
        let value = line[colon + 1..].trim_ascii_start();
        let value = value.strip_suffix(b"\r").unwrap_or(value);
        if name.eq_ignore_ascii_case(b"trust") {
            if let Some(net) = std::str::from_utf8(value)
                .ok()
                .and_then(|v| v.trim().parse::<IpNet>().ok())
            {
                nets.push(net);
            }
            continue;
        }
        if name.eq_ignore_ascii_case(b"read") {
            if let Some(header) = std::str::from_utf8(value)
                .ok()
                .and_then(|v| v.trim().parse::<ClientIpHeader>().ok())
            {
                read.push(header);
            }
            continue;
        }
        let (Ok(name), Ok(value)) = (HeaderName::from_bytes(name), HeaderValue::from_bytes(value))
        else {
            continue;
        };
        headers.append(name, value);
    }
    for header in read {
        let trusted = TrustedProxies::new(nets.clone()).reading(header);
        check_client_addr(peer, &headers, &trusted);
    }
}

/// The answer is the peer, or (only when the peer is trusted) an address
/// written in the one header that is read (`--client-ip-header`), always in
/// canonical form; no other header changes it.
pub fn check_client_addr(peer: SocketAddr, headers: &HeaderMap, trusted: &TrustedProxies) {
    let got = client::client_addr(peer, headers, trusted);
    let peer_ip = address::canonical(peer.ip());
    assert_eq!(
        got,
        client::client_addr(peer, headers, trusted),
        "not deterministic"
    );
    assert_eq!(got, address::canonical(got), "{got} is not canonical");
    if !trusted.contains(peer_ip) {
        assert_eq!(
            got, peer_ip,
            "untrusted peer {peer_ip}: headers were believed"
        );
    } else if got != peer_ip {
        let name = trusted.header().name();
        let written = addresses_in(headers.get_all(&name).iter());
        assert!(
            written.contains(&got),
            "{got} is neither the peer {peer_ip} nor written in {name}: {written:?}"
        );
    }
    // Only the named header counts: without the others, the same answer.
    let name = trusted.header().name();
    let mut only = HeaderMap::new();
    for value in headers.get_all(&name) {
        only.append(name.clone(), value.clone());
    }
    assert_eq!(
        client::client_addr(peer, &only, trusted),
        got,
        "a header other than {name} changed the answer"
    );
    // The same headers from an untrusted peer are ignored.
    for untrusted in [
        IpAddr::V4(Ipv4Addr::new(203, 0, 113, 7)),
        IpAddr::V6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 7)),
    ] {
        if !trusted.contains(untrusted) {
            let got = client::client_addr(SocketAddr::new(untrusted, 1), headers, trusted);
            assert_eq!(
                got, untrusted,
                "untrusted peer {untrusted}: headers were believed"
            );
        }
    }
}

/// Every address spelled anywhere in the values: tokens between `,;=" []`
/// and tabs, with an optional `:port` on a single-colon token, canonical
/// (tokens that are not UTF-8 are skipped, not the whole value).
fn addresses_in<'a>(values: impl Iterator<Item = &'a HeaderValue>) -> Vec<IpAddr> {
    let mut out = Vec::new();
    for value in values {
        let tokens = value
            .as_bytes()
            .split(|b| b",;=\" \t[]".contains(b))
            .filter_map(|t| std::str::from_utf8(t).ok());
        for token in tokens {
            let host = match token.split_once(':') {
                Some((host, port)) if !port.contains(':') && !token.is_empty() => host,
                _ => token,
            };
            for candidate in [token, host] {
                if let Ok(ip) = candidate.parse::<IpAddr>() {
                    out.push(address::canonical(ip));
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// CSV loaders

const FILE: &str = "fuzz.csv";

/// The policy of `--skip-bad-rows`: any number of defects, repaired and counted.
fn lax() -> Policy {
    Policy {
        max_defect_share: None,
        ..Policy::default()
    }
}

/// `read_country` by the default policy and with no defect limit
/// (`--skip-bad-rows`); the tables must be valid, and faithful when the file
/// holds no defect.
pub fn csv_country(data: &[u8]) {
    let strict = csv::read_country(data, FILE, &Policy::default());
    let lenient = csv::read_country(data, FILE, &lax());
    if let Err(e) = &strict {
        let _ = e.to_string();
    }
    if let Err(e) = &lenient {
        let _ = e.to_string();
    }
    if let Ok(a) = &lenient {
        check_country_arrays(a);
    }
    let Ok(a) = &strict else { return };
    check_country_arrays(a);
    let l = lenient
        .as_ref()
        .expect("the default policy accepted a file the lax one refuses");
    assert_eq!(
        (&a.v4, &a.v6, &a.stats),
        (&l.v4, &l.v6, &l.stats),
        "strict and lenient differ"
    );
    if a.stats.defects.total() != 0 {
        return;
    }
    assert_clean(&a.stats);
    let v4 = table(&a.v4);
    let v6 = table(&a.v6);
    for line in rows_of(data) {
        let row = rows::parse_country(&line)
            .unwrap_or_else(|e| panic!("a file without defects accepted {line:?}: {e}"));
        match row.span {
            rows::Span::V4(s, e) => assert_span(&v4, s, e, row.code, &line),
            rows::Span::V6(s, e) => assert_span(&v6, s, e, row.code, &line),
        }
    }
}

/// `read_asn` by the default policy and with no defect limit
/// (`--skip-bad-rows`); the tables must be valid, and faithful when the file
/// holds no defect.
pub fn csv_asn(data: &[u8]) {
    let strict = csv::read_asn(data, FILE, &Policy::default());
    let lenient = csv::read_asn(data, FILE, &lax());
    if let Err(e) = &strict {
        let _ = e.to_string();
    }
    if let Err(e) = &lenient {
        let _ = e.to_string();
    }
    if let Ok(a) = &lenient {
        check_asn_arrays(a);
    }
    let Ok(a) = &strict else { return };
    check_asn_arrays(a);
    let l = lenient
        .as_ref()
        .expect("the default policy accepted a file the lax one refuses");
    assert_eq!(
        (&a.v4, &a.v6, &a.stats),
        (&l.v4, &l.v6, &l.stats),
        "strict and lenient differ"
    );
    assert_eq!(
        a.networks.parts(),
        l.networks.parts(),
        "strict and lenient networks differ"
    );
    if a.stats.defects.total() != 0 {
        return;
    }
    assert_clean(&a.stats);
    let v4 = table(&a.v4);
    let v6 = table(&a.v6);
    for line in rows_of(data) {
        let row = rows::parse_asn(&line)
            .unwrap_or_else(|e| panic!("a file without defects accepted {line:?}: {e}"));
        let id = match row.span {
            rows::Span::V4(s, e) => {
                assert_eq!(v4.value(s), v4.value(e), "{line:?}: ends differ");
                v4.value(s)
            }
            rows::Span::V6(s, e) => {
                assert_eq!(v6.value(s), v6.value(e), "{line:?}: ends differ");
                v6.value(s)
            }
        };
        assert_eq!(
            a.networks.get(id),
            Some((row.asn, row.organization.as_str())),
            "{line:?}: the table points to another network"
        );
    }
}

/// The non-blank lines as the loader reads them (first 64).
fn rows_of(data: &[u8]) -> Vec<String> {
    data.lines()
        .map(|l| l.expect("a file without defects held unreadable bytes"))
        .filter(|l| !l.trim().is_empty())
        .take(64)
        .collect()
}

fn assert_clean(stats: &ImportStats) {
    assert_eq!(
        (stats.trimmed, stats.skipped, stats.notes.len()),
        (0, 0, 0),
        "a file without defects trimmed or skipped rows: {stats:?}"
    );
}

fn assert_span<K: Key, V: Value>(t: &RangeTable<K, V>, s: K, e: K, want: V, line: &str) {
    assert_eq!(t.value(s), want, "{line:?}: start holds another value");
    assert_eq!(t.value(e), want, "{line:?}: end holds another value");
}

fn table<K: Key, V: Value>(arrays: &(Vec<K>, Vec<V>)) -> RangeTable<K, V> {
    RangeTable::new(Cow::Owned(arrays.0.clone()), Cow::Owned(arrays.1.clone()))
        .unwrap_or_else(|e| panic!("loader arrays do not form a table: {e:?}"))
}

fn check_country_arrays(a: &CountryArrays) {
    check_arrays(&a.v4);
    check_arrays(&a.v6);
    for code in a.v4.1.iter().chain(&a.v6.1).filter(|c| **c != 0) {
        let text = String::from_utf8(code.to_be_bytes().to_vec()).unwrap_or_default();
        assert_eq!(
            rows::pack_country(&text),
            Ok(*code),
            "bad packed code {code:#06x}"
        );
    }
    assert_eq!(
        nonzero(&a.v4.1) + nonzero(&a.v6.1),
        a.stats.rows,
        "row count"
    );
    assert_parts(country_parts(a));
}

fn check_asn_arrays(a: &AsnArrays) {
    check_arrays(&a.v4);
    check_arrays(&a.v6);
    let (asns, offsets, arena) = a.networks.parts();
    let networks = Networks::new(
        Cow::Owned(asns.to_vec()),
        Cow::Owned(offsets.to_vec()),
        Cow::Owned(arena.to_vec()),
    )
    .unwrap_or_else(|e| panic!("loader networks do not validate: {e:?}"));
    assert_eq!(networks.len(), a.networks.len());
    for id in a.v4.1.iter().chain(&a.v6.1).filter(|id| **id != 0) {
        assert!(
            a.networks.get(*id).is_some(),
            "network id {id} points nowhere"
        );
    }
    assert_eq!(
        nonzero(&a.v4.1) + nonzero(&a.v6.1),
        a.stats.rows,
        "row count"
    );
    assert_parts(asn_parts(a));
}

fn nonzero<V: Value>(values: &[V]) -> u64 {
    values.iter().filter(|v| **v != V::default()).count() as u64
}

/// Arrays from a loader: non-empty, parallel, from zero, strictly increasing,
/// no two gaps in a row; the table built from them answers like a binary search.
fn check_arrays<K: Key, V: Value>(arrays: &(Vec<K>, Vec<V>)) {
    let (starts, values) = arrays;
    assert!(!starts.is_empty(), "empty table");
    assert_eq!(starts.len(), values.len(), "length mismatch");
    assert_eq!(starts[0], K::default(), "table does not start at 0");
    if let Some(i) = starts.windows(2).position(|w| w[0] >= w[1]) {
        panic!(
            "starts not strictly sorted at {}: {:?}",
            i + 1,
            &starts[i..=i + 1]
        );
    }
    if let Some(i) = values
        .windows(2)
        .position(|w| w[0] == V::default() && w[1] == V::default())
    {
        panic!("two gap entries in a row at {i}");
    }
    check_table(&table(arrays));
}

/// Lookups at and around every start (first 64) and at both ends of the
/// family agree with a plain binary search over the starts.
fn check_table<K: Key, V: Value>(t: &RangeTable<K, V>) {
    let starts = t.starts();
    let mut probes = vec![K::default(), K::MAX];
    for s in starts.iter().take(64) {
        probes.push(*s);
        probes.push(s.pred());
        probes.extend(s.succ());
    }
    probes.extend(starts.last().copied());
    for p in probes {
        let want = starts.partition_point(|s| *s <= p) - 1;
        assert_eq!(t.index_of(p), want, "directory lookup of {p:?}");
        let e = t.entry(p);
        assert!(
            e.start <= p && p <= e.end,
            "entry {e:?} does not hold {p:?}"
        );
        assert_eq!(e.value, t.values()[want]);
        assert_eq!(t.value(p), e.value);
    }
    let last = t.entry(K::MAX);
    assert_eq!(last.end, K::MAX);
}

fn country_parts(a: &CountryArrays) -> Parts<'static> {
    Parts {
        country_v4: (a.v4.0.clone().into(), a.v4.1.clone().into()),
        country_v6: (a.v6.0.clone().into(), a.v6.1.clone().into()),
        asn_v4: (vec![0].into(), vec![0].into()),
        asn_v6: (vec![0].into(), vec![0].into()),
        networks: (Vec::new().into(), Vec::new().into(), Vec::new().into()),
        meta: "country.file=fuzz.csv\n".into(),
        ..Parts::default()
    }
    .indexed()
}

fn asn_parts(a: &AsnArrays) -> Parts<'static> {
    let (asns, offsets, arena) = a.networks.parts();
    Parts {
        country_v4: (vec![0].into(), vec![0].into()),
        country_v6: (vec![0].into(), vec![0].into()),
        asn_v4: (a.v4.0.clone().into(), a.v4.1.clone().into()),
        asn_v6: (a.v6.0.clone().into(), a.v6.1.clone().into()),
        networks: (
            asns.to_vec().into(),
            offsets.to_vec().into(),
            arena.to_vec().into(),
        ),
        meta: "asn.file=fuzz.csv\n".into(),
        ..Parts::default()
    }
    .indexed()
}

/// Parts with their lookup index filled in.
trait Indexed {
    fn indexed(self) -> Self;
}

impl Indexed for Parts<'static> {
    fn indexed(mut self) -> Self {
        self.add_index()
            .expect("loader tables do not merge into an index");
        self
    }
}

/// Parts a loader made: they survive a snapshot round trip and assemble into
/// a database that answers consistently.
fn assert_parts(parts: Parts<'static>) {
    let bytes = snapshot::encode(&parts);
    with_static(&bytes, 0, |b| {
        let back = snapshot::decode(b).expect("encoded loader tables do not decode");
        assert_same_parts(&parts, &back);
    });
    let db = GeoDb::from_parts(parts, Release::default())
        .unwrap_or_else(|e| panic!("loader tables do not assemble: {e}"));
    check_db(&db);
}

// ---------------------------------------------------------------------------
// MMDB loader

/// `geo::mmdb::read_country`, `read_asn` and `read_city` on the same bytes:
/// whatever they accept must form valid, consistent tables.
pub fn mmdb(data: &[u8]) {
    match geo_mmdb::read_country(data.to_vec(), "fuzz.mmdb", &Policy::default()) {
        Ok(a) => check_country_arrays(&a),
        Err(e) => drop(e.to_string()),
    }
    match geo_mmdb::read_asn(data.to_vec(), "fuzz.mmdb", &Policy::default()) {
        Ok(a) => check_asn_arrays(&a),
        Err(e) => drop(e.to_string()),
    }
    match geo_mmdb::read_city(data.to_vec(), "fuzz.mmdb", &Policy::default()) {
        Ok(a) => check_city_arrays(&a),
        Err(e) => drop(e.to_string()),
    }
}

fn check_city_arrays(a: &geo_mmdb::CityArrays) {
    check_arrays(&a.v4);
    check_arrays(&a.v6);
    let numbers =
        a.v4.1
            .iter()
            .chain(&a.v6.1)
            .map(|id| geo_mmdb::city_number(*id));
    for id in numbers.filter(|id| *id != 0) {
        assert!(
            (id as usize) <= a.cities.len(),
            "city id {id} points past {} cities",
            a.cities.len()
        );
    }
    let mut keys: Vec<_> = a
        .cities
        .iter()
        .map(|c| {
            (
                &c.name,
                c.latitude.map(f64::to_bits),
                c.longitude.map(f64::to_bits),
            )
        })
        .collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), a.cities.len(), "a city is stored twice");
    assert_eq!(
        nonzero(&a.v4.1) + nonzero(&a.v6.1),
        a.stats.rows,
        "row count"
    );
}

// ---------------------------------------------------------------------------
// snapshot::decode

/// Decodes the input from an aligned and a misaligned copy (borrowed and
/// owned arrays); both must agree, re-encode to a snapshot that decodes to the
/// same parts, and, if the arrays are consistent, assemble into a database
/// whose lookups are consistent.
pub fn snapshot_decode(data: &[u8]) {
    with_static(data, 0, |aligned| {
        let parts = snapshot::decode(aligned);
        with_static(data, 1, |misaligned| {
            let other = snapshot::decode(misaligned);
            match (&parts, &other) {
                (Ok(a), Ok(b)) => assert_same_parts(a, b),
                (Err(a), Err(b)) => assert_eq!(
                    a.to_string(),
                    b.to_string(),
                    "aligned and misaligned errors differ"
                ),
                (a, b) => panic!(
                    "aligned and misaligned decodes differ: {:?} vs {:?}",
                    a.as_ref().err(),
                    b.as_ref().err()
                ),
            }
        });
        let Ok(parts) = parts else { return };
        let bytes = snapshot::encode(&parts);
        with_static(&bytes, 0, |b| {
            let back = snapshot::decode(b).expect("re-encoded snapshot does not decode");
            assert_same_parts(&parts, &back);
            assert_eq!(snapshot::encode(&back), bytes, "encoding is not stable");
        });
        let owned = owned_parts(&parts);
        drop(parts);
        if let Ok(db) = GeoDb::from_parts(owned, Release::default()) {
            check_db(&db);
        }
    });
}

/// Copies borrowed arrays so the parts outlive the input buffer.
fn owned_parts(p: &Parts<'_>) -> Parts<'static> {
    fn own<T: Clone>(c: &[T]) -> Cow<'static, [T]> {
        Cow::Owned(c.to_vec())
    }
    Parts {
        country_v4: (own(&p.country_v4.0), own(&p.country_v4.1)),
        country_v6: (own(&p.country_v6.0), own(&p.country_v6.1)),
        asn_v4: (own(&p.asn_v4.0), own(&p.asn_v4.1)),
        asn_v6: (own(&p.asn_v6.0), own(&p.asn_v6.1)),
        networks: (own(&p.networks.0), own(&p.networks.1), own(&p.networks.2)),
        index_v4: (own(&p.index_v4.0), own(&p.index_v4.1)),
        index_v6: (own(&p.index_v6.0), own(&p.index_v6.1)),
        codes: own(&p.codes),
        dir_v4: own(&p.dir_v4),
        dir_v6: own(&p.dir_v6),
        meta: Cow::Owned(p.meta.to_string()),
    }
}

fn assert_same_parts(a: &Parts<'_>, b: &Parts<'_>) {
    assert_eq!(a.country_v4.0, b.country_v4.0);
    assert_eq!(a.country_v4.1, b.country_v4.1);
    assert_eq!(a.country_v6.0, b.country_v6.0);
    assert_eq!(a.country_v6.1, b.country_v6.1);
    assert_eq!(a.asn_v4.0, b.asn_v4.0);
    assert_eq!(a.asn_v4.1, b.asn_v4.1);
    assert_eq!(a.asn_v6.0, b.asn_v6.0);
    assert_eq!(a.asn_v6.1, b.asn_v6.1);
    assert_eq!(a.networks, b.networks);
    assert_eq!(a.index_v4, b.index_v4);
    assert_eq!(a.index_v6, b.index_v6);
    assert_eq!(a.codes, b.codes);
    assert_eq!(a.dir_v4, b.dir_v4);
    assert_eq!(a.dir_v6, b.dir_v6);
    assert_eq!(a.meta, b.meta);
}

/// Lookups at the ends of each family and at the first starts of every table:
/// each answer's ranges hold the address, and what it reports is what the
/// tables say for it.
fn check_db(db: &GeoDb) {
    let c = db.country_tables();
    let n = db.asn_tables();
    let mut v4: Vec<u32> = vec![0, u32::MAX, 0x0808_0808];
    let mut v6: Vec<u128> = vec![0, u128::MAX, 0x2001_0db8 << 96];
    for s in c.v4.starts().iter().chain(n.v4.starts()).take(32) {
        v4.extend([*s, s.pred()]);
    }
    for s in c.v6.starts().iter().chain(n.v6.starts()).take(32) {
        v6.extend([*s, s.pred()]);
    }
    let ips = v4
        .into_iter()
        .map(|k| IpAddr::V4(k.into()))
        .chain(v6.into_iter().map(|k| IpAddr::V6(k.into())));
    for ip in ips {
        let answer = db.lookup(ip);
        let (code, id) = match ip {
            IpAddr::V4(a) => (c.v4.value(a.into()), n.v4.value(a.into())),
            IpAddr::V6(a) => (c.v6.value(a.into()), n.v6.value(a.into())),
        };
        let (country_range, asn_range) = db.source_ranges(ip);
        let ranges = [("country", Some(country_range)), ("asn", Some(asn_range))];
        for (what, range) in ranges.into_iter().chain([("network", db.row(ip))]) {
            let Some((s, e)) = range else { continue };
            assert!(
                same_family(ip, s) && same_family(ip, e) && s <= ip && ip <= e,
                "{ip}: {what} range {s}..{e} does not hold it"
            );
            let _ = iplookup::geo::largest_block(ip, s, e)
                .unwrap_or_else(|| panic!("{ip}: no block inside {s}..{e}"));
        }
        // The answer's row is the source row it came from, and its range
        // the largest block inside that row.
        let want = match (answer.network, answer.country) {
            (Some(_), _) => Some(asn_range),
            (None, Some(_)) => Some(country_range),
            (None, None) => None,
        };
        assert_eq!(db.row(ip), want, "{ip}: network row");
        let block = want.and_then(|(s, e)| iplookup::geo::largest_block(ip, s, e));
        assert_eq!(answer.range, block, "{ip}: network range");
        if let Some(country) = answer.country {
            assert_eq!(
                rows::pack_country(&country.code),
                Ok(code),
                "{ip}: table code {code:#06x} reported as country {:?}",
                country.code
            );
            let _ = country.flag();
        }
        assert_eq!(answer.network, n.networks.get(id), "{ip}: network {id}");
    }
}

/// Whether a known, still unfixed library bug is to be tolerated: the names
/// in `IPLOOKUP_FUZZ_TOLERATE` (comma-separated), so that a long fuzz run
/// can look past a bug already reported. The regression test never sets it.
///
/// None is open now. Past ones: `get_packed` (`CountryTable::get_packed`
/// mapped codes that are not two upper-case letters, `0x415e` "A^", to
/// another country, "BD"; fixed in a2d5028).
pub fn tolerated(bug: &str) -> bool {
    static TOLERATE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TOLERATE
        .get_or_init(|| std::env::var("IPLOOKUP_FUZZ_TOLERATE").unwrap_or_default())
        .split(',')
        .any(|b| b.trim() == bug)
}

fn same_family(a: IpAddr, b: IpAddr) -> bool {
    a.is_ipv4() == b.is_ipv4()
}

/// Runs `f` on a `'static` copy of `data` placed `offset` bytes past a
/// 16-byte boundary, and frees the copy afterwards (leaking every input
/// would exhaust memory over a long run and trip the leak checker).
///
/// `f` must not let the reference escape: it is dangling once `f` returns.
pub fn with_static(data: &[u8], offset: usize, f: impl FnOnce(&'static [u8])) {
    let words = (data.len() + offset).div_ceil(16).max(1);
    let buf: *mut [u128] = Box::into_raw(vec![0u128; words].into_boxed_slice());
    // SAFETY: `buf` is a live allocation of `words * 16` bytes, uniquely owned
    // here; u8 has no alignment requirement; the slice is only used inside `f`,
    // before the allocation is freed below.
    let bytes: &'static mut [u8] =
        unsafe { std::slice::from_raw_parts_mut(buf.cast::<u8>(), words * 16) };
    bytes[offset..offset + data.len()].copy_from_slice(data);
    f(&bytes[offset..offset + data.len()]);
    // SAFETY: `buf` came from `Box::into_raw` above and is freed once.
    drop(unsafe { Box::from_raw(buf) });
}
