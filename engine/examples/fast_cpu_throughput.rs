//! Fast paths (`engine::fast`) against the golden codec on the real activations of `data/`:
//! size model, encoder and decoder in GB/s of **thread CPU time** on one core, and the parallel
//! (`par_*`) versions in wall-clock GB/s on a one-thread and an all-core rayon pool, run
//! alternately (so that the machine's drift between runs hits both alike), best of 15 each, with
//! their ratio (the scaling).
//!
//! Run: `cargo run --release -p engine --example fast_cpu_throughput [DATA_DIR]` (default: the
//! repository's `data/`). Inputs: every F32 tensor of every `*.safetensors` file under it, as
//! captured with w = 32, and their bf16 round-to-nearest-even conversion with w = 16.
//! Size model, encoder and decoder are also timed on each SIMD path this CPU has (`portable`,
//! `avx2`, `avx512`; the encoder's transposes and the decoder's kernels are AVX-512 on
//! `avx512`, the portable kernels compiled for AVX2 / BMI2 on `avx2`, plain portable code on
//! `portable`); the `fast` rows use the fastest. On the per-path and `fast` rows the encoder and
//! decoder write into an output buffer reused from call to call (`encode_stream_into_with`,
//! `decode_stream_into_with`), as a caller with a staging buffer does; the `fast+alloc` row
//! times the allocating calls (`encode_stream`, `decode_stream`), whose fresh output costs one
//! first-touch page fault per 4 KB page (the kernel's time is thread CPU time too), and the
//! golden rows allocate (golden has no into-buffer API). The `par` rows: `par_blocks_sizes`,
//! `par_encode_stream_into` and `par_decode_into` (reused buffers). The load average is
//! printed at the start and the end.
//! For instruction counts: `valgrind --tool=callgrind target/release/examples/fast_cpu_throughput
//! --once OP` runs one pass of OP (`golden-size`, `fast-size`, `fast-size-PATH`, `golden-encode`, `fast-encode`,
//! `golden-decode`, `fast-decode`) over both widths and prints the blocks it coded.

use cpu_time::ThreadTime;
use engine::fast;
use engine::golden::{self, BLOCK_BYTES, SymbolWidth};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Thread CPU seconds each single-core case is repeated for.
const MIN_CPU_S: f64 = 1.0;
/// Repetitions of each parallel case on each pool (the best is reported).
const PAR_REPS: usize = 15;

/// Every F32 tensor of the safetensors files under `dir`, concatenated: (f32 bytes, bf16 bytes).
fn real_data(dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "safetensors") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut f32s = Vec::new();
    for file in &files {
        let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap_or_else(|e| panic!("{}: {e:?}", file.display()));
        for (_, view) in st.tensors() {
            if view.dtype() == safetensors::Dtype::F32 {
                // Whole chunks per tensor, as a tensor stream would start.
                let mut data = view.data().to_vec();
                data.resize(data.len().div_ceil(golden::CHUNK_BYTES) * golden::CHUNK_BYTES, 0);
                f32s.extend_from_slice(&data);
            }
        }
    }
    let bf16s: Vec<u8> = f32s.chunks_exact(4).flat_map(|c| half::bf16::from_f32(f32::from_le_bytes(c.try_into().unwrap())).to_bits().to_le_bytes()).collect();
    (f32s, bf16s)
}

/// The first three fields of `/proc/loadavg` (the machine's load while measuring), or why not.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(|e| format!("unknown ({e})"), |s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

/// Bytes per second of thread CPU time of `f` over `bytes` bytes, repeated ≥ [`MIN_CPU_S`].
fn cpu_rate(bytes: usize, mut f: impl FnMut() -> usize) -> f64 {
    let start = ThreadTime::now();
    let mut reps = 0usize;
    while start.elapsed().as_secs_f64() < MIN_CPU_S {
        black_box(f());
        reps += 1;
    }
    (bytes * reps) as f64 / start.elapsed().as_secs_f64()
}

