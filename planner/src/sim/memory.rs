//! The activation memory pool: a hard budget, fragmentation-free.

/// Counted device memory (saved activations, their gradients, temporaries).
///
/// Contract: [`MemoryPool::try_alloc`] succeeds only if the bytes fit under
/// the budget; the pool never holds more than its budget; `peak_bytes` is
/// the largest amount ever held.
#[derive(Debug, Clone)]
pub struct MemoryPool {
    budget_bytes: u64,
    used_bytes: u64,
    peak_bytes: u64,
}

impl MemoryPool {
    /// An empty pool of `budget_bytes`.
    pub fn new(budget_bytes: u64) -> Self {
        MemoryPool { budget_bytes, used_bytes: 0, peak_bytes: 0 }
    }

    /// True if `bytes` more fit under the budget.
    pub fn fits(&self, bytes: u64) -> bool {
        self.used_bytes.saturating_add(bytes) <= self.budget_bytes
    }

    /// Takes `bytes` if they fit; returns whether it did.
    pub fn try_alloc(&mut self, bytes: u64) -> bool {
        if !self.fits(bytes) {
            return false;
        }
        self.used_bytes += bytes;
        self.peak_bytes = self.peak_bytes.max(self.used_bytes);
        true
    }

    /// Returns `bytes` to the pool.
    pub fn free(&mut self, bytes: u64) {
        self.used_bytes -= bytes;
    }

    /// Bytes held now.
    pub fn used_bytes(&self) -> u64 {
        self.used_bytes
    }

    /// Most bytes ever held.
    pub fn peak_bytes(&self) -> u64 {
        self.peak_bytes
    }

    /// The budget.
    pub fn budget_bytes(&self) -> u64 {
        self.budget_bytes
    }
}
