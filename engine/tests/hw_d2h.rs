//! `pz_d2h_lane` (compressor lane + chunk packer) in the rust-hdl simulation: the host-memory
//! image its writes build equals `golden`'s chunk stream byte for byte, and its `done` reports
//! golden's wire bytes — on FORMAT.md example E, on lengths around every beat, block and chunk
//! boundary at both widths, on incompressible tensors (raw chunks), across width changes and an
//! empty transfer, with input bubbles and output backpressure; and the sustained rate (4.000
//! cycles per block) and the packer's added latency. The bulk (every tensor of `data/`) runs in
//! Verilator: `cocotb-free-tests/tests/d2h.rs`.

use engine::golden::{BLOCK_BYTES, CHUNK_BYTES, SymbolWidth};
use engine::hw::d2h_driver::{D2hSim, ImageSummary, Transfer, check_images};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Activation-like bytes (engine::synth blocks), cut to `len`.
fn activation_bytes(rng: &mut ChaCha8Rng, width: SymbolWidth, len: usize) -> Vec<u8> {
    (0..len.div_ceil(BLOCK_BYTES)).flat_map(|_| engine::synth::activation_block(rng, width)).take(len).collect()
}

/// Runs `transfers` through a fresh unit with `pattern(cycle)` = (offer beat, write ready) and
/// checks every image against golden; returns the simulation and the summary.
fn run(transfers: &[Transfer], pattern: impl FnMut(u64) -> (bool, bool)) -> (D2hSim, ImageSummary) {
    let mut sim = D2hSim::new();
    for t in transfers {
        sim.queue(t);
    }
    let bytes: usize = transfers.iter().map(|t| t.bytes.len()).sum();
    sim.run(64 + 40 * bytes as u64 / 32 + 300 * transfers.len() as u64, pattern);
    assert!(sim.idle(), "the unit stalled: {} of {} transfers done after {} cycles", sim.trace.dones.len(), transfers.len(), sim.cycle());
    let summary = check_images(transfers, &sim.trace).unwrap_or_else(|e| panic!("{e}"));
    (sim, summary)
}

fn always(_: u64) -> (bool, bool) {
    (true, true)
}

fn xorshift(x: &mut u32) -> u32 {
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    *x
}

/// FORMAT.md example E: fifty f32 1.0 values, one chunk of two blocks; the stream bytes are the
/// hand-derived ones of the format document.
#[test]
fn example_e_gives_the_documented_stream() {
    let bytes: Vec<u8> = (0..50).flat_map(|_| 1.0f32.to_le_bytes()).collect();
    let t = Transfer { id: 7, width: SymbolWidth::W32, bytes };
    let (sim, sum) = run(std::slice::from_ref(&t), always);
    let documented: Vec<u8> = (0..14).map(|i| u8::from_str_radix(&"0c004800900d120ffffe000240b4"[2 * i..2 * i + 2], 16).unwrap()).collect();
    assert_eq!(sum.wire_bytes, documented.len() as u64);
    assert_eq!(sim.trace.dones[0].wire_bytes, 14);
    // The body (12 bytes at 2..14) is one flush write, the header a two-byte write at 0.
    let w = &sim.trace.writes;
    assert_eq!(w.len(), 2, "{w:?}");
    assert_eq!((w[0].addr, w[0].be, &w[0].data[2..14]), (0, 0x3FFC, &documented[2..14]));
    assert_eq!((w[1].addr, w[1].be, &w[1].data[..2], w[1].last), (0, 0x3, &documented[..2], true));
    // Packer latency: the transfer's last block leaves the lane → its body's flush write (the
    // block's bits fit in one partial beat) → the header write → done.
    let last_block = *sim.lane_block_cycles.last().unwrap();
    eprintln!(
        "example E: last block taken from the lane in cycle {last_block}; flush write {}, header write {}, done {} (cycles after it: {}, {}, {})",
        w[0].cycle,
        w[1].cycle,
        sim.trace.dones[0].cycle,
        w[0].cycle - last_block,
        w[1].cycle - last_block,
        sim.trace.dones[0].cycle - last_block
    );
    assert_eq!(w[1].cycle - last_block, 4, "a 1-cycle block, flush, header: written 4 cycles after the block left the lane");
}

/// Lengths around every beat (32 B), block (128 B) and chunk (4 KB) boundary up to ≈ 8.3 KB,
/// back to back in one run per width.
fn boundary_lengths() -> Vec<usize> {
    let mut v = vec![1, 2, 5, 31, 32, 33, 127, 128, 129, 200, 255, 256, 257, 1000];
    for c in [CHUNK_BYTES, 2 * CHUNK_BYTES] {
        v.extend([c - BLOCK_BYTES - 1, c - 1, c, c + 1, c + 31, c + 32, c + 127, c + 128]);
    }
    v.push(2 * CHUNK_BYTES + 129);
    v
}

