#![no_main]
//! Fuzz target `snapshot_decode`: the invariants are in `iplookup_fuzz::snapshot_decode` (fuzz/src/lib.rs).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| iplookup_fuzz::snapshot_decode(data));
