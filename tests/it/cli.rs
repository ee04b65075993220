//! The real `iplookup` binary: `lookup` (arguments and standard input), help
//! texts, `serve` configured by flags and environment variables, and loading
//! DB-IP files from `--data-dir` (plain, gzipped, and refused when bad).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use iplookup::GeoDb;
use serde_json::Value;

use crate::support;
use crate::support::data::TempDir;
use crate::support::proc::{Spawned, free_port};

/// The binary, with none of its environment variables (`IPLOOKUP_*`) inherited.
fn bin() -> Command {
    support::proc::clean_command()
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

fn stdout_lines(o: &Output) -> Vec<Value> {
    String::from_utf8(o.stdout.clone())
        .expect("stdout is UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l:?}")))
        .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// What the library (and so the API) answers for `ip`, as JSON.
fn expected(db: &GeoDb, ip: &str) -> Value {
    let info = iplookup::lookup::describe(db, ip.parse().unwrap(), Utc::now());
    serde_json::to_value(info).unwrap()
}

/// Checks `local_time` is RFC 3339 and close to now, then blanks it for comparison.
fn without_local_time(mut v: Value) -> Value {
    if let Some(t) = v["location"]["local_time"].as_str() {
        let t = DateTime::parse_from_rfc3339(t).unwrap_or_else(|e| panic!("local_time {t:?}: {e}"));
        assert!((Utc::now() - t.with_timezone(&Utc)).num_seconds().abs() < 120);
        v["location"]["local_time"] = Value::Null;
    }
    v
}

const SMALL_COUNTRY: &str = "\
1.0.0.0,1.0.0.255,AU
8.8.8.0,8.8.8.255,FR
2001:4860::,2001:4860:ffff:ffff:ffff:ffff:ffff:ffff,DE
";

// ---------------------------------------------------------------------------
// lookup
// ---------------------------------------------------------------------------

#[test]
fn lookup_arguments_print_the_api_json() {
    let o = run(&["lookup", "8.8.8.8", "2001:4860:4860::8888"]);
    assert!(o.status.success(), "{o:?}");
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 2, "{lines:?}");
    let db = GeoDb::embedded().unwrap();
    for (line, ip) in lines.into_iter().zip(["8.8.8.8", "2001:4860:4860::8888"]) {
        // The United States and Canada keep several times: null at country accuracy.
        assert!(line["location"]["local_time"].is_null(), "{line}");
        assert_eq!(
            without_local_time(line),
            without_local_time(expected(&db, ip)),
            "{ip}"
        );
    }
    let lines = stdout_lines(&o);
    assert_eq!(lines[0]["location"]["country_code"], "US");
    assert_eq!(lines[0]["network"]["asn"], 15169);
    assert_eq!(lines[1]["location"]["country_code"], "CA");
    assert_eq!(lines[1]["version"], "IPv6");
}

#[test]
fn lookup_reads_standard_input_when_given_no_address() {
    let mut child = bin()
        .arg("lookup")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"8.8.8.8\n1.1.1.1\r\n\n::FFFF:14.1.103.5\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{o:?}");
    let lines = stdout_lines(&o);
    assert_eq!(
        lines.len(),
        3,
        "one line per address, blank lines skipped, CRLF accepted: {lines:?}"
    );
    let db = GeoDb::embedded().unwrap();
    for (line, ip) in lines.iter().zip(["8.8.8.8", "1.1.1.1", "14.1.103.5"]) {
        assert_eq!(line["ip"], ip);
        assert_eq!(
            without_local_time(line.clone()),
            without_local_time(expected(&db, ip))
        );
    }
    let codes: Vec<&str> = lines
        .iter()
        .map(|l| l["location"]["country_code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["US", "AU", "BD"]);
}

#[test]
fn invalid_address_gives_an_error_line_and_a_failing_exit() {
    let o = run(&["lookup", "8.8.8.8", "1.2.3", "::1"]);
    assert!(!o.status.success(), "{o:?}");
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["ip"], "8.8.8.8");
    assert_eq!(lines[1]["error"], "invalid_ip", "{}", lines[1]);
    assert!(
        lines[1]["message"].as_str().unwrap().contains("1.2.3"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2]["ip"], "::1");

    for bad in ["01.2.3.4", "fe80::1%eth0", "[::1]", "1.2.3.4:80"] {
        let o = run(&["lookup", bad]);
        assert!(!o.status.success(), "{bad}: {o:?}");
        let lines = stdout_lines(&o);
        assert_eq!(lines.len(), 1, "{bad}");
        assert_eq!(lines[0]["error"], "invalid_ip", "{bad}");
        assert!(
            lines[0]["message"].as_str().unwrap().contains(bad),
            "{bad}: {}",
            lines[0]
        );
    }

    // The same from standard input.
    let mut child = bin()
        .arg("lookup")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"abc\n1.1.1.1\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(!o.status.success(), "{o:?}");
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["error"], "invalid_ip");
    assert_eq!(lines[1]["ip"], "1.1.1.1");
}

