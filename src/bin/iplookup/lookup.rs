//! `iplookup lookup`: addresses from the arguments or standard input (one per
//! line) to JSON lines or CSV on standard output. A data tool for enriching
//! logs in bulk: input read in large blocks, output written in large blocks
//! (never flushed per line), a line that is not an address (or not UTF-8)
//! answered with an error in its place and the run going on.

use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use anyhow::Context;

use iplookup::fields::CsvRows;
use iplookup::model::{Error, IpInfo};
use iplookup::{GeoDb, Lookup};

use crate::args::{LookupArgs, OutputFormat};

/// Size of the output buffer: large writes, few system calls.
const OUT_BUFFER: usize = 256 * 1024;

/// Answers each address; exits 1 when any of them was not an address.
pub fn run(args: LookupArgs) -> anyhow::Result<ExitCode> {
    // One-shot: the newest file of each kind must pass, or the command fails.
    let embedded = GeoDb::embedded()?;
    let db = match &args.data.data_dir {
        Some(dir) => iplookup::geo::load::load_dir(dir, &args.data.policy.policy(), &embedded)?,
        None => embedded,
    };
    let lookup = Lookup::new(db);
    let out = io::BufWriter::with_capacity(OUT_BUFFER, io::stdout().lock());
    let mut sink: Box<dyn Sink> = match args.format {
        OutputFormat::Json => Box::new(JsonLines(out)),
        OutputFormat::Csv => Box::new(Csv::new(out)?),
    };
    let mut failed = false;
    let mut answer = |text: &str| -> io::Result<()> {
        match lookup.lookup_data(text) {
            Ok(info) => sink.info(&info),
            Err(e) => {
                failed = true;
                sink.error(text, &e.body())
            }
        }
    };
    if args.addresses.is_empty() {
        each_line(io::stdin().lock(), &mut answer)?;
    } else {
        for a in &args.addresses {
            answer(a).context("cannot write to standard output")?;
        }
    }
    sink.finish().context("cannot write to standard output")?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Calls `answer` with each non-empty line of `input` (without its `\n` or
/// `\r\n`); a line that is not UTF-8 is passed with U+FFFD in place of the
/// bad bytes, so it gets its error row like any other bad input.
fn each_line(
    mut input: impl BufRead,
    answer: &mut impl FnMut(&str) -> io::Result<()>,
) -> anyhow::Result<()> {
    let mut line = Vec::with_capacity(64);
    loop {
        line.clear();
        let n = input
            .read_until(b'\n', &mut line)
            .context("cannot read standard input")?;
        if n == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches('\n').trim_end_matches('\r');
        if !text.is_empty() {
            answer(text).context("cannot write to standard output")?;
        }
    }
}

/// Where answers go, in one output format.
trait Sink {
    fn info(&mut self, info: &IpInfo) -> io::Result<()>;
    /// The answer for `input`, which is not an address.
    fn error(&mut self, input: &str, error: &Error) -> io::Result<()>;
    fn finish(&mut self) -> io::Result<()>;
}

/// One JSON object per line: the IpInfo, or the Error in its place.
struct JsonLines<W: Write>(W);

impl<W: Write> Sink for JsonLines<W> {
    fn info(&mut self, info: &IpInfo) -> io::Result<()> {
        serde_json::to_writer(&mut self.0, info)?;
        self.0.write_all(b"\n")
    }

    fn error(&mut self, _input: &str, error: &Error) -> io::Result<()> {
        serde_json::to_writer(&mut self.0, error)?;
        self.0.write_all(b"\n")
    }

    fn finish(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// CSV rows ([`CsvRows`], the writer the API's `text/csv` answers use too).
struct Csv<W: Write>(CsvRows<W>);

impl<W: Write> Csv<W> {
    fn new(out: W) -> io::Result<Self> {
        Ok(Csv(CsvRows::new(out, OUT_BUFFER)?))
    }
}

impl<W: Write> Sink for Csv<W> {
    fn info(&mut self, info: &IpInfo) -> io::Result<()> {
        Ok(self.0.info(info)?)
    }

    fn error(&mut self, input: &str, error: &Error) -> io::Result<()> {
        Ok(self.0.error(input, error.error.as_str())?)
    }

    fn finish(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}
