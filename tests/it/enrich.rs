//! Bulk enrichment (`iplookup lookup --format csv`, issue 14 section 1): the
//! fast rows (`bulk::enrich::CsvRows` over `bulk::lines::each_line`) are
//! byte for byte what the general path writes, the path the CLI took before
//! and the batch route still takes: each line read with `read_until`, made
//! UTF-8 lossily, its `\n` and `\r`s taken off, then `lookup::describe` and
//! `fields::csv::row` (or `fields::csv::error_row`). Over a varied input:
//! random public IPv4 and IPv6, addresses the data does not hold, special
//! blocks, other spellings of addresses, malformed text, formulas, quotes
//! and commas, empty lines, CRLF, bytes that are not UTF-8, long lines,
//! spaces, and no final newline. Then the real binary on the same input,
//! and on a line far longer than memory should hold.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use chrono::{DateTime, Utc};
use iplookup::GeoDb;
use iplookup::bulk::enrich::CsvRows;
use iplookup::bulk::lines;
use iplookup::fields::{Field, csv};
use iplookup::geo::Answer;
use iplookup::geo::load::load_database;
use iplookup::lookup;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::support;
use crate::support::data::TempDir;

/// Lines of every kind the CLI may meet, in a shuffled order, joined with
/// `\n`, `\r\n` or `\r\r\n`; the last one without a line end.
fn varied_input(seed: u64, db: &GeoDb) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut lines: Vec<Vec<u8>> = Vec::new();
    for _ in 0..3000 {
        lines.push(Ipv4Addr::from(rng.random::<u32>()).to_string().into());
        let v6 = Ipv6Addr::from((1u128 << 125) | rng.random::<u128>() >> 3);
        lines.push(v6.to_string().into());
        lines.push(Ipv6Addr::from(rng.random::<u128>()).to_string().into());
    }
    // Addresses in rows of the data: the start, the end and the middle of
    // random index entries (organisations with commas and quotes included).
    let starts = db.index().v4.starts();
    for _ in 0..3000 {
        let i = rng.random_range(0..starts.len() - 1);
        let (s, e) = (starts[i], starts[i + 1] - 1);
        for a in [s, e, s + (e - s) / 2] {
            lines.push(Ipv4Addr::from(a).to_string().into());
        }
    }
    let starts = db.index().v6.starts();
    for _ in 0..1000 {
        let i = rng.random_range(0..starts.len() - 1);
        lines.push(Ipv6Addr::from(starts[i]).to_string().into());
    }
    for text in FIXED {
        lines.push(text.as_bytes().to_vec());
    }
    for bytes in [
        &b"\xff\xfe"[..],
        b"1.2.3.4\xff",
        b"\xe2\x82",
        b"caf\xc3\xa9",
        b"\x00\x01\x02",
        b"=\xff,\"",
        b"2001:db8::\xc0",
    ] {
        lines.push(bytes.to_vec());
    }
    for (byte, len) in [
        (b'a', lines::LINE_MAX - 1),
        (b'1', lines::LINE_MAX),
        (b',', lines::LINE_MAX + 1),
        (b'=', 3 * lines::LINE_MAX),
        (b'"', 300_000),
        (b'\r', lines::LINE_MAX + 10),
    ] {
        lines.push(vec![byte; len]);
    }
    let mut long = b"\xe2\x82\xac".repeat(lines::LINE_MAX / 3 + 1); // cut inside a character
    long.extend_from_slice(b"1.2.3.4");
    lines.push(long);
    for _ in 0..200 {
        lines.push(Vec::new());
    }
    shuffle(&mut lines, &mut rng);
    let mut input = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        input.extend_from_slice(line);
        if i + 1 < lines.len() {
            input.extend_from_slice([&b"\n"[..], b"\r\n", b"\r\r\n"][i % 3]);
        }
    }
    input
}