/// `lookup` with `stdin` as standard input and `args` after `lookup`.
fn lookup_stdin(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = bin()
        .arg("lookup")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || input.write_all(&data));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    o
}

/// `--format csv`: a header with every field and `error`, one row per input
/// in order (the JSON answer's values, read back with the csv crate), error
/// rows keeping the input, a line that is not UTF-8 answered in place, and
/// formulas from the input defused.
#[test]
fn lookup_csv_has_one_row_per_input_with_the_json_values() {
    let input = b"8.8.8.8\n=HYPERLINK(\"x\")\n\xff\xfe\n\n2001:4860:4860::8888\r\n10.1.2.3\n";
    let o = lookup_stdin(&["--format", "csv"], input);
    assert_eq!(
        o.status.code(),
        Some(1),
        "an invalid input fails the run: {o:?}"
    );
    let mut reader = csv::Reader::from_reader(o.stdout.as_slice());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(header.first().map(String::as_str), Some("ip"));
    assert_eq!(header.last().map(String::as_str), Some("error"));
    assert_eq!(header.len(), 22, "{header:?}");
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 5, "one row per non-empty line: {rows:?}");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    assert_eq!(&rows[1][col("ip")], "'=HYPERLINK(\"x\")");
    assert_eq!(&rows[1][col("error")], "invalid_ip");
    assert_eq!(&rows[2][col("ip")], "\u{fffd}\u{fffd}");
    assert_eq!(&rows[2][col("error")], "invalid_ip");
    let db = GeoDb::embedded().unwrap();
    for (row, ip) in [
        (&rows[0], "8.8.8.8"),
        (&rows[3], "2001:4860:4860::8888"),
        (&rows[4], "10.1.2.3"),
    ] {
        let want = without_local_time(expected(&db, ip));
        assert_eq!(&row[col("error")], "", "{ip}");
        for (i, name) in header
            .iter()
            .enumerate()
            .filter(|(_, n)| *n != "error" && *n != "local_time")
        {
            let value = want
                .get(name)
                .or_else(|| want["location"].get(name))
                .or_else(|| want["network"].get(name));
            let text = match value {
                None | Some(Value::Null) => String::new(),
                // A calling code is defused in CSV like any other cell.
                Some(Value::String(s)) if name == "calling_code" => format!("'{s}"),
                Some(Value::String(s)) => s.clone(),
                // `special_purpose` as a column is the block's name.
                Some(Value::Object(o)) if name == "special_purpose" => {
                    o["name"].as_str().unwrap().to_owned()
                }
                Some(other) => other.to_string(),
            };
            assert_eq!(&row[i], text, "{ip}: {name}");
        }
    }
    // JSON lines stay the default.
    let o = lookup_stdin(&[], b"8.8.8.8\n\xff\n");
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["error"], "invalid_ip");
}

// ---------------------------------------------------------------------------
// help
// ---------------------------------------------------------------------------

#[test]
fn help_explains_every_flag_and_its_environment_variable() {
    for args in [&["--help"][..], &["serve", "--help"], &["help", "serve"]] {
        let o = run(args);
        assert!(o.status.success(), "{args:?}");
        let text = String::from_utf8(o.stdout).unwrap();
        for needle in [
            "--listen",
            "IPLOOKUP_LISTEN",
            "--trusted-proxy",
            "IPLOOKUP_TRUSTED_PROXIES",
            "--data-dir",
            "IPLOOKUP_DATA_DIR",
            "127.0.0.1:8080",
        ] {
            assert!(
                text.contains(needle),
                "{args:?} does not mention {needle}:\n{text}"
            );
        }
    }
    let top = String::from_utf8(run(&["--help"]).stdout).unwrap();
    assert!(top.contains("serve") && top.contains("lookup"), "{top}");
    let lookup = String::from_utf8(run(&["lookup", "--help"]).stdout).unwrap();
    for needle in ["--data-dir", "IPLOOKUP_DATA_DIR", "ADDR", "standard input"] {
        assert!(
            lookup.contains(needle),
            "lookup --help does not mention {needle}:\n{lookup}"
        );
    }
    // An unknown flag is refused.
    let o = run(&["serve", "--no-such-flag"]);
    assert!(!o.status.success());
}

// ---------------------------------------------------------------------------
// serve
// ---------------------------------------------------------------------------

