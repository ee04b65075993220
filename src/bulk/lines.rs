//! Lines of untrusted input (`iplookup lookup` reading standard input), read
//! in large blocks and split without a copy or an allocation per line.
//!
//! Memory is bounded whatever the input: a line longer than [`LINE_MAX`]
//! bytes is cut there (the rest of it, up to its newline, is skipped), so
//! one block buffer of [`BLOCK`] bytes is all that is ever held. Binary junk,
//! a missing final newline and CRLF line ends are all input like any other;
//! a UTF-8 byte-order mark at the very start of the input (only there) is
//! skipped, as the batch endpoint skips it.

use std::io::{self, ErrorKind, Read};

/// Bytes read from the input at a time.
pub const BLOCK: usize = 256 * 1024;

/// The longest line passed on whole; a longer one is passed as its first
/// `LINE_MAX` bytes. An address is at most 45 bytes: such a line is never
/// one, and its error row echoes the first 4 KiB of it.
pub const LINE_MAX: usize = 4096;

/// Lines passed on together by [`each_batch`], at most.
pub const BATCH: usize = 32;

/// The UTF-8 byte-order mark, skipped at the very start of the input.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Calls `line` with each line of `input` that is not empty once its line
/// end is taken off: the `\n`, then every `\r` before it (a last line
/// without `\n` counts too). Bytes are passed as they are (not checked to be
/// UTF-8), except a byte-order mark at the very start of the input, which
/// is skipped. Stops at the first error of `input` (other than an interrupted
/// read) or of `line`.
pub fn each_line<R: Read>(
    input: R,
    mut line: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    each_batch(input, |lines| lines.iter().try_for_each(|l| line(l)))
}

/// [`each_line`], the lines handed over in order in batches of up to
/// [`BATCH`], so that the caller can work on several at once. A batch
/// holds lines of one read only: a line is never kept waiting for the next
/// read (input from a pipe is answered as it comes).
pub fn each_batch<R: Read>(
    mut input: R,
    mut batch: impl FnMut(&[&[u8]]) -> io::Result<()>,
) -> io::Result<()> {
    let mut buf = vec![0u8; BLOCK];
    // buf[..held] is the start of a line not ended yet (at most LINE_MAX bytes).
    let mut held = 0;
    // Whether the line being read was cut: skip up to its newline.
    let mut skipping = false;
    // Whether the start of the input is still to be checked for a BOM.
    let mut first = true;
    loop {
        let n = match input.read(&mut buf[held..]) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            if !skipping {
                Batch::default()
                    .add(&buf[..held], &mut batch)?
                    .flush(&mut batch)?;
            }
            return Ok(());
        }
        let end = held + n;
        let mut start = 0;
        if first {
            match first_line_start(&buf[..end]) {
                Some(after_bom) => (start, first) = (after_bom, false),
                None => {
                    held = end;
                    continue;
                }
            }
        }
        let mut lines = Batch::default();
        for nl in memchr::memchr_iter(b'\n', &buf[held..end]) {
            let nl = held + nl;
            if !skipping {
                lines.add(&buf[start..nl.min(start + LINE_MAX)], &mut batch)?;
            }
            skipping = false;
            start = nl + 1;
        }
        let rest = end - start;
        if !skipping && rest > LINE_MAX {
            lines.add(&buf[start..start + LINE_MAX], &mut batch)?;
            (held, skipping) = (0, true);
            lines.flush(&mut batch)?;
            continue;
        }
        lines.flush(&mut batch)?;
        if skipping {
            held = 0;
        } else {
            buf.copy_within(start..end, 0);
            held = rest;
        }
    }
}

/// Where the first line starts in the first `bytes` of the input: after a
/// byte-order mark if the input starts with one, else at once; `None` while
/// `bytes` may still be the start of a mark (too few bytes read to tell).
fn first_line_start(bytes: &[u8]) -> Option<usize> {
    if bytes.starts_with(BOM) {
        Some(BOM.len())
    } else if BOM.starts_with(bytes) {
        None
    } else {
        Some(0)
    }
}

/// Lines gathered for one call of the batch function.
#[derive(Default)]
struct Batch<'a> {
    lines: [&'a [u8]; BATCH],
    len: usize,
}

impl<'a> Batch<'a> {
    /// Adds a line (its `\r`s taken off; nothing if it is then empty),
    /// handing the batch over when it is full.
    fn add(
        &mut self,
        bytes: &'a [u8],
        batch: &mut impl FnMut(&[&[u8]]) -> io::Result<()>,
    ) -> io::Result<&mut Self> {
        let mut end = bytes.len();
        while end > 0 && bytes[end - 1] == b'\r' {
            end -= 1;
        }
        if end > 0 {
            self.lines[self.len] = &bytes[..end];
            self.len += 1;
            if self.len == BATCH {
                self.flush(batch)?;
            }
        }
        Ok(self)
    }