/// Best wall-clock bytes per second of `f` over `bytes` bytes on each of `pools`, the pools taking
/// turns for [`PAR_REPS`] rounds.
fn wall_rates(pools: &[rayon::ThreadPool], bytes: usize, f: impl Fn() -> usize + Sync) -> Vec<f64> {
    let mut best = vec![0.0f64; pools.len()];
    for _ in 0..PAR_REPS {
        for (pool, b) in pools.iter().zip(&mut best) {
            let t = Instant::now();
            black_box(pool.install(&f));
            *b = b.max(bytes as f64 / t.elapsed().as_secs_f64());
        }
    }
    best
}

fn golden_sizes(data: &[u8], w: SymbolWidth) -> usize {
    data.chunks_exact(BLOCK_BYTES).map(|b| golden::block_sizes(b.try_into().unwrap(), w).choice().1 as usize).sum()
}

fn fast_sizes(data: &[u8], w: SymbolWidth) -> usize {
    fast::blocks_sizes(data, w).iter().map(|s| s.choice().1 as usize).sum()
}

fn path_sizes(path: fast::Path, data: &[u8], w: SymbolWidth) -> usize {
    fast::blocks_sizes_with(path, data, w).iter().map(|s| s.choice().1 as usize).sum()
}

/// Single-core CPU-time rates of the size model, the encoder and the decoder on `path`, the
/// encoder and decoder writing into one output buffer reused from call to call.
fn into_rates(path: fast::Path, data: &[u8], stream: &[u8], w: SymbolWidth) -> [f64; 3] {
    let mut encoded = Vec::with_capacity(stream.len());
    let mut decoded = vec![0u8; data.len()];
    [
        cpu_rate(data.len(), || path_sizes(path, data, w)),
        cpu_rate(data.len(), || {
            encoded.clear();
            fast::encode_stream_into_with(path, data, w, &mut encoded);
            encoded.len()
        }),
        cpu_rate(data.len(), || {
            fast::decode_stream_into_with(path, stream, &mut decoded, w).unwrap();
            decoded.len()
        }),
    ]
}