#[test]
fn serve_listens_where_the_environment_says() {
    let addr = free_port();
    let mut cmd = bin();
    cmd.arg("serve").env("IPLOOKUP_LISTEN", addr.to_string());
    let mut srv = Spawned::spawn(cmd, addr);
    let health = srv.wait_ready();
    assert_eq!(health["status"], "ok", "{health}");
    assert_eq!(
        health["data"]["country"]["release_date"], "2026-06-01",
        "{health}"
    );
    assert_eq!(
        health["data"]["asn"]["release_date"], "2026-06-17",
        "{health}"
    );
    let v = srv.get_json("/api/v1/ip/8.8.8.8", &[]);
    assert_eq!(v["location"]["country_code"], "US");
    assert_eq!(v["network"]["range"], "8.8.8.0/24");
    // No proxy trusted by default: the header is ignored.
    let me = srv.get_json("/api/v1/me", &[("X-Forwarded-For", "8.8.8.8")]);
    assert_eq!(me["ip"], "127.0.0.1");
}

#[test]
fn serving_is_the_default_and_flags_configure_it() {
    let addr = free_port();
    let mut cmd = bin();
    cmd.args([
        "--listen",
        &addr.to_string(),
        "--trusted-proxy",
        "10.0.0.0/8",
        "--trusted-proxy",
        "127.0.0.0/8",
    ]);
    let mut srv = Spawned::spawn(cmd, addr);
    srv.wait_ready();
    let me = srv.get_json(
        "/api/v1/me",
        &[("X-Forwarded-For", "6.6.6.6, 8.8.8.8, 10.1.1.1")],
    );
    assert_eq!(me["ip"], "8.8.8.8", "{me}");
}

#[test]
fn trusted_proxies_from_the_environment_are_comma_separated() {
    let addr = free_port();
    let mut cmd = bin();
    cmd.arg("serve")
        .env("IPLOOKUP_LISTEN", addr.to_string())
        .env("IPLOOKUP_TRUSTED_PROXIES", "10.0.0.0/8,127.0.0.0/8");
    let mut srv = Spawned::spawn(cmd, addr);
    srv.wait_ready();
    let me = srv.get_json("/api/v1/me", &[("X-Forwarded-For", "1.1.1.1, 10.2.3.4")]);
    assert_eq!(me["ip"], "1.1.1.1", "{me}");
    // Only X-Forwarded-For is read by default.
    let me = srv.get_json("/api/v1/me", &[("X-Real-IP", "8.8.8.8")]);
    assert_eq!(me["ip"], "127.0.0.1", "{me}");
}

#[test]
fn the_client_ip_header_comes_from_the_flag_or_the_environment() {
    let forged = [
        ("X-Forwarded-For", "203.0.113.9"),
        ("Forwarded", "for=8.8.8.8"),
        ("CF-Connecting-IP", "1.1.1.1"),
    ];
    let addr = free_port();
    let mut cmd = bin();
    cmd.args(["serve", "--trusted-proxy", "127.0.0.1/32"])
        .args(["--client-ip-header", "Forwarded"])
        .env("IPLOOKUP_LISTEN", addr.to_string());
    let mut srv = Spawned::spawn(cmd, addr);
    srv.wait_ready();
    assert_eq!(srv.get_json("/api/v1/me", &forged)["ip"], "8.8.8.8");
    drop(srv);

    let addr = free_port();
    let mut cmd = bin();
    cmd.arg("serve")
        .env("IPLOOKUP_LISTEN", addr.to_string())
        .env("IPLOOKUP_TRUSTED_PROXIES", "127.0.0.1/32")
        .env("IPLOOKUP_CLIENT_IP_HEADER", "cf-connecting-ip");
    let mut srv = Spawned::spawn(cmd, addr);
    srv.wait_ready();
    assert_eq!(srv.get_json("/api/v1/me", &forged)["ip"], "1.1.1.1");
}

// ---------------------------------------------------------------------------
// range checks of the settings
// ---------------------------------------------------------------------------

/// Runs `serve` with these arguments and environment, which must be refused
/// at start: a non-zero exit within 10 s. Returns standard error.
fn refused(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut cmd = bin();
    cmd.arg("serve")
        .args(["--listen", "127.0.0.1:0", "--no-reverse-dns"])
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn the binary");
    let t0 = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if t0.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve {args:?} {env:?} was not refused: it still runs after 10 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!status.success(), "serve {args:?} {env:?} exited 0: {err}");
    err
}

