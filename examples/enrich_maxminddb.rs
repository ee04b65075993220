//! The baseline of `bench/enrich.sh`: enriching addresses the way one would
//! with the `maxminddb` crate. Reads one address per line from standard
//! input, looks up its country (DB-IP country MMDB, `country_code`) and its
//! AS (GeoLite2-ASN schema MMDB), and writes a CSV row
//! `ip,country_code,asn,organization,error`. Both databases are read into
//! memory first; strings are borrowed from them, output is written in
//! 256 KiB blocks, as `iplookup lookup --format csv` does.
//!
//! Usage: `enrich_maxminddb COUNTRY.mmdb ASN.mmdb < addresses > out.csv`

use std::io::{self, BufRead};
use std::net::IpAddr;

use serde::Deserialize;

#[derive(Deserialize)]
struct Country<'a> {
    #[serde(borrow)]
    country_code: Option<&'a str>,
}

#[derive(Deserialize)]
struct Asn<'a> {
    autonomous_system_number: Option<u32>,
    #[serde(borrow)]
    autonomous_system_organization: Option<&'a str>,
}

type Reader = maxminddb::Reader<Vec<u8>>;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, country, asn] = args.as_slice() else {
        return Err("usage: enrich_maxminddb COUNTRY.mmdb ASN.mmdb < addresses".into());
    };
    let country = Reader::open_readfile(country)?;
    let asn = Reader::open_readfile(asn)?;
    let stdin = io::stdin().lock();
    let out = io::BufWriter::with_capacity(256 * 1024, io::stdout().lock());
    let mut out = csv::WriterBuilder::new()
        .buffer_capacity(256 * 1024)
        .from_writer(out);
    out.write_record(["ip", "country_code", "asn", "organization", "error"])?;
    let mut number = itoa::Buffer::new();
    for line in stdin.lines() {
        let line = line?;
        let text = line.trim_end_matches('\r');
        if text.is_empty() {
            continue;
        }
        let Ok(ip) = text.parse::<IpAddr>() else {
            out.write_record([text, "", "", "", "invalid_ip"])?;
            continue;
        };
        let code = country
            .lookup(ip)
            .ok()
            .and_then(|r| r.decode::<Country>().ok().flatten())
            .and_then(|c| c.country_code)
            .unwrap_or("");
        let (num, org) = asn
            .lookup(ip)
            .ok()
            .and_then(|r| r.decode::<Asn>().ok().flatten())
            .map(|a| (a.autonomous_system_number, a.autonomous_system_organization))
            .unwrap_or((None, None));
        let num = num.map_or("", |n| number.format(n));
        out.write_record([text, code, num, org.unwrap_or(""), ""])?;
    }
    out.flush()?;
    Ok(())
}
