//! Bulk enrichment for the command line (`iplookup lookup` reading many
//! addresses): the fast paths that turn lines of addresses into CSV rows
//! without building an `IpInfo` per address. The server never uses them;
//! they sit beside [`crate::lookup`] and answer exactly what it answers
//! (tests/it/enrich.rs compares the two byte for byte).
//!
//! - [`lines`]: standard input read in large blocks, cut into lines and batches;
//! - [`quick`]: a one-pass parser for the plain address forms;
//! - [`columns`]: the chosen fields (`--fields`) as runs of cells;
//! - [`enrich`]: the CSV rows themselves, with the lookups of a batch overlapped.

pub(crate) mod columns;
pub mod enrich;
pub mod lines;
pub(crate) mod quick;
