#![no_main]
//! Fuzz target `forwarded`: the invariants are in `iplookup_fuzz::forwarded` (fuzz/src/lib.rs).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| iplookup_fuzz::forwarded(data));