/// Special blocks, other spellings, malformed text, formulas and quoting.
const FIXED: &[&str] = &[
    "1.0.0.1",
    "8.8.8.8",
    "2001:4860:4860::8888",
    "10.1.2.3",
    "192.168.0.1",
    "172.16.5.4",
    "127.0.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "100.64.0.1",
    "169.254.1.1",
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    "192.0.0.9",
    "::",
    "::1",
    "fe80::1",
    "fd00::1",
    "2001:db8::1",
    "ff02::1",
    "64:ff9b::1.2.3.4",
    "::ffff:10.0.0.1",
    "::ffff:8.8.8.8",
    "::ffff:0808:0808",
    "::1.2.3.4",
    "2001:DB8::1",
    "2001:4860:4860:0000:0000:0000:0000:8888",
    "2001:4860:4860:0:0:0:0:8888",
    "2C0F:F248::1",
    "1.2.3",
    "01.2.3.4",
    "256.1.1.1",
    "1.2.3.4.5",
    "fe80::1%eth0",
    "[::1]",
    "1.2.3.4:80",
    "::ffff:1.2.3",
    "1::2::3",
    "abc",
    " 1.2.3.4",
    "1.2.3.4 ",
    "1.2.3.4\t",
    "\t1.2.3.4",
    "=HYPERLINK(\"http://x\")",
    "+1",
    "-1",
    "@SUM(A1)",
    "a,b",
    "a\"b",
    "a\rb",
    "\"quoted\"",
    "x\ry,z",
    "Ω",
    "🇧🇩",
];

fn shuffle<T>(items: &mut [T], rng: &mut StdRng) {
    for i in (1..items.len()).rev() {
        items.swap(i, rng.random_range(0..=i));
    }
}

/// The general path, row by row, as the CLI wrote it before: `read_until`
/// lines (cut to `LINE_MAX` bytes, the one change), lossy UTF-8, `\n` and
/// `\r`s off, empty lines skipped, then describe + `csv::row` or `error_row`.
fn reference_rows(db: &GeoDb, input: &[u8], now: DateTime<Utc>) -> Vec<Vec<u8>> {
    reference_rows_of(db, input, now, &Field::ALL)
}

/// [`reference_rows`] in the columns `fields` (`csv::row_of`, `csv::error_row_of`).
fn reference_rows_of(
    db: &GeoDb,
    input: &[u8],
    now: DateTime<Utc>,
    fields: &[Field],
) -> Vec<Vec<u8>> {
    let mut rows = Vec::new();
    let mut pieces: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if pieces.last().is_some_and(|l| l.is_empty()) {
        pieces.pop();
    }
    for raw in pieces {
        let raw = &raw[..raw.len().min(lines::LINE_MAX)];
        let text = String::from_utf8_lossy(raw);
        let text = text.trim_end_matches('\r');
        if text.is_empty() {
            continue;
        }
        rows.push(general_row(db, text, now, fields));
    }
    rows
}

/// The row of one input by the general path: `lookup::parse`, then
/// describe + `csv::row`, or `csv::error_row` with the error's code.
fn general_row(db: &GeoDb, text: &str, now: DateTime<Utc>, fields: &[Field]) -> Vec<u8> {
    let mut row = Vec::new();
    match lookup::parse(text) {
        Ok(ip) => csv::row_of(&mut row, fields, &lookup::describe(db, ip, now)),
        Err(e) => csv::error_row_of(&mut row, fields, text, e.body().error.as_str()),
    }
    row
}

/// The fast path on the same input, with the clock fixed at `now`: the
/// lines in batches as the binary reads them (addresses looked up
/// together), and the same again one line at a time, which must agree.
fn fast_output(db: &GeoDb, input: &[u8], now: DateTime<Utc>) -> Vec<u8> {
    fast_output_of(db, input, now, &Field::ALL)
}

/// [`fast_output`] in the columns `fields`.
fn fast_output_of(db: &GeoDb, input: &[u8], now: DateTime<Utc>, fields: &[Field]) -> Vec<u8> {
    let (mut out, mut one_by_one) = (Vec::new(), Vec::new());
    let mut rows = CsvRows::new(db, now, fields);
    lines::each_batch(input, |batch| {
        rows.lines(&mut out, batch);
        Ok(())
    })
    .unwrap();
    lines::each_line(input, |line| {
        rows.line(&mut one_by_one, line);
        Ok(())
    })
    .unwrap();
    assert!(
        out == one_by_one,
        "batched rows differ from rows one by one"
    );
    out
}