/// Every numeric flag, its environment variable, and values out of its range.
const OUT_OF_RANGE: &[(&str, &str, &[&str])] = &[
    (
        "--drain-seconds",
        "IPLOOKUP_DRAIN_SECONDS",
        &["3601", "-1", "ten"],
    ),
    (
        "--rdns-timeout-ms",
        "IPLOOKUP_RDNS_TIMEOUT_MS",
        &["0", "60001"],
    ),
    (
        "--rdns-cache-size",
        "IPLOOKUP_RDNS_CACHE_SIZE",
        &["0", "10000001"],
    ),
    (
        "--header-timeout",
        "IPLOOKUP_HEADER_TIMEOUT",
        &["0", "3601"],
    ),
    (
        "--request-timeout",
        "IPLOOKUP_REQUEST_TIMEOUT",
        &["0", "3601", "18446744073709551615", "18446744073709551616"],
    ),
    (
        "--rate-limit",
        "IPLOOKUP_RATE_LIMIT",
        &["0", "-1", "NaN", "inf", "1000001", "fast"],
    ),
    (
        "--rate-burst",
        "IPLOOKUP_RATE_BURST",
        &["0", "1000001", "4294967296"],
    ),
    (
        "--max-connections",
        "IPLOOKUP_MAX_CONNECTIONS",
        &["0", "1000001"],
    ),
    (
        "--max-in-flight",
        "IPLOOKUP_MAX_IN_FLIGHT",
        &["0", "18446744073709551615"],
    ),
    (
        "--max-in-flight-per-ip",
        "IPLOOKUP_MAX_IN_FLIGHT_PER_IP",
        &["0", "1000001"],
    ),
    (
        "--batch-max-in-flight",
        "IPLOOKUP_BATCH_MAX_IN_FLIGHT",
        &["0", "10001", "many"],
    ),
];

#[test]
fn every_numeric_flag_is_range_checked_at_start() {
    for (flag, _, values) in OUT_OF_RANGE {
        for value in *values {
            let arg = format!("{flag}={value}");
            let err = refused(&[&arg], &[]);
            assert!(
                err.contains(flag) && err.contains(value),
                "{arg}: the message names neither the flag nor the value:\n{err}"
            );
        }
    }
}

#[test]
fn out_of_range_environment_variables_are_refused_too() {
    for (flag, var, values) in OUT_OF_RANGE {
        let err = refused(&[], &[(var, values[0])]);
        assert!(err.contains(flag), "{var}={}: {err}", values[0]);
    }
}

#[test]
fn an_invalid_client_ip_header_is_refused_with_its_name() {
    for name in ["x forwarded for", "x-real-ip:", ""] {
        let arg = format!("--client-ip-header={name}");
        let err = refused(&[&arg], &[]);
        assert!(err.contains("--client-ip-header"), "{arg}: {err}");
        assert!(err.contains("not a valid HTTP header name"), "{arg}: {err}");
    }
    let err = refused(&[], &[("IPLOOKUP_CLIENT_IP_HEADER", "cf connecting ip")]);
    assert!(err.contains("--client-ip-header"), "{err}");
}

#[test]
fn the_bounds_themselves_are_accepted() {
    let addr = free_port();
    let mut cmd = bin();
    cmd.args(["serve", "--listen", &addr.to_string(), "--no-reverse-dns"])
        .args(["--drain-seconds", "0", "--header-timeout", "3600"])
        .args(["--request-timeout", "1", "--rdns-timeout-ms", "60000"])
        .args(["--rdns-cache-size", "10000000", "--rate-limit", "1000000"])
        .args(["--rate-burst", "1", "--max-connections", "1000000"])
        .args(["--max-in-flight", "1"])
        .args(["--client-ip-header", "True-Client-IP"]);
    let mut srv = Spawned::spawn(cmd, addr);
    assert_eq!(srv.wait_ready()["status"], "ok");
    let v = srv.get_json("/api/v1/ip/8.8.8.8", &[]);
    assert_eq!(v["location"]["country_code"], "US");
}

// ---------------------------------------------------------------------------
// --data-dir
// ---------------------------------------------------------------------------

#[test]
fn lookup_uses_the_files_of_the_data_directory() {
    let dir = TempDir::new("plain");
    dir.write("dbip-country-lite-2026-07.csv", SMALL_COUNTRY);
    let o = run(&[
        "lookup",
        "8.8.8.8",
        "8.8.4.4",
        "2001:4860:4860::8888",
        "--data-dir",
        dir.str(),
        "--release-row-ratio",
        "any",
    ]);
    assert!(o.status.success(), "{o:?}");
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 3);
    let fr = &lines[0];
    assert_eq!(fr["location"]["country_code"], "FR", "{fr}");
    assert_eq!(fr["location"]["country"], "France", "{fr}");
    assert_eq!(fr["location"]["time_zone"], "Europe/Paris", "{fr}");
    assert_eq!(fr["location"]["calling_code"], "+33", "{fr}");
    // No ASN file in the directory: the embedded ASN table answers.
    assert_eq!(fr["network"]["asn"], 15169, "{fr}");
    assert_eq!(fr["network"]["range"], "8.8.8.0/24", "{fr}");
    // 8.8.4.4 is in no row of the small country file.
    let gap = &lines[1];
    assert_eq!(gap["location"]["country_code"], Value::Null, "{gap}");
    assert_eq!(gap["location"]["accuracy"], Value::Null, "{gap}");
    assert_eq!(gap["network"]["asn"], 15169, "{gap}");
    assert_eq!(lines[2]["location"]["country_code"], "DE", "{}", lines[2]);

    // The environment twin.
    let o = bin()
        .args(["lookup", "8.8.8.8"])
        .env("IPLOOKUP_DATA_DIR", dir.path())
        .env("IPLOOKUP_RELEASE_ROW_RATIO", "any")
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout_lines(&o)[0]["location"]["country_code"], "FR");
}