#[test]
fn boundary_lengths_match_golden_at_both_widths() {
    for (seed, width) in [(1u64, SymbolWidth::W32), (2, SymbolWidth::W16)] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let transfers: Vec<Transfer> = boundary_lengths()
            .into_iter()
            .enumerate()
            .map(|(i, len)| Transfer { id: i as u8, width, bytes: activation_bytes(&mut rng, width, len) })
            .collect();
        let t = std::time::Instant::now();
        let (sim, sum) = run(&transfers, always);
        eprintln!(
            "{width:?}: {} transfers, {} bytes → {} wire bytes, {} writes, {} raw chunks, {} cycles ({:.1} s)",
            sum.transfers,
            transfers.iter().map(|t| t.bytes.len()).sum::<usize>(),
            sum.wire_bytes,
            sum.writes,
            sum.raw_chunks,
            sim.cycle(),
            t.elapsed().as_secs_f64()
        );
        assert!(sum.raw_chunks >= 1, "the tiny transfers (1, 2, 5 bytes) store their chunk raw");
    }
}

/// Random bytes: every chunk raw, each replayed from the chunk buffer; the link bytes the body
/// wrote before the chunk turned raw are counted.
#[test]
fn incompressible_tensors_are_stored_raw() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let transfers: Vec<Transfer> = [(2 * CHUNK_BYTES + 300, SymbolWidth::W32), (CHUNK_BYTES + 77, SymbolWidth::W16)]
        .into_iter()
        .enumerate()
        .map(|(i, (len, width))| Transfer { id: 40 + i as u8, width, bytes: (0..len).map(|_| rng.r#gen()).collect() })
        .collect();
    let (sim, sum) = run(&transfers, always);
    assert_eq!(sum.raw_chunks, 5, "every chunk of random bytes is raw");
    let beats: usize = transfers.iter().map(|t| t.bytes.len().div_ceil(32)).sum();
    eprintln!(
        "raw: {} wire bytes, {} bytes written ({} wasted: {:.1} % of the wire bytes), {} cycles for {beats} input beats",
        sum.wire_bytes,
        sum.written_bytes,
        sum.written_bytes - sum.wire_bytes,
        100.0 * (sum.written_bytes - sum.wire_bytes) as f64 / sum.wire_bytes as f64,
        sim.cycle()
    );
}

/// Transfers of random lengths, the symbol width changing between them, an empty transfer in
/// the middle; beats offered about three cycles in four (bubbles inside blocks) and writes taken
/// about three in four.
#[test]
fn width_changes_bubbles_backpressure_and_an_empty_transfer() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut transfers = Vec::new();
    for i in 0..12u8 {
        let width = if i % 2 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
        let len = if i == 5 { 0 } else { rng.gen_range(1..5000) };
        transfers.push(Transfer { id: 100 + i, width, bytes: activation_bytes(&mut rng, width, len) });
    }
    let (mut a, mut b) = (0x9e37_79b9u32, 0x1234_5678u32);
    let (sim, sum) = run(&transfers, |_| (xorshift(&mut a) & 3 != 0, xorshift(&mut b) & 3 != 0));
    assert_eq!(sim.trace.dones[5].wire_bytes, 0, "an empty transfer is done with no wire bytes");
    let gaps = sim.trace.beat_cycles.windows(2).filter(|w| w[1] - w[0] > 1).count();
    assert!(gaps > 100, "beats were taken with bubbles ({gaps} gaps)");
    eprintln!("mixed: {} transfers, {} wire bytes, {} cycles, {gaps} input gaps", sum.transfers, sum.wire_bytes, sim.cycle());
}

/// Input cycles a chunk boundary may cost at most: the packer's flush and header cycles, in which
/// it takes no block (docs/HARDWARE.md, "Chunk packer"). The lane's output register absorbs up to
/// 2 cycles of such lateness and blocks of fewer than 4 full beats win it back, so on this data
/// the measured cost is far below the bound; a lane or packer that lost a cycle per block or per
/// beat would exceed it.
const BOUNDARY_STALL_CYCLES_MAX: usize = 2;

/// 16 KB of activation-like data per width with nothing throttling: a beat every cycle from
/// the first to the last except at most [`BOUNDARY_STALL_CYCLES_MAX`] per chunk boundary
/// (4.000 cycles per block inside a chunk through lane and packer), and the lane's blocks reach
/// the packer every 4 cycles but for those stalls.
#[test]
fn lane_and_packer_sustain_four_cycles_per_block() {
    for (seed, width) in [(5u64, SymbolWidth::W32), (6, SymbolWidth::W16)] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let t = Transfer { id: 1, width, bytes: activation_bytes(&mut rng, width, 4 * CHUNK_BYTES) };
        let (sim, sum) = run(std::slice::from_ref(&t), always);
        let beats = &sim.trace.beat_cycles;
        let blocks = t.bytes.len() / BLOCK_BYTES;
        let span = beats.last().unwrap() - beats[0] + 1;
        let lane = &sim.lane_block_cycles;
        let lane_span = lane.last().unwrap() - lane[0];
        eprintln!(
            "{width:?}: {blocks} blocks; beats taken over {span} cycles = {:.3} cycles/block; blocks left the lane every {:.3} cycles; ratio {:.2}",
            4.0 * span as f64 / beats.len() as f64,
            lane_span as f64 / (lane.len() - 1) as f64,
            t.bytes.len() as f64 / sum.wire_bytes as f64
        );
        let boundaries = t.bytes.len().div_ceil(CHUNK_BYTES) - 1;
        let stalls = span as usize - beats.len();
        assert!(stalls <= BOUNDARY_STALL_CYCLES_MAX * boundaries, "{stalls} stall cycles over {boundaries} chunk boundaries");
        assert!(lane_span <= 4 * (blocks as u64 - 1) + stalls as u64, "a block every 4 cycles into the packer but for the stalls");
    }
}