/// Asserts equal bytes, naming the first row that differs.
#[track_caller]
fn assert_same(got: &[u8], want: &[Vec<u8>], what: &str) {
    let mut at = 0;
    for (i, row) in want.iter().enumerate() {
        let here = &got[at.min(got.len())..];
        if !here.starts_with(row) {
            let same = row.iter().zip(here).take_while(|(a, b)| a == b).count();
            let from = same.saturating_sub(40);
            panic!(
                "{what}: row {i} ({} bytes) differs from byte {same}\n want ...{:?}\n got  ...{:?}",
                row.len(),
                String::from_utf8_lossy(&row[from..row.len().min(same + 80)]),
                String::from_utf8_lossy(&here[from..here.len().min(same + 80)])
            );
        }
        at += row.len();
    }
    assert_eq!(at, got.len(), "{what}: more output than rows");
}

fn times() -> Vec<DateTime<Utc>> {
    [
        "2026-11-26T12:00:00.250Z",
        // The EU summer-time change, and a second later.
        "2026-03-29T00:59:59.999Z",
        "2026-03-29T01:00:00Z",
        "1970-01-01T00:00:00Z",
        "2038-01-19T03:14:08Z",
    ]
    .iter()
    .map(|t| DateTime::parse_from_rfc3339(t).unwrap().to_utc())
    .collect()
}

#[test]
fn fast_rows_are_the_general_rows_byte_for_byte() {
    let db = GeoDb::embedded().unwrap();
    for seed in [1, 2] {
        let input = varied_input(seed, &db);
        for now in times() {
            let want = reference_rows(&db, &input, now);
            assert!(want.len() > 15_000, "{}", want.len());
            assert_same(&fast_output(&db, &input, now), &want, &format!("{now}"));
        }
    }
}

/// `--fields`: any columns in any order are the general rows in those
/// columns, byte for byte: the benchmark's columns, single fields, every
/// field backwards, and random choices in random orders.
#[test]
fn chosen_columns_in_any_order_are_the_general_rows_byte_for_byte() {
    use Field as F;
    let db = GeoDb::embedded().unwrap();
    let input = varied_input(4, &db);
    let now = times()[0];
    let mut rng = StdRng::seed_from_u64(4);
    let mut choices: Vec<Vec<Field>> = vec![
        vec![F::Ip, F::CountryCode, F::Asn, F::Organization],
        vec![F::Organization, F::Asn],
        vec![F::Asn, F::LocalTime, F::Organization, F::Range, F::IsPublic],
        Field::ALL.iter().rev().copied().collect(),
    ];
    choices.extend(Field::ALL.map(|f| vec![f]));
    for _ in 0..12 {
        let mut fields = Field::ALL.to_vec();
        shuffle(&mut fields, &mut rng);
        fields.truncate(rng.random_range(1..=fields.len()));
        choices.push(fields);
    }
    for fields in &choices {
        let want = reference_rows_of(&db, &input, now, fields);
        let got = fast_output_of(&db, &input, now, fields);
        assert_same(&got, &want, &format!("{fields:?}"));
    }
}

