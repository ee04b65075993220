//! The two traits of a range table's arrays: [`Key`], an address of one family
//! as an unsigned integer, and [`Value`], a payload id where zero means "no data".

use std::fmt::Debug;

/// An address of one family as an unsigned integer (`u32` for IPv4, `u128` for IPv6).
pub trait Key: Copy + Ord + Debug + Default + bytemuck::Pod + Send + Sync + 'static {
    /// Bits in the address.
    const BITS: u32;
    /// The last address of the family.
    const MAX: Self;
    /// The address plus one, `None` past the end.
    fn succ(self) -> Option<Self>;
    /// The address minus one (callers never ask below zero).
    fn pred(self) -> Self;
    /// The `count` bits that follow the top `from` bits.
    fn bits(self, from: u32, count: u32) -> usize;
    /// `prefix` with the `count` bits after its top `from` bits set to `value`.
    fn with_bits(prefix: Self, from: u32, count: u32, value: usize) -> Self;
    /// The address as a `u128` (for counting addresses of either family).
    fn wide(self) -> u128;
}

impl Key for u32 {
    const BITS: u32 = 32;
    const MAX: Self = u32::MAX;
    #[inline]
    fn wide(self) -> u128 {
        u128::from(self)
    }
    #[inline]
    fn succ(self) -> Option<Self> {
        self.checked_add(1)
    }
    #[inline]
    fn pred(self) -> Self {
        self.saturating_sub(1)
    }
    #[inline]
    fn bits(self, from: u32, count: u32) -> usize {
        (self.checked_shl(from).unwrap_or(0) >> (32 - count)) as usize
    }
    fn with_bits(prefix: Self, from: u32, count: u32, value: usize) -> Self {
        prefix | ((value as u32) << (32 - from - count))
    }
}

impl Key for u128 {
    const BITS: u32 = 128;
    const MAX: Self = u128::MAX;
    #[inline]
    fn wide(self) -> u128 {
        self
    }
    #[inline]
    fn succ(self) -> Option<Self> {
        self.checked_add(1)
    }
    #[inline]
    fn pred(self) -> Self {
        self.saturating_sub(1)
    }
    #[inline]
    fn bits(self, from: u32, count: u32) -> usize {
        (self.checked_shl(from).unwrap_or(0) >> (128 - count)) as usize
    }
    fn with_bits(prefix: Self, from: u32, count: u32, value: usize) -> Self {
        prefix | ((value as u128) << (128 - from - count))
    }
}

/// A payload id: zero means "no data".
pub trait Value:
    Copy + Default + PartialEq + Debug + bytemuck::Pod + Send + Sync + 'static
{
}
impl Value for u16 {}
impl Value for u32 {}
/// City numbers of a city table: three bytes, not four.
impl Value for [u8; 3] {}
