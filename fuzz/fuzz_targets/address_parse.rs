#![no_main]
//! Fuzz target `address_parse`: the invariants are in `iplookup_fuzz::address_parse` (fuzz/src/lib.rs).

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| iplookup_fuzz::address_parse(data));