/// The clock moving on between rows: each row has the time it was given.
#[test]
fn rows_follow_the_clock_across_seconds() {
    let db = GeoDb::embedded().unwrap();
    let input = varied_input(3, &db);
    let mut out = Vec::new();
    let mut want = Vec::new();
    let start = times()[1];
    let mut rows = CsvRows::new(&db, start, &Field::ALL);
    let mut n = 0;
    lines::each_line(&input[..], |line| {
        // A new second every 7 lines, across the summer-time change.
        let now = start + chrono::Duration::milliseconds(n / 7 * 1000);
        rows.set_now(now);
        rows.line(&mut out, line);
        want.extend(reference_rows(&db, line, now));
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_same(&out, &want, "moving clock");
    // A leap second (never from the system clock) is written by chrono.
    let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
        .unwrap()
        .and_hms_nano_opt(23, 59, 59, 1_500_000_000)
        .unwrap()
        .and_utc();
    // Bangladesh keeps one time (a local time at country accuracy).
    let input = b"1.0.0.1\n8.8.8.8\n103.4.145.1\n";
    let got = fast_output(&db, input, leap);
    assert_same(&got, &reference_rows(&db, input, leap), "leap second");
    assert!(String::from_utf8_lossy(&got).contains(":60+"), "{got:?}");
}

/// With a city database: answers with a city take the general path, the
/// rest the fast one; all byte for byte.
#[test]
fn rows_with_a_city_database_are_the_general_rows() {
    let dir = TempDir::new("enrich-city");
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mmdb/zone-cities.mmdb");
    std::fs::copy(&fixture, dir.path().join("dbip-city-lite-2026-06.mmdb")).unwrap();
    let small = crate::support::data::small_release_policy();
    let db = load_database(Some(dir.path()), &small).unwrap();
    let mut input = varied_input(4, &db);
    input.extend_from_slice(b"\n8.8.8.8\n95.188.64.1\n200.129.0.1\n203.0.178.1\n");
    let now = times()[0];
    let want = reference_rows(&db, &input, now);
    let got = fast_output(&db, &input, now);
    assert_same(&got, &want, "city");
    assert!(String::from_utf8_lossy(&got).contains(",Mountain View,"));
}

/// The real binary: its rows are the general rows at some second between
/// its start and its end (the clock is real), in order, after the header;
/// and it exits 1 for the bad lines.
#[test]
fn the_binary_writes_the_general_rows() {
    let db = GeoDb::embedded().unwrap();
    let input = varied_input(5, &db);
    let before = Utc::now();
    let o = run_csv(&[], input.clone());
    let after = Utc::now();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let mut header = Vec::new();
    csv::header(&mut header);
    assert!(o.stdout.starts_with(&header));
    let rows = |now| reference_rows(&db, &input, now);
    assert_rows_at_some_second(&o.stdout[header.len()..], rows, before, after);
    // Arguments are answered alike, as they are (not trimmed).
    let args = ["8.8.8.8", "a\r", "", "2001:DB8::1", "=1", "::ffff:1.0.0.1"];
    let before = Utc::now();
    let o = run_csv(&args, Vec::new());
    let after = Utc::now();
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.starts_with(&header));
    let rows = |now| {
        args.iter()
            .map(|a| general_row(&db, a, now, &Field::ALL))
            .collect()
    };
    assert_rows_at_some_second(&o.stdout[header.len()..], rows, before, after);
}

/// `--fields` on the command line: CSV rows in those columns; JSON lines
/// of flat objects holding the members of the whole answer, in the order
/// asked (errors whole); a field named twice or unknown is a usage error.
#[test]
fn the_binary_writes_the_chosen_fields_in_csv_and_json() {
    let db = GeoDb::embedded().unwrap();
    let fields = [
        Field::Ip,
        Field::CountryCode,
        Field::Asn,
        Field::Organization,
    ];
    let input = varied_input(6, &db);
    let (before, o, after) = (
        Utc::now(),
        run_csv(
            &["--fields", "ip,country_code,asn,organization"],
            input.clone(),
        ),
        Utc::now(),
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.stdout
            .starts_with(b"ip,country_code,asn,organization,error\n")
    );
    let rows = |now| reference_rows_of(&db, &input, now, &fields);
    assert_rows_at_some_second(&o.stdout[39..], rows, before, after);

    let args = ["8.8.8.8", "10.0.0.1", "junk", "2001:4860:4860::8888"];
    let whole = run_lookup(&args, Vec::new());
    let flat = run_lookup(
        &[&["--fields", "asn,ip,is_public,latitude,city"][..], &args].concat(),
        Vec::new(),
    );
    assert_eq!(
        (whole.status.code(), flat.status.code()),
        (Some(1), Some(1))
    );
    let lines = |o: &std::process::Output| -> Vec<serde_json::Value> {
        o.stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    };
    let flat_out = flat.stdout.clone();
    let (whole, flat) = (lines(&whole), lines(&flat));
    assert_eq!(flat.len(), 4);
    for (w, f) in whole.iter().zip(&flat) {
        if w.get("error").is_some() {
            assert_eq!(w, f, "errors stay whole");
            continue;
        }
        assert_eq!(f.as_object().unwrap().len(), 5, "{f}");
        assert_eq!(f["asn"], w["network"]["asn"]);
        assert_eq!(f["ip"], w["ip"]);
        assert_eq!(f["is_public"], w["is_public"]);
        assert_eq!(f["latitude"], w["location"]["latitude"]);
        assert_eq!(f["city"], serde_json::Value::Null);
    }
    assert_eq!(flat[0]["asn"], 15169);
    // The members in the order asked (a Value sorts them: read the text).
    let text = String::from_utf8_lossy(&flat_out);
    let first = text.lines().next().unwrap();
    let at: Vec<usize> = [
        "\"asn\":",
        "\"ip\":",
        "\"is_public\":",
        "\"latitude\":",
        "\"city\":",
    ]
    .iter()
    .map(|m| first.find(m).unwrap())
    .collect();
    assert!(at.is_sorted(), "{first}");

    for (bad, says) in [
        ("ip,asn,ip", "--fields names ip twice"),
        ("ip,ASN", "\"ASN\" is not a field"),
        ("", "is not a field"),
    ] {
        let o = run_lookup(&["--fields", bad, "8.8.8.8"], Vec::new());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {err}");
        assert!(err.contains(says), "{bad:?}: {err}");
        assert!(o.stdout.is_empty(), "{bad:?}");
    }
}

/// A UTF-8 byte-order mark at the very start of standard input (as Excel's
/// "CSV UTF-8" files have) is skipped, as the batch endpoint skips it: the
/// first address is answered; one anywhere else is part of its line.
#[test]
fn the_binary_skips_a_byte_order_mark_at_the_start_of_its_input() {
    let o = run_lookup(
        &["--fields", "ip,asn"],
        b"\xEF\xBB\xBF8.8.8.8\r\n1.1.1.1\r\n".to_vec(),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let rows: Vec<serde_json::Value> = o
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0]["ip"], "8.8.8.8");
    assert_eq!(rows[0]["asn"], 15169);
    assert_eq!(rows[1]["ip"], "1.1.1.1");
    let later = run_lookup(&[], b"8.8.8.8\n\xEF\xBB\xBF1.1.1.1\n".to_vec());
    assert_eq!(later.status.code(), Some(1));
    let text = String::from_utf8_lossy(&later.stdout);
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(
        text.lines().nth(1).unwrap().contains("invalid_ip"),
        "{text}"
    );
}

