//! `iplookup lookup`: addresses from the arguments or standard input (one per
//! line) to JSON lines or CSV on standard output. A data tool for enriching
//! logs in bulk: input read in large blocks ([`lines::each_batch`], memory
//! bounded per line), output written in large blocks (never flushed per
//! line), a line that is not an address (or not UTF-8) answered with an
//! error in its place and the run going on. CSV rows are written straight
//! from the data ([`CsvRows`]), byte for byte the rows of `fields::csv`.

use std::cell::Cell;
use std::io::{self, Read, Write};
use std::process::ExitCode;

use anyhow::Context;
use chrono::{DateTime, Utc};

use iplookup::bulk::enrich::CsvRows;
use iplookup::bulk::lines;
use iplookup::fields::{Field, csv, json};
use iplookup::{GeoDb, Lookup};

use crate::args::{LookupArgs, OutputFormat};

/// Size of the output blocks: large writes, few system calls.
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
    let fields = fields(&args.fields);
    let mut out = Blocks::new(io::stdout().lock());
    let mut failed = false;
    match args.format {
        OutputFormat::Json => each_input(
            &args.addresses,
            &Cell::new(None),
            &mut out,
            |out, inputs| {
                for input in inputs {
                    let text = String::from_utf8_lossy(input);
                    let looked_up = iplookup::lookup::parse(&text)
                        .map(|ip| lookup.lookup_at(ip, Utc::now()).info);
                    let line = match looked_up {
                        Ok(info) if args.fields.is_empty() => {
                            serde_json::to_writer(&mut *out, &info)
                        }
                        Ok(info) => json::object_of(out, &fields, &info),
                        Err(e) => {
                            failed = true;
                            serde_json::to_writer(&mut *out, &e.body())
                        }
                    };
                    line.map_err(io::Error::from)?;
                    out.push(b'\n');
                }
                Ok(())
            },
        )?,
        OutputFormat::Csv => {
            let db = lookup.db();
            let mut rows = CsvRows::new(&db, Utc::now(), &fields);
            csv::header_of(&mut out.buffer, &fields);
            let read_at = Cell::new(None);
            each_input(&args.addresses, &read_at, &mut out, |out, inputs| {
                // `local_time` as of the read that brought the lines.
                if let Some(now) = read_at.take() {
                    rows.set_now(now);
                }
                failed |= rows.lines(out, inputs) > 0;
                Ok(())
            })?
        }
    }
    out.finish().context("cannot write to standard output")?;
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The fields asked for with `--fields` (every field when none is), each
/// at most once: a field named twice is a usage error.
fn fields(asked: &[Field]) -> Vec<Field> {
    if asked.is_empty() {
        return Field::ALL.to_vec();
    }
    let twice = asked
        .iter()
        .enumerate()
        .find(|(i, f)| asked[..*i].contains(f));
    if let Some((_, field)) = twice {
        let message = format!("--fields names {field} twice\n");
        clap::Error::raw(clap::error::ErrorKind::ValueValidation, message).exit();
    }
    asked.to_vec()
}

/// Calls `answer` with the inputs (the arguments as they are, else the
/// lines of standard input, [`lines::each_batch`]), a few at a time, and the
/// output buffer, handing the buffer to standard output whenever it is full.
/// Each read of standard input puts the time it returned in `read_at`.
fn each_input<W: Write>(
    addresses: &[String],
    read_at: &Cell<Option<DateTime<Utc>>>,
    out: &mut Blocks<W>,
    mut answer: impl FnMut(&mut Vec<u8>, &[&[u8]]) -> io::Result<()>,
) -> anyhow::Result<()> {
    let mut write_failed = false;
    let mut some = |inputs: &[&[u8]]| {
        answer(&mut out.buffer, inputs)?;
        out.spill().inspect_err(|_| write_failed = true)
    };
    let read = if addresses.is_empty() {
        let stdin = Stamped {
            input: io::stdin().lock(),
            read_at,
        };
        lines::each_batch(stdin, &mut some)
    } else {
        addresses.chunks(lines::BATCH).try_for_each(|chunk| {
            let mut inputs = [&[][..]; lines::BATCH];
            for (input, a) in inputs.iter_mut().zip(chunk) {
                *input = a.as_bytes();
            }
            some(&inputs[..chunk.len()])
        })
    };
    read.context(if write_failed || !addresses.is_empty() {
        "cannot write to standard output"
    } else {
        "cannot read standard input"
    })
}

/// A reader that notes the time of each read.
struct Stamped<'a, R> {
    input: R,
    read_at: &'a Cell<Option<DateTime<Utc>>>,
}

impl<R: Read> Read for Stamped<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.input.read(buf)?;
        self.read_at.set(Some(Utc::now()));
        Ok(n)
    }
}

/// The output: rows are written into `buffer`, handed to `out` when it
/// holds [`OUT_BUFFER`] bytes.
struct Blocks<W: Write> {
    out: W,
    buffer: Vec<u8>,
}

impl<W: Write> Blocks<W> {
    fn new(out: W) -> Self {
        Blocks {
            out,
            buffer: Vec::with_capacity(OUT_BUFFER + 64 * 1024),
        }
    }

    /// Writes the buffer out if it is full.
    fn spill(&mut self) -> io::Result<()> {
        if self.buffer.len() >= OUT_BUFFER {
            self.out.write_all(&self.buffer)?;
            self.buffer.clear();
        }
        Ok(())
    }

    /// Writes out what is left.
    fn finish(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buffer)?;
        self.buffer.clear();
        self.out.flush()
    }
}
