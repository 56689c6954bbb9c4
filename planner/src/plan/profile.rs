//! A memory profile (counted bytes per op) with range updates and a fast
//! peak query, for the planners' repeated "find the peak, evict, update" loops.

/// Ops per block: a range update touches at most two blocks entry by entry
/// and shifts the blocks in between as a whole.
const BLOCK: usize = 64;

/// Bytes per op, stored as `vals[i] + offset[i / BLOCK]`, with each block's maximum.
#[derive(Debug, Clone)]
pub(crate) struct BlockProfile {
    vals: Vec<i64>,
    offset: Vec<i64>,
    block_max: Vec<i64>,
}

impl BlockProfile {
    /// Wraps a profile (bytes per op).
    pub fn new(profile: Vec<i64>) -> Self {
        let block_max: Vec<i64> = profile.chunks(BLOCK).map(|c| c.iter().copied().max().unwrap_or(i64::MIN)).collect();
        BlockProfile { offset: vec![0; block_max.len()], vals: profile, block_max }
    }

    /// Bytes during op `i`.
    pub fn get(&self, i: usize) -> i64 {
        self.vals[i] + self.offset[i / BLOCK]
    }

    /// Adds `delta` bytes to every op of `from..=to` (nothing if `from > to`).
    pub fn add(&mut self, from: usize, to: usize, delta: i64) {
        if from > to {
            return;
        }
        let (first, last) = (from / BLOCK, to / BLOCK);
        if first == last {
            self.add_within(first, from, to, delta);
            return;
        }
        self.add_within(first, from, (first + 1) * BLOCK - 1, delta);
        for b in first + 1..last {
            self.offset[b] += delta;
            self.block_max[b] += delta;
        }
        self.add_within(last, last * BLOCK, to, delta);
    }

    fn add_within(&mut self, block: usize, from: usize, to: usize, delta: i64) {
        for v in &mut self.vals[from..=to] {
            *v += delta;
        }
        let end = ((block + 1) * BLOCK).min(self.vals.len());
        let max = self.vals[block * BLOCK..end].iter().copied().max().unwrap_or(i64::MIN);
        self.block_max[block] = max + self.offset[block];
    }

    /// Largest entry and its op (the first, on ties), like [`super::estimate::peak`].
    pub fn peak(&self) -> (i64, usize) {
        let mut best = (i64::MIN, 0);
        for (b, &m) in self.block_max.iter().enumerate() {
            if m > best.0 {
                best = (m, b);
            }
        }
        if best.0 == i64::MIN {
            return (i64::MIN, 0);
        }
        let start = best.1 * BLOCK;
        let at = (start..self.vals.len()).find(|&i| self.get(i) == best.0).unwrap_or(start);
        (best.0, at)
    }

    /// The plain profile.
    pub fn into_vec(self) -> Vec<i64> {
        let offset = self.offset;
        self.vals.into_iter().enumerate().map(|(i, v)| v + offset[i / BLOCK]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::estimate::peak;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn matches_a_plain_profile_under_random_range_updates() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for n in [1usize, 63, 64, 65, 200, 1_000] {
            let plain: Vec<i64> = (0..n).map(|_| rng.gen_range(0..1_000)).collect();
            let mut plain = plain;
            let mut blocks = BlockProfile::new(plain.clone());
            for _ in 0..300 {
                let (a, b) = (rng.gen_range(0..n), rng.gen_range(0..n));
                let delta = rng.gen_range(-500..500);
                blocks.add(a, b, delta);
                if a <= b {
                    for v in &mut plain[a..=b] {
                        *v += delta;
                    }
                }
                assert_eq!(blocks.peak(), peak(&plain), "n = {n}");
                let i = rng.gen_range(0..n);
                assert_eq!(blocks.get(i), plain[i]);
            }
            assert_eq!(blocks.into_vec(), plain);
        }
    }
}