#[test]
fn serve_uses_the_data_directory_and_reports_its_release() {
    let dir = TempDir::new("serve");
    dir.write("dbip-country-lite-2026-07.csv", SMALL_COUNTRY);
    let addr = free_port();
    let mut cmd = bin();
    cmd.args([
        "serve",
        "--listen",
        &addr.to_string(),
        "--data-dir",
        dir.str(),
        "--release-row-ratio",
        "any",
    ]);
    let mut srv = Spawned::spawn(cmd, addr);
    let health = srv.wait_ready();
    assert_eq!(
        health["data"]["country"]["release_date"], "2026-07",
        "{health}"
    );
    assert_eq!(health["data"]["country"]["rows"], 3, "{health}");
    assert_eq!(
        health["data"]["asn"]["release_date"], "2026-06-17",
        "{health}"
    );
    let v = srv.get_json("/api/v1/ip/8.8.8.8", &[]);
    assert_eq!(v["location"]["country_code"], "FR", "{v}");
}

#[test]
fn gzipped_files_and_the_newest_release_are_used() {
    let dir = TempDir::new("gz");
    dir.write("dbip-country-lite-2026-07.csv", SMALL_COUNTRY);
    dir.write_gz(
        "dbip-country-lite-2026-08.csv.gz",
        "8.8.8.0,8.8.8.255,JP\n2001:4860::,2001:4860:ffff:ffff:ffff:ffff:ffff:ffff,NZ\n",
    );
    dir.write_gz(
        "dbip-asn-lite-2026-08.csv.gz",
        "8.8.8.0,8.8.8.127,64500,\"Example, \"\"Quoted\"\" Org\"\n8.8.8.128,8.8.8.255,64501,Plain Org\n",
    );
    let o = run(&[
        "lookup",
        "8.8.8.8",
        "8.8.8.200",
        "2001:4860:4860::8888",
        "--data-dir",
        dir.str(),
        "--release-row-ratio",
        "any",
    ]);
    assert!(o.status.success(), "{o:?}");
    let lines = stdout_lines(&o);
    assert_eq!(
        lines[0]["location"]["country_code"], "JP",
        "newest release wins: {}",
        lines[0]
    );
    assert_eq!(lines[0]["network"]["asn"], 64500);
    assert_eq!(
        lines[0]["network"]["organization"],
        "Example, \"Quoted\" Org"
    );
    assert_eq!(lines[0]["network"]["range"], "8.8.8.0/25");
    assert_eq!(lines[1]["network"]["asn"], 64501);
    assert_eq!(lines[1]["network"]["organization"], "Plain Org");
    assert_eq!(lines[1]["network"]["range"], "8.8.8.128/25");
    assert_eq!(lines[2]["location"]["country_code"], "NZ");
    // The ASN file has no IPv6 rows: no network for an IPv6 address.
    assert_eq!(lines[2]["network"]["asn"], Value::Null, "{}", lines[2]);

    let addr = free_port();
    let mut cmd = bin();
    cmd.args(["serve", "--listen", &addr.to_string()])
        .env("IPLOOKUP_DATA_DIR", dir.path())
        .env("IPLOOKUP_RELEASE_ROW_RATIO", "any");
    let mut srv = Spawned::spawn(cmd, addr);
    let health = srv.wait_ready();
    assert_eq!(
        health["data"]["country"]["release_date"], "2026-08",
        "{health}"
    );
    assert_eq!(health["data"]["asn"]["release_date"], "2026-08", "{health}");
}

/// The file, the line and the reason, all on standard error.
fn assert_names_line_3(err: &str, file: &Path, reason: &[&str]) {
    let name = file.file_name().unwrap().to_str().unwrap();
    assert!(err.contains(name), "stderr does not name {name}: {err}");
    assert!(
        err.contains(":3:") || err.contains("line 3"),
        "stderr does not name line 3: {err}"
    );
    let lower = err.to_ascii_lowercase();
    assert!(
        reason.iter().all(|r| lower.contains(r)),
        "stderr does not give the reason {reason:?}: {err}"
    );
}

/// A country file of 20 rows whose rows 3 to 13 are reversed: eleven
/// defects, one more than a small file may hold.
fn too_many_bad_rows() -> String {
    let mut text = "1.0.0.0,1.0.0.255,AU\n8.8.8.0,8.8.8.255,FR\n".to_owned();
    for i in 0..11 {
        text.push_str(&format!("9.0.{i}.255,9.0.{i}.0,DE\n"));
    }
    for i in 0..7 {
        text.push_str(&format!("9.1.{i}.0,9.1.{i}.255,CH\n"));
    }
    text
}

