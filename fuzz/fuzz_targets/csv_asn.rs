#![no_main]
//! Fuzz target `csv_asn`: the invariants are in `iplookup_fuzz::csv_asn` (fuzz/src/lib.rs).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| iplookup_fuzz::csv_asn(data));
