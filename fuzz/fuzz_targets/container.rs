//! The container reader never panics, and never allocates more than 16 × its input + 1 MiB at
//! once (a counting global allocator measures the peak): claimed sizes must not size
//! allocations (FORMAT.md §12). Inputs are capped at 8 KB (`-max_len=8192` in smoke.sh and
//! README), where even a legitimate container's output (≤ ~108 × its streams) fits the bound.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts live and peak heap bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Allowed peak of new heap bytes per input byte, and the fixed allowance.
const BYTES_PER_INPUT_BYTE: usize = 16;
const FIXED_ALLOWANCE_BYTES: usize = 1 << 20;

fuzz_target!(|data: &[u8]| {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let _ = engine::container::read_index(data);
    let _ = engine::container::decompress(data);
    let grew = PEAK.load(Ordering::Relaxed) - base;
    assert!(grew <= BYTES_PER_INPUT_BYTE * data.len() + FIXED_ALLOWANCE_BYTES, "peak {grew} bytes for a {}-byte input", data.len());
});