/// Asserts that `out` is the rows `rows(second)` gives, each row as of one
/// second from `before` to `after`.
#[track_caller]
fn assert_rows_at_some_second(
    out: &[u8],
    rows: impl Fn(DateTime<Utc>) -> Vec<Vec<u8>>,
    before: DateTime<Utc>,
    after: DateTime<Utc>,
) {
    let refs: Vec<Vec<Vec<u8>>> = (before.timestamp()..=after.timestamp())
        .map(|s| rows(DateTime::from_timestamp(s, 0).unwrap()))
        .collect();
    let mut at = 0;
    for i in 0..refs[0].len() {
        let here = &out[at.min(out.len())..];
        let row = refs
            .iter()
            .map(|r| &r[i])
            .find(|row| here.starts_with(row))
            .unwrap_or_else(|| {
                panic!(
                    "row {i}: {:?}\nis none of {:?}",
                    String::from_utf8_lossy(&here[..here.len().min(300)]),
                    refs.iter()
                        .map(|r| String::from_utf8_lossy(&r[i]))
                        .collect::<Vec<_>>()
                )
            });
        at += row.len();
    }
    assert_eq!(at, out.len(), "more output than rows");
}

/// `lookup --format csv ARGS` with `stdin` as standard input.
fn run_csv(args: &[&str], stdin: Vec<u8>) -> std::process::Output {
    run_lookup(&[&["--format", "csv"], args].concat(), stdin)
}

/// `iplookup lookup ARGS < stdin`.
fn run_lookup(args: &[&str], stdin: Vec<u8>) -> std::process::Output {
    let mut child = support::proc::clean_command()
        .arg("lookup")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || pipe.write_all(&stdin));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    o
}

