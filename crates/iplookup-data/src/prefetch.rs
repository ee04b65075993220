//! A hint to the processor that a value will be read soon, so that the wait
//! for memory overlaps other work: what lets the lookups of many addresses
//! at once ([`crate::ranges::RangeTable::narrow`]) wait for memory together
//! rather than in turn.

/// Asks for the cache line holding `value`. Only a hint: it reads nothing,
/// changes nothing and cannot fault; on processors without the instruction
/// it does nothing.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: `_mm_prefetch` is unsafe only as a `#[target_feature]`
        // function; its feature (SSE) is part of every x86_64 target, and a
        // prefetch has no effect on memory or program state: any address is
        // allowed, and this one is a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