    /// Hands over the lines gathered, if any.
    fn flush(&mut self, batch: &mut impl FnMut(&[&[u8]]) -> io::Result<()>) -> io::Result<()> {
        let lines = &self.lines[..self.len];
        self.len = 0;
        if lines.is_empty() {
            Ok(())
        } else {
            batch(lines)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out its bytes in pieces of the given sizes (in
    /// turn), with an interruption before each.
    struct Pieces<'a> {
        data: &'a [u8],
        sizes: Vec<usize>,
        turn: usize,
        interrupt: bool,
    }

    impl Read for Pieces<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Err(ErrorKind::Interrupted.into());
            }
            let size = self.sizes[self.turn % self.sizes.len()];
            self.turn += 1;
            let n = size.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn lines(data: &[u8], sizes: &[usize]) -> Vec<Vec<u8>> {
        let mut got = Vec::new();
        let reader = Pieces {
            data,
            sizes: sizes.to_vec(),
            turn: 0,
            interrupt: false,
        };
        each_line(reader, |l| {
            got.push(l.to_vec());
            Ok(())
        })
        .unwrap();
        got
    }

    /// What the CLI did before: `read_until(b'\n')`, then the `\n` and
    /// every `\r` taken off, empty lines skipped, no length limit.
    fn by_read_until(data: &[u8]) -> Vec<Vec<u8>> {
        data.split(|&b| b == b'\n')
            .map(|l| {
                let end = l.iter().rposition(|&b| b != b'\r').map_or(0, |i| i + 1);
                l[..end].to_vec()
            })
            .filter(|l| !l.is_empty())
            .collect()
    }

    #[test]
    fn lines_are_split_as_read_until_splits_them_whatever_the_read_sizes() {
        let data = b"1.1.1.1\n\n\r\n::1\r\r\n a b \r\n\xff\xfe\x00\n\rx\r\ny\rz\nlast";
        for sizes in [&[1][..], &[2, 3], &[7], &[BLOCK], &[5, 1, 64]] {
            assert_eq!(lines(data, sizes), by_read_until(data), "{sizes:?}");
        }
        assert!(lines(b"", &[1]).is_empty());
        assert!(lines(b"\n\r\n\r", &[1]).is_empty());
    }

    /// A UTF-8 byte-order mark is skipped at the very start of the input,
    /// however the reads cut it, and nowhere else; a part of one is input.
    #[test]
    fn a_byte_order_mark_is_skipped_at_the_start_only() {
        let data = b"\xEF\xBB\xBF8.8.8.8\r\n\xEF\xBB\xBF1.1.1.1\n";
        let want = [b"8.8.8.8".to_vec(), b"\xEF\xBB\xBF1.1.1.1".to_vec()];
        for sizes in [&[1][..], &[2], &[3], &[4, 1], &[BLOCK]] {
            assert_eq!(lines(data, sizes), want, "{sizes:?}");
        }
        assert_eq!(lines(b"\xEF\xBB\xBF\n\nx", &[1]), [b"x".to_vec()]);
        assert!(lines(b"\xEF\xBB\xBF", &[1]).is_empty());
        assert_eq!(lines(b"\xEF\xBB", &[1]), [b"\xEF\xBB".to_vec()]);
        assert_eq!(lines(b"\xEF\xBBx\n", &[1]), [b"\xEF\xBBx".to_vec()]);
        assert_eq!(lines(b"\xEF\n1\n", &[2]), [b"\xEF".to_vec(), b"1".to_vec()]);
    }

    #[test]
    fn long_lines_are_cut_and_the_rest_skipped() {
        let long = |c: u8, n: usize| vec![c; n];
        let mut data = Vec::new();
        for part in [
            long(b'a', LINE_MAX),
            long(b'b', LINE_MAX + 1),
            long(b'c', 3 * BLOCK + 17),
            b"1.2.3.4".to_vec(),
            long(b'\r', LINE_MAX + 5),
            long(b'd', 2 * BLOCK),
        ] {
            data.extend_from_slice(&part);
            data.push(b'\n');
        }
        data.extend(long(b'e', BLOCK + 3)); // no final newline
        for sizes in [&[BLOCK][..], &[1000, 7], &[LINE_MAX + 1]] {
            let got = lines(&data, sizes);
            let want = [
                long(b'a', LINE_MAX),
                long(b'b', LINE_MAX),
                long(b'c', LINE_MAX),
                b"1.2.3.4".to_vec(),
                long(b'd', LINE_MAX),
                long(b'e', LINE_MAX),
            ];
            assert_eq!(got, want, "{sizes:?}");
        }
    }

    /// The lines of the batches are the lines, in order; a batch holds at
    /// most [`BATCH`] of them and only lines of one read.
    #[test]
    fn batches_hold_the_lines_in_order_and_never_wait_for_another_read() {
        let data: Vec<u8> = (0..100)
            .flat_map(|i| format!("line {i:03}\r\n\n").into_bytes())
            .collect();
        let batches = |sizes: &[usize]| {
            let mut got: Vec<Vec<Vec<u8>>> = Vec::new();
            let reader = Pieces {
                data: &data,
                sizes: sizes.to_vec(),
                turn: 0,
                interrupt: false,
            };
            each_batch(reader, |b| {
                got.push(b.iter().map(|l| l.to_vec()).collect());
                Ok(())
            })
            .unwrap();
            got
        };
        let all = batches(&[BLOCK]);
        assert_eq!(
            all.iter().map(Vec::len).collect::<Vec<_>>(),
            [32, 32, 32, 4]
        );
        assert_eq!(all.concat(), by_read_until(&data));
        // One line per read: each batch is that line alone.
        let one = batches(&[11]);
        assert_eq!(one.len(), 100);
        assert_eq!(one.concat(), by_read_until(&data));
    }

    #[test]
    fn errors_stop_the_reading() {
        let mut n = 0;
        let err = each_line(&b"a\nb\nc\n"[..], |_| {
            n += 1;
            if n == 2 {
                Err(io::Error::other("full"))
            } else {
                Ok(())
            }
        });
        assert_eq!(err.unwrap_err().to_string(), "full");
        assert_eq!(n, 2);
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("gone"))
            }
        }
        assert!(each_line(Broken, |_| Ok(())).is_err());
    }
}