/// Standard input is untrusted: a line of 512 MiB of binary junk with no
/// newline is held as its first `LINE_MAX` bytes, never whole (the
/// process's peak resident memory stays far below the line's size), and
/// answered with one error row; the run goes on to the next line.
#[test]
fn a_huge_line_of_junk_is_cut_and_memory_stays_bounded() {
    let mut child = support::proc::clean_command()
        .args(["lookup", "--format", "csv"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).map(|_| out)
    });
    let mut rng = StdRng::seed_from_u64(7);
    let mut block = vec![0u8; 1 << 20];
    for _ in 0..512 {
        rng.fill(&mut block[..]);
        for b in &mut block {
            if *b == b'\n' {
                *b = b'=';
            }
        }
        stdin.write_all(&block).unwrap();
    }
    // Still running, the whole line read (the pipe holds at most 64 KiB more).
    std::thread::sleep(Duration::from_millis(200));
    let peak = peak_rss_kib(child.id());
    stdin.write_all(b"\n1.0.0.1").unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    let out = reader.join().unwrap().unwrap();
    assert_eq!(status.code(), Some(1));
    assert!(
        peak < 200 * 1024,
        "peak resident memory {peak} KiB for a 512 MiB line"
    );
    let text = String::from_utf8(out).expect("the output is UTF-8");
    let rows: Vec<&str> = text.split('\n').collect();
    assert_eq!(
        rows.len(),
        4,
        "header, the junk row, 1.0.0.1, and the final newline"
    );
    assert!(
        rows[1].ends_with(",invalid_ip"),
        "{}",
        &rows[1][rows[1].len() - 40..]
    );
    // At most LINE_MAX bytes of input, each at most 3 bytes once made UTF-8
    // (U+FFFD), doubled quotes at most doubling that.
    assert!(
        rows[1].len() < 6 * lines::LINE_MAX + 64,
        "{}",
        rows[1].len()
    );
    assert!(rows[2].starts_with("1.0.0.1,IPv4,true,AU,"), "{}", rows[2]);
}

/// VmHWM of a running process.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {status}"))
}

#[test]
fn the_varied_input_holds_every_kind_of_line() {
    // Sanity of the input itself: it holds valid addresses of both
    // families, invalid lines, and special addresses.
    let db = GeoDb::embedded().unwrap();
    let input = varied_input(1, &db);
    let rows = reference_rows(&db, &input, times()[0]);
    let text: Vec<String> = rows
        .iter()
        .map(|r| String::from_utf8_lossy(r).into_owned())
        .collect();
    let count = |p: &dyn Fn(&str) -> bool| text.iter().filter(|r| p(r)).count();
    assert!(count(&|r| r.contains(",IPv4,true,")) > 5000);
    assert!(
        count(&|r| r.contains(",IPv6,true,,,")) > 1000,
        "IPv6 without data"
    );
    assert!(count(&|r| r.contains(",IPv6,true,") && !r.contains(",IPv6,true,,")) > 1000);
    assert!(count(&|r| r.contains(",false,")) > 20);
    assert!(count(&|r| r.ends_with(",invalid_ip\n")) > 30);
    assert!(count(&|r| r.starts_with('"')) > 3, "quoted inputs");
    assert!(
        count(&|r| r.contains(",\"") && !r.ends_with("invalid_ip\n")) > 10,
        "quoted organisations"
    );
    let ip: IpAddr = "::ffff:8.8.8.8".parse().unwrap();
    assert!(
        text.iter()
            .any(|r| r.starts_with(&format!("{},", iplookup::address::canonical(ip))))
    );
}

/// Many addresses at once answer as each alone, in order, whatever the
/// group boundaries: addresses in data and in gaps, both families,
/// first and last of each family, and a random spread.
#[test]
fn lookups_of_many_addresses_answer_as_lookups_one_by_one() {
    let db = GeoDb::embedded().unwrap();
    let mut rng = StdRng::seed_from_u64(8);
    let mut ips: Vec<IpAddr> = [
        "0.0.0.0",
        "255.255.255.255",
        "::",
        "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "1.0.0.1",
        "8.8.8.8",
        "10.0.0.1",
        "2001:4860:4860::8888",
        "2c0f:f248::1",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect();
    for _ in 0..20_000 {
        ips.push(if rng.random_bool(0.5) {
            IpAddr::V4(rng.random::<u32>().into())
        } else {
            IpAddr::V6((1u128 << 125 | rng.random::<u128>() >> 3).into())
        });
    }
    let want: Vec<Answer<'_>> = ips.iter().map(|ip| db.lookup(*ip)).collect();
    let mut got = Vec::new();
    for size in [1, 15, 16, 17, 31, 32, 33, 65, ips.len()] {
        let mut all = Vec::new();
        for chunk in ips.chunks(size) {
            db.lookup_many(chunk, &mut got);
            all.extend_from_slice(&got);
        }
        assert!(all == want, "groups of {size}");
    }
    db.lookup_many(&[], &mut got);
    assert!(got.is_empty());
}