#[test]
fn a_bad_file_is_refused_with_file_line_and_reason() {
    let dir = TempDir::new("bad");
    let file = dir.write("dbip-country-lite-2026-07.csv", &too_many_bad_rows());
    let o = run(&[
        "lookup",
        "8.8.8.8",
        "--data-dir",
        dir.str(),
        "--release-row-ratio",
        "any",
    ]);
    assert!(!o.status.success(), "{o:?}");
    assert!(
        o.stdout.is_empty(),
        "nothing answered from a half-loaded file: {o:?}"
    );
    let err = stderr(&o);
    assert_names_line_3(&err, &file, &["end", "before", "start"]);
    assert!(err.contains("11 of 20 rows are defective"), "{err}");

    // serve starts all the same, on the embedded data, and says why.
    let addr = free_port();
    let mut cmd = bin();
    cmd.args([
        "serve",
        "--listen",
        &addr.to_string(),
        "--data-dir",
        dir.str(),
        "--release-row-ratio",
        "any",
    ]);
    let mut srv = Spawned::spawn(cmd, addr);
    let health = srv.wait_ready();
    assert_eq!(
        health["data"]["country"]["release_date"], "2026-06-01",
        "{health}"
    );
    let refused = &health["refused"][0];
    assert_eq!(refused["file"], "dbip-country-lite-2026-07.csv", "{health}");
    let reason = refused["reason"].as_str().unwrap();
    assert!(reason.contains("11 of 20 rows are defective"), "{reason}");
    assert!(reason.contains("line 3"), "{reason}");
    let v = srv.get_json("/api/v1/ip/8.8.8.8", &[]);
    assert_eq!(v["location"]["country_code"], "US", "{v}");
}

#[test]
fn a_few_bad_rows_are_repaired_and_counted() {
    let dir = TempDir::new("fewbad");
    dir.write(
        "dbip-country-lite-2026-07.csv",
        "1.0.0.0,1.0.0.255,AU\n8.8.8.0,8.8.8.255,FR\n8.8.9.255,8.8.9.0,DE\n8.8.8.128,8.8.10.255,CH\n",
    );
    let o = run(&[
        "lookup",
        "8.8.8.8",
        "8.8.10.1",
        "--data-dir",
        dir.str(),
        "--release-row-ratio",
        "any",
    ]);
    assert!(o.status.success(), "{o:?}");
    let lines = stdout_lines(&o);
    // The earlier row wins the overlap; the later one starts after it.
    assert_eq!(lines[0]["location"]["country_code"], "FR", "{}", lines[0]);
    assert_eq!(lines[1]["location"]["country_code"], "CH", "{}", lines[1]);
}

#[test]
fn bad_gzipped_asn_files_are_refused_too() {
    let dir = TempDir::new("badasn");
    let rows = |bad: &dyn Fn(usize) -> String| {
        let mut t =
            "1.0.0.0,1.0.0.255,13335,\"Cloudflare, Inc.\"\n1.0.4.0,1.0.7.255,38803,Gtelecom\n"
                .to_owned();
        for i in 0..11 {
            t.push_str(&bad(i));
        }
        t
    };
    let overlaps = rows(&|i| format!("1.0.6.{i},1.0.8.255,1,Overlap\n"));
    let file = dir.write_gz("dbip-asn-lite-2026-07.csv.gz", &overlaps);
    let o = run(&[
        "lookup",
        "1.0.0.1",
        "--data-dir",
        dir.str(),
        "--release-row-ratio",
        "any",
    ]);
    assert!(!o.status.success(), "{o:?}");
    assert!(o.stdout.is_empty(), "{o:?}");
    assert_names_line_3(&stderr(&o), &file, &["overlap"]);

    let unsorted = dir.write_gz(
        "dbip-asn-lite-2026-08.csv.gz",
        &rows(&|i| format!("1.0.0.{i},1.0.0.{i},2,X\n")),
    );
    let o = run(&[
        "lookup",
        "1.0.0.1",
        "--data-dir",
        dir.str(),
        "--release-row-ratio",
        "any",
    ]);
    assert!(!o.status.success(), "{o:?}");
    assert_names_line_3(&stderr(&o), &unsorted, &["sorted"]);

    let garbage = dir.write_gz(
        "dbip-asn-lite-2026-09.csv.gz",
        &rows(&|i| format!("1.0.9.{i},1.0.9,3,Y\n")),
    );
    let o = run(&[
        "lookup",
        "1.0.0.1",
        "--data-dir",
        dir.str(),
        "--release-row-ratio",
        "any",
    ]);
    assert!(!o.status.success(), "{o:?}");
    assert_names_line_3(&stderr(&o), &garbage, &["1.0.9"]);
}

