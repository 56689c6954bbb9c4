//! `W<K>`: `K` independent 64-bit words, one per block of a batch, with element-wise operators.
//! Built inside a `#[target_feature]` function each operator is one vector instruction (K = 4 in
//! a 256-bit AVX2 register, K = 8 in a 512-bit AVX-512 one); with K = 1 it is a plain `u64`. So
//! the batched size model is written once, as SWAR on words, and compiled three times.

use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

/// `K` 64-bit words, lane `b` belonging to block `b` of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct W<const K: usize>(pub [u64; K]);

impl<const K: usize> Default for W<K> {
    #[inline(always)]
    fn default() -> Self {
        W([0; K])
    }
}

impl<const K: usize> W<K> {
    /// Every lane `v`.
    #[inline(always)]
    pub fn splat(v: u64) -> Self {
        W([v; K])
    }

    /// Lane-wise `f`.
    #[inline(always)]
    pub fn map(self, f: impl Fn(u64) -> u64) -> Self {
        let mut r = self.0;
        for v in r.iter_mut() {
            *v = f(*v);
        }
        W(r)
    }

    /// Lane-wise `f` of two operands.
    #[inline(always)]
    pub fn zip(self, o: Self, f: impl Fn(u64, u64) -> u64) -> Self {
        let mut r = self.0;
        for (v, &w) in r.iter_mut().zip(&o.0) {
            *v = f(*v, w);
        }
        W(r)
    }

    /// Lane-wise wrapping sum.
    #[inline(always)]
    pub fn add(self, o: Self) -> Self {
        self.zip(o, u64::wrapping_add)
    }

    /// Lane-wise wrapping difference.
    #[inline(always)]
    pub fn sub(self, o: Self) -> Self {
        self.zip(o, u64::wrapping_sub)
    }
}

macro_rules! binary {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<const K: usize> $trait for W<K> {
            type Output = Self;
            #[inline(always)]
            fn $method(self, o: Self) -> Self {
                self.zip(o, |a, b| a $op b)
            }
        }
    };
}
binary!(BitAnd, bitand, &);
binary!(BitOr, bitor, |);
binary!(BitXor, bitxor, ^);

impl<const K: usize> Not for W<K> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        self.map(|v| !v)
    }
}

impl<const K: usize> Shl<u32> for W<K> {
    type Output = Self;
    #[inline(always)]
    fn shl(self, n: u32) -> Self {
        self.map(|v| v << n)
    }
}

impl<const K: usize> Shr<u32> for W<K> {
    type Output = Self;
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        self.map(|v| v >> n)
    }
}
