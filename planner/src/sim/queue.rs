//! A FIFO copy queue (one per direction of the host link).

/// One direction of the host link.
///
/// Contract: transfers start in the order they are enqueued; a transfer
/// starts when it is ready and the previous transfer has finished, and
/// occupies the queue for `setup_ns` plus its transfer time (Eq. 2).
#[derive(Debug, Clone)]
pub struct CopyQueue {
    setup_ns: f64,
    free_at_ns: f64,
    busy_ns: f64,
}

impl CopyQueue {
    /// An idle queue with a per-transfer setup of `setup_ns`.
    pub fn new(setup_ns: f64) -> Self {
        CopyQueue { setup_ns, free_at_ns: 0.0, busy_ns: 0.0 }
    }

    /// Enqueues a transfer that may start at `ready_ns` and moves data for
    /// `transfer_ns`; returns its `(start_ns, done_ns)`.
    pub fn enqueue(&mut self, ready_ns: f64, transfer_ns: f64) -> (f64, f64) {
        let start = ready_ns.max(self.free_at_ns);
        let done = start + self.setup_ns + transfer_ns;
        self.free_at_ns = done;
        self.busy_ns += done - start;
        (start, done)
    }

    /// Total time the queue was occupied, ns.
    pub fn busy_ns(&self) -> f64 {
        self.busy_ns
    }
}

#[cfg(test)]
mod tests {
    use super::CopyQueue;

    #[test]
    fn fifo_with_setup() {
        let mut q = CopyQueue::new(5_000.0);
        // First: ready at 0, 10 µs of data -> 0 .. 5 + 10 = 15 µs.
        assert_eq!(q.enqueue(0.0, 10_000.0), (0.0, 15_000.0));
        // Second is ready at 2 µs but waits for the first: 15 .. 15 + 5 + 1 = 21 µs.
        assert_eq!(q.enqueue(2_000.0, 1_000.0), (15_000.0, 21_000.0));
        // Third is ready after the queue drained: 30 .. 35 µs.
        assert_eq!(q.enqueue(30_000.0, 0.0), (30_000.0, 35_000.0));
        assert_eq!(q.busy_ns(), 35_000.0 - 9_000.0);
    }
}