fn par_sizes(data: &[u8], w: SymbolWidth) -> usize {
    use rayon::prelude::*;
    fast::par_blocks_sizes(data, w).par_iter().map(|s| s.choice().1 as usize).sum()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let once = args.iter().position(|a| a == "--once").map(|i| args.get(i + 1).cloned().expect("--once OP"));
    let dir = args.iter().find(|a| !a.starts_with("--") && Some(*a) != once.as_ref()).map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../data"));
    let (f32s, bf16s) = real_data(&dir);
    let inputs = [("bf16, w = 16", SymbolWidth::W16, bf16s), ("f32, w = 32", SymbolWidth::W32, f32s)];

    if let Some(op) = once {
        let mut blocks = 0usize;
        for (_, w, data) in &inputs {
            let stream = golden::encode_stream(data, *w);
            let n = match op.as_str() {
                "golden-size" => golden_sizes(data, *w),
                "fast-size" => fast_sizes(data, *w),
                op if op.starts_with("fast-size-") => {
                    let path = fast::Path::ALL.into_iter().find(|p| op == format!("fast-size-{}", p.name())).expect("fast-size-PATH");
                    path_sizes(path, data, *w)
                }
                "golden-encode" => golden::encode_stream(data, *w).len(),
                "fast-encode" => fast::encode_stream(data, *w).len(),
                "golden-decode" => golden::decode_stream(&stream, data.len(), *w).unwrap().len(),
                "fast-decode" => fast::decode_stream(&stream, data.len(), *w).unwrap().len(),
                "none" => 0,
                other => panic!("unknown op {other}"),
            };
            black_box(n);
            blocks += data.len() / BLOCK_BYTES;
        }
        println!("{op}: {blocks} blocks (both widths; subtract the `none` run for the set-up)");
        return;
    }

    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let pools: Vec<rayon::ThreadPool> =
        [1, threads].iter().map(|&n| rayon::ThreadPoolBuilder::new().num_threads(n).build().expect("thread pool")).collect();
    println!("load average (1, 5, 15 min) at start: {}", load_average());
    println!("input: every F32 tensor under {} (MB = 10^6 bytes of uncompressed tensor)", dir.display());
    println!("{:<14} {:>7} {:<10} {:>9} {:>12} {:>12}", "input", "MB", "path", "size GB/s", "encode GB/s", "decode GB/s");
    for (name, w, data) in &inputs {
        let stream = golden::encode_stream(data, *w);
        assert_eq!(fast::encode_stream(data, *w), stream, "fast encoder differs from golden");
        assert!(fast::decode_fast_only_with(fast::Path::detect(), &stream, data.len(), *w).as_ref() == Some(data), "fast decoder differs from the input");
        let mb = data.len() as f64 / 1e6;
        let g = [
            cpu_rate(data.len(), || golden_sizes(data, *w)),
            cpu_rate(data.len(), || golden::encode_stream(data, *w).len()),
            cpu_rate(data.len(), || golden::decode_stream(&stream, data.len(), *w).unwrap().len()),
        ];
        let f = [
            cpu_rate(data.len(), || fast_sizes(data, *w)),
            cpu_rate(data.len(), || fast::encode_stream(data, *w).len()),
            cpu_rate(data.len(), || fast::decode_stream(&stream, data.len(), *w).unwrap().len()),
        ];
        let mut decoded = vec![0u8; data.len()];
        let decoded = std::sync::Mutex::new(&mut decoded[..]);
        let encoded = std::sync::Mutex::new(Vec::new());
        let p = [
            wall_rates(&pools, data.len(), || par_sizes(data, *w)),
            wall_rates(&pools, data.len(), || {
                let mut out = encoded.lock().expect("one caller at a time");
                fast::par_encode_stream_into(data, *w, &mut out);
                out.len()
            }),
            wall_rates(&pools, data.len(), || {
                let mut dst = decoded.lock().expect("one caller at a time");
                fast::par_decode_into(&stream, &mut dst, *w).unwrap();
                dst.len()
            }),
        ];
        let mut rows = Vec::new();
        for path in fast::Path::available() {
            rows.push((path.name(), into_rates(path, data, &stream, *w)));
        }
        rows.push(("fast", into_rates(fast::Path::detect(), data, &stream, *w)));
        for (path, r) in rows {
            println!("{name:<14} {mb:>7.1} {path:<10} {:>9.3} {:>12.3} {:>12.3}   (CPU time, 1 core; output buffer reused)", r[0] / 1e9, r[1] / 1e9, r[2] / 1e9);
        }
        for (path, r) in [("fast+alloc", f), ("golden", g)] {
            println!("{name:<14} {mb:>7.1} {path:<10} {:>9.3} {:>12.3} {:>12.3}   (CPU time, 1 core; a fresh output per call)", r[0] / 1e9, r[1] / 1e9, r[2] / 1e9);
        }
        for (k, n) in [1, threads].into_iter().enumerate() {
            println!("{name:<14} {mb:>7.1} {:<10} {:>9.3} {:>12.3} {:>12.3}   (wall, {n}-thread pool, best of {PAR_REPS}, pools alternating)", "par", p[0][k] / 1e9, p[1][k] / 1e9, p[2][k] / 1e9);
        }
        println!("{name:<14} {mb:>7.1} {:<10} {:>8.2}x {:>11.2}x {:>11.2}x   ({threads} threads over 1)", "scaling", p[0][1] / p[0][0], p[1][1] / p[1][0], p[2][1] / p[2][0]);
    }
    println!("(GB = 10^9 bytes of uncompressed tensor; ratio of the stream: see `sim-harness ratios`)");
    println!("load average (1, 5, 15 min) at end: {}", load_average());
}
