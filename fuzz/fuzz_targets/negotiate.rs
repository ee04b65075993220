#![no_main]
//! Fuzz target `negotiate`: the invariants are in `iplookup_fuzz::negotiate` (fuzz/src/lib.rs).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| iplookup_fuzz::negotiate(data));