#[test]
fn lookup_arguments_are_parsed_as_strictly_as_the_api() {
    // The API answers 400 invalid_ip for "%208.8.8.8" (tests/api.rs); the same
    // argument on the command line must give the same Error line and exit 1.
    for bad in [" 8.8.8.8", "8.8.8.8 ", "8.8.8.8\t"] {
        let o = run(&["lookup", bad]);
        let lines = stdout_lines(&o);
        assert_eq!(lines.len(), 1, "{bad:?}");
        assert_eq!(lines[0]["error"], "invalid_ip", "{bad:?}: {}", lines[0]);
        assert!(!o.status.success(), "{bad:?}");
    }
}

// ---------------------------------------------------------------------------
// version, completions, manual pages
// ---------------------------------------------------------------------------

#[test]
fn version_names_the_crate_and_the_embedded_releases() {
    let o = run(&["--version"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.starts_with(&format!("iplookup {}\n", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    let db = GeoDb::embedded().unwrap();
    let release = db.release();
    for date in [&release.country.date, &release.asn.date] {
        assert!(!date.is_empty());
        assert!(text.contains(date.as_str()), "{date} not in {text}");
    }
    // `-V` is the one-line form (the manual page's header uses it too).
    let short = String::from_utf8(run(&["-V"]).stdout).unwrap();
    assert_eq!(short, format!("iplookup {}\n", env!("CARGO_PKG_VERSION")));
}

/// The long flags `--help` of `args` lists.
fn long_flags(args: &[&str]) -> Vec<String> {
    let help = String::from_utf8(run(args).stdout).unwrap();
    let mut flags: Vec<String> = help
        .split(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '[' || c == '<')
        .filter(|w| w.starts_with("--") && w.len() > 2)
        .map(|w| {
            w.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                .to_owned()
        })
        .collect();
    flags.sort();
    flags.dedup();
    flags
}

#[test]
fn completions_cover_every_subcommand_and_flag() {
    let serve_flags = long_flags(&["serve", "--help"]);
    assert!(serve_flags.len() > 10, "{serve_flags:?}");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let o = run(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = String::from_utf8(o.stdout).unwrap();
        for word in ["serve", "lookup", "update", "completions", "man"] {
            assert!(script.contains(word), "{shell} lacks {word}");
        }
        for flag in &serve_flags {
            // fish and powershell name long flags without their dashes.
            let bare = flag.trim_start_matches('-');
            assert!(script.contains(bare), "{shell} lacks {flag}");
        }
    }
    // The bash script is valid bash.
    let dir = TempDir::new("completions");
    let file = dir.path().join("iplookup.bash");
    std::fs::write(&file, run(&["completions", "bash"]).stdout).unwrap();
    let check = Command::new("bash").arg("-n").arg(&file).output().unwrap();
    assert!(check.status.success(), "{}", stderr(&check));
    // An unknown shell is refused with the list of shells.
    let o = run(&["completions", "tcsh"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("bash"), "{}", stderr(&o));
}

#[test]
fn man_pages_are_generated_from_the_same_definitions_as_help() {
    let o = run(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = String::from_utf8(o.stdout).unwrap();
    let header = page
        .lines()
        .find(|l| l.starts_with(".TH "))
        .unwrap_or_default();
    assert!(
        header.starts_with(".TH iplookup 1") && header.contains(env!("CARGO_PKG_VERSION")),
        "{header}"
    );
    for word in ["serve", "lookup", "update", "completions"] {
        assert!(page.contains(word), "the page lacks {word}");
    }
    let dir = TempDir::new("man");
    let o = run(&["man", "--out-dir", dir.str()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let serve = std::fs::read_to_string(dir.path().join("iplookup-serve.1")).unwrap();
    for flag in long_flags(&["serve", "--help"]) {
        // roff escapes the dashes of flags.
        let escaped = flag.replace('-', "\\-");
        assert!(
            serve.contains(&escaped) || serve.contains(&flag),
            "iplookup-serve.1 lacks {flag}"
        );
    }
    for name in ["iplookup.1", "iplookup-lookup.1", "iplookup-update.1"] {
        assert!(dir.path().join(name).is_file(), "{name} not written");
    }
}

#[test]
fn the_cli_reference_has_a_row_for_every_serve_flag_and_its_environment_variable() {
    let help = String::from_utf8(run(&["serve", "--help"]).stdout).unwrap();
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/CLI.md"))
        .expect("docs/CLI.md");
    // The first two cells of each flag row: the flags and their variables.
    let rows: Vec<String> = readme
        .lines()
        .filter(|l| l.starts_with("| `--"))
        .map(|l| l.split('|').take(3).collect::<Vec<_>>().join("|"))
        .collect();
    let mut flags = 0;
    for word in help.split_whitespace() {
        let Some(flag) = word.strip_prefix("--") else {
            continue;
        };
        let flag = flag.trim_end_matches(|c: char| !c.is_ascii_alphanumeric());
        if flag.is_empty() || flag == "help" || !word.starts_with("--") {
            continue;
        }
        flags += 1;
        assert!(
            rows.iter().any(|r| r.contains(&format!("`--{flag}`"))),
            "docs/CLI.md has no flag row for --{flag}"
        );
    }
    for var in help.split("[env: ").skip(1) {
        let var = var.split('=').next().unwrap();
        assert!(
            rows.iter().any(|r| r.contains(&format!("`{var}`"))),
            "docs/CLI.md has no flag row naming {var}"
        );
    }
    assert!(flags > 15, "found only {flags} flags in:\n{help}");
}

// ---------------------------------------------------------------------------
// connection limits: the open-file limit, the range of the new flags
// ---------------------------------------------------------------------------

/// Starts `serve ARGS` with an open-file limit of `soft`/`hard` and JSON logs;
/// its log lines up to the "serving" one, and its `/proc/PID/limits` then.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn serve_with_open_files(soft: u64, hard: u64, args: &[&str]) -> (Vec<Value>, String) {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let mut cmd = bin();
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--log-format", "json"])
        .args(["--no-reverse-dns"])
        .args(args)
        .env("IPLOOKUP_LOG", "info")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: between fork and exec the closure only calls setrlimit, which
    // is async-signal-safe, on a struct it owns.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: soft,
                rlim_max: hard,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("the binary starts");
    let pid = child.id();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut lines = Vec::new();
    let started = Instant::now();
    loop {
        let left = Duration::from_secs(30).saturating_sub(started.elapsed());
        let line = rx
            .recv_timeout(left)
            .unwrap_or_else(|e| panic!("no \"serving\" line ({e}): {lines:?}"));
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let serving = v["fields"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("serving"));
        lines.push(v);
        if serving {
            break;
        }
    }
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    (lines, limits)
}

/// The soft and hard "Max open files" of a `/proc/PID/limits` text.
fn open_files(limits: &str) -> (u64, u64) {
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .expect("a Max open files line");
    let mut numbers = line.split_whitespace().skip(3).map(|n| n.parse().unwrap());
    (numbers.next().unwrap(), numbers.next().unwrap())
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn serve_raises_the_open_file_limit_and_lowers_a_connection_cap_it_cannot_hold() {
    // Soft 300, hard 600: raised to 600, which holds 300 connections (300
    // descriptors kept for the rest), not the 10,000 asked.
    let (lines, limits) = serve_with_open_files(300, 600, &["--max-connections", "10000"]);
    assert_eq!(open_files(&limits), (600, 600), "{limits}");
    let raised = lines
        .iter()
        .find(|v| v["fields"]["message"] == "open-file limit raised")
        .unwrap_or_else(|| panic!("no line about the raise: {lines:?}"));
    assert_eq!(raised["fields"]["from"], 300, "{raised}");
    assert_eq!(raised["fields"]["to"], 600, "{raised}");
    let warning = lines
        .iter()
        .find(|v| v["level"] == "WARN")
        .unwrap_or_else(|| panic!("no warning: {lines:?}"));
    eprintln!("{warning}");
    let message = warning["fields"]["message"].as_str().unwrap();
    assert!(message.contains("--max-connections"), "{warning}");
    assert_eq!(warning["fields"]["clamped_to"], 300, "{warning}");
    assert_eq!(warning["fields"]["max_connections"], 10000, "{warning}");

    // A cap the limit holds is left alone, without a warning.
    let (lines, _) = serve_with_open_files(4096, 4096, &["--max-connections", "1000"]);
    assert!(
        lines.iter().all(|v| v["level"] != "WARN"),
        "a warning for a cap that fits: {lines:?}"
    );
}

#[test]
fn the_connection_flags_refuse_values_out_of_range() {
    for (flag, bad) in [
        ("--idle-timeout", "0"),
        ("--idle-timeout", "86401"),
        ("--max-connections-per-ip", "0"),
        ("--max-connections-per-ip", "1000001"),
    ] {
        let o = run(&["serve", flag, bad]);
        assert!(!o.status.success(), "{flag} {bad} accepted");
        let err = stderr(&o);
        assert!(
            err.contains(flag) && err.contains(bad),
            "{flag} {bad}: {err}"
        );
    }
    let help = String::from_utf8(run(&["serve", "--help"]).stdout).unwrap();
    for needle in [
        "--idle-timeout",
        "IPLOOKUP_IDLE_TIMEOUT",
        "--max-connections-per-ip",
        "IPLOOKUP_MAX_CONNECTIONS_PER_IP",
    ] {
        assert!(help.contains(needle), "serve --help lacks {needle}");
    }
}
