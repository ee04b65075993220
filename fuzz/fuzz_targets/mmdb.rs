#![no_main]
//! Fuzz target `mmdb`: the invariants are in `iplookup_fuzz::mmdb` (fuzz/src/lib.rs).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| iplookup_fuzz::mmdb(data));
