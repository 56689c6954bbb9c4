//! `stream`: tensors out and back through an [`EngineBackend`], every chunk that came from the
//! hardware checked against the golden codec: its wire bytes (the extent of the device-to-host
//! unit's image and the count its `done` reported) against the golden size model (Σ over chunks of
//! 2 + header, FORMAT.md §8); its image decoded by the golden decoder, and the bytes the
//! host-to-device lane wrote back, against the input. Any mismatch fails the run.

use crate::clock::EngineClock;
use crate::engine_backend::model::model_chunk;
use crate::engine_backend::{EngineBackend, Fidelity, Simulator, backend};
use crate::inputs::StreamTensor;
use crate::progress;
use crate::ratios::measure;
use anyhow::{Context, Result, bail};
use engine::golden::decode_stream;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// One tensor's run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TensorStream {
    /// Position in the run's whole input (before `--shard`).
    pub index: usize,
    /// Model.
    pub model: String,
    /// Tensor.
    pub name: String,
    /// dtype coded.
    pub dtype: String,
    /// Symbol width.
    pub symbol_bits: u32,
    /// Raw bytes.
    pub raw_bytes: usize,
    /// Transfers it moved in: 1, or one per 16 MiB piece of a tensor read from a file
    /// (`sim_harness::tensors::PIECE_BYTES`); each transfer adds the pipelines' fill and drain.
    #[serde(default = "one")]
    pub transfers: usize,
    /// Wire bytes the engine produced.
    pub wire_bytes: usize,
    /// Wire bytes of the golden size model.
    pub golden_wire_bytes: usize,
    /// Chunks, and how many came from the hardware simulation.
    pub chunks: usize,
    /// Chunks simulated cycle by cycle.
    pub hardware_chunks: usize,
    /// Blocks per chosen code (ZVC, DBX, BX, ZBX, raw).
    pub blocks_by_tag: [u64; 5],
    /// Device to host: engine cycles of the transfer (first beat in to last write out).
    pub cycles: u64,
    /// The same at the engine clock, ns.
    pub ns: f64,
    /// Host to device: engine cycles of the transfer (first beat in to last write out).
    pub h2d_cycles: u64,
    /// The same at the engine clock, ns.
    pub h2d_ns: f64,
    /// Hardware chunks whose wire bytes differ from the golden size model.
    pub size_mismatches: usize,
    /// Hardware chunks whose bits do not decode back to the input.
    pub roundtrip_mismatches: usize,
    /// Cycles simulated by the hardware model (all lanes).
    pub simulated_cycles: u64,
    /// CPU seconds of the hardware simulation.
    pub simulated_seconds: f64,
}

/// A whole `stream` run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct StreamReport {
    /// Backend that ran, in words.
    pub backend: String,
    /// Fidelity asked for.
    pub fidelity: Fidelity,
    /// Engine clock, MHz, and its source.
    pub clock_mhz: f64,
    /// Where the clock came from.
    pub clock_source: String,
    /// `[K, N]` when this is shard K of N of the input's tensors.
    pub shard: Option<[usize; 2]>,
    /// Tensors of the whole input (all shards).
    pub input_tensors: usize,
    /// Per tensor.
    pub tensors: Vec<TensorStream>,
    /// Sums.
    pub total: Totals,
}

/// Sums over a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Totals {
    /// Tensors.
    pub tensors: usize,
    /// Transfers (tensors, or their pieces read from files).
    #[serde(default)]
    pub transfers: usize,
    /// Raw bytes.
    pub raw_bytes: usize,
    /// Engine wire bytes.
    pub wire_bytes: usize,
    /// Golden wire bytes.
    pub golden_wire_bytes: usize,
    /// Chunks.
    pub chunks: usize,
    /// Chunks simulated cycle by cycle.
    pub hardware_chunks: usize,
    /// Blocks by code.
    pub blocks_by_tag: [u64; 5],
    /// Device-to-host engine cycles, summed over transfers.
    pub cycles: u64,
    /// Host-to-device engine cycles, summed over transfers.
    pub h2d_cycles: u64,
    /// Size mismatches.
    pub size_mismatches: usize,
    /// Round-trip mismatches.
    pub roundtrip_mismatches: usize,
    /// Simulated cycles (all lanes).
    pub simulated_cycles: u64,
    /// Seconds of hardware simulation, summed over threads (CPU time of the simulation loops).
    pub simulated_seconds: f64,
    /// Simulated cycles per second of simulation time (per core).
    pub simulated_cycles_per_s: f64,
    /// Raw MB (10^6 B) per second of simulation time through the hardware model (per core).
    pub simulated_mb_per_s: f64,
    /// Sustained device-to-host throughput: raw bytes / (cycles at the clock), GB/s.
    pub engine_gb_per_s: f64,
    /// Sustained host-to-device throughput: raw bytes / (h2d cycles at the clock), GB/s.
    pub h2d_engine_gb_per_s: f64,
}

/// Serde's default of [`TensorStream::transfers`] in reports written before it existed.
fn one() -> usize {
    1
}

/// Streams piece `piece` of tensor `t` (its coded `bytes`) as one transfer and checks it. An
/// engine error on the transfer comes back naming the tensor and the transfer.
pub fn stream_piece(b: &mut dyn EngineBackend, index: usize, t: &StreamTensor, piece: usize, bytes: &[u8], clock: &EngineClock) -> Result<TensorStream> {
    let (model, name, width) = (t.model(), t.name(), t.width());
    b.begin_transfer(index);
    let of = if t.pieces() > 1 { format!(", piece {} of {}", piece + 1, t.pieces()) } else { String::new() };
    let out = b.round_trip(bytes, width).with_context(|| format!("engine error on transfer {index} (tensor {model}:{name}{of}, {} bytes, out and back)", bytes.len()))?;
    let golden = measure(bytes, width).0.planezip;
    let (mut size_bad, mut rt_bad, mut hw, mut tags) = (0, 0, 0, [0u64; 5]);
    for (c, chunk) in out.chunks.iter().enumerate() {
        let raw = &bytes[c * engine::golden::CHUNK_BYTES..][..chunk.raw_bytes];
        // The hardware does not report its tags: those come from the size model.
        let by_tag = chunk.blocks_by_tag.or_else(|| model_chunk(raw, width).blocks_by_tag).unwrap_or_default();
        for (a, x) in tags.iter_mut().zip(by_tag) {
            *a += x;
        }
        let Some(bits) = &chunk.stream else { continue };
        hw += 1;
        if chunk.wire_bytes != measure(raw, width).0.planezip || bits.len() != chunk.wire_bytes {
            size_bad += 1;
        }
        if decode_stream(bits, raw.len(), width).ok().as_deref() != Some(raw) || chunk.restored.as_deref().is_some_and(|r| r != raw) {
            rt_bad += 1;
        }
    }
    // The engine's `done` counts the wire bytes of every chunk it moved: one more mismatch when
    // that count is not the sum of their images.
    let hw_wire: usize = out.chunks.iter().filter(|c| c.stream.is_some()).map(|c| c.wire_bytes).sum();
    if out.reported_wire_bytes.is_some_and(|r| r != hw_wire) {
        size_bad += 1;
    }
    Ok(TensorStream {
        index,
        model: model.to_owned(),
        name: name.to_owned(),
        dtype: t.dtype().to_owned(),
        symbol_bits: width.bits(),
        raw_bytes: bytes.len(),
        transfers: 1,
        wire_bytes: out.wire_bytes(),
        golden_wire_bytes: golden,
        chunks: out.chunks.len(),
        hardware_chunks: hw,
        blocks_by_tag: tags,
        cycles: out.cycles,
        ns: clock.ns(out.cycles),
        h2d_cycles: out.h2d_cycles,
        h2d_ns: clock.ns(out.h2d_cycles),
        size_mismatches: size_bad,
        roundtrip_mismatches: rt_bad,
        simulated_cycles: out.simulated_cycles,
        simulated_seconds: out.simulated_seconds,
    })
}

impl TensorStream {
    /// Adds the next transfer `p` of the same tensor: bytes, chunks, cycles and mismatches sum
    /// (transfers run back to back on the engine).
    fn absorb(&mut self, p: TensorStream, clock: &EngineClock) {
        self.raw_bytes += p.raw_bytes;
        self.transfers += p.transfers;
        self.wire_bytes += p.wire_bytes;
        self.golden_wire_bytes += p.golden_wire_bytes;
        self.chunks += p.chunks;
        self.hardware_chunks += p.hardware_chunks;
        for (a, x) in self.blocks_by_tag.iter_mut().zip(p.blocks_by_tag) {
            *a += x;
        }
        self.cycles += p.cycles;
        self.ns = clock.ns(self.cycles);
        self.h2d_cycles += p.h2d_cycles;
        self.h2d_ns = clock.ns(self.h2d_cycles);
        self.size_mismatches += p.size_mismatches;
        self.roundtrip_mismatches += p.roundtrip_mismatches;
        self.simulated_cycles += p.simulated_cycles;
        self.simulated_seconds += p.simulated_seconds;
    }
}

/// Streams `tensors` (rayon, one backend per worker), `indices[i]` being tensor i's position in
/// the whole input of `input_tensors` (they differ under `--shard`), and sums the run. Does not
/// fail on mismatches: [`check`] does.
#[allow(clippy::too_many_arguments)]
pub fn run(
    tensors: &[StreamTensor],
    indices: &[usize],
    input_tensors: usize,
    shard: Option<[usize; 2]>,
    fidelity: Fidelity,
    sample_every: usize,
    backpressure_seed: u32,
    sim: &Simulator,
    clock: &EngineClock,
    quiet: bool,
) -> Result<StreamReport> {
    let new_backend = || backend(fidelity, sample_every, backpressure_seed, sim);
    run_on(&new_backend, fidelity, tensors, indices, input_tensors, shard, clock, quiet)
}

/// [`run`] on the backends `new_backend` builds (one per worker), reported as `fidelity`: the
/// seam through which any [`EngineBackend`] runs under the stream checker. Every transfer (a
/// tensor, or a piece of one read from a file) is a work item, read when a worker takes it, so
/// memory holds a few pieces, not the input. The first engine error ends the run and comes back
/// naming its tensor and transfer.
#[allow(clippy::too_many_arguments)]
pub fn run_on(
    new_backend: &(dyn Fn() -> Box<dyn EngineBackend> + Sync),
    fidelity: Fidelity,
    tensors: &[StreamTensor],
    indices: &[usize],
    input_tensors: usize,
    shard: Option<[usize; 2]>,
    clock: &EngineClock,
    quiet: bool,
) -> Result<StreamReport> {
    let bytes: u64 = tensors.iter().map(|t| t.coded_bytes() as u64).sum();
    let bar = progress::bytes_bar(bytes, "streaming tensors", quiet);
    let describe = new_backend().describe();
    let work: Vec<(usize, usize)> = tensors.iter().enumerate().flat_map(|(i, t)| (0..t.pieces()).map(move |k| (i, k))).collect();
    let parts: Vec<(usize, TensorStream)> = work
        .par_iter()
        .map_init(new_backend, |b, &(i, k)| {
            let t = &tensors[i];
            let piece = t.piece(k).with_context(|| format!("tensor {}:{}", t.model(), t.name()))?;
            let r = stream_piece(b.as_mut(), indices[i], t, k, &piece, clock)?;
            bar.inc(piece.len() as u64);
            Ok((i, r))
        })
        .collect::<Result<_>>()?;
    bar.finish_and_clear();
    let mut rows: Vec<TensorStream> = Vec::with_capacity(tensors.len());
    let mut last = None;
    for (i, r) in parts {
        match rows.last_mut() {
            Some(row) if last == Some(i) => row.absorb(r, clock),
            _ => rows.push(r),
        }
        last = Some(i);
    }
    let total = summarize(&rows, clock.mhz);
    Ok(StreamReport { backend: describe, fidelity, clock_mhz: clock.mhz, clock_source: clock.source.clone(), shard, input_tensors, tensors: rows, total })
}

/// Sums per-tensor rows at a clock of `clock_mhz`.
pub fn summarize(rows: &[TensorStream], clock_mhz: f64) -> Totals {
    let mut s = Totals { tensors: rows.len(), ..Default::default() };
    for r in rows {
        s.raw_bytes += r.raw_bytes;
        s.transfers += r.transfers;
        s.wire_bytes += r.wire_bytes;
        s.golden_wire_bytes += r.golden_wire_bytes;
        s.chunks += r.chunks;
        s.hardware_chunks += r.hardware_chunks;
        for (a, x) in s.blocks_by_tag.iter_mut().zip(r.blocks_by_tag) {
            *a += x;
        }
        s.cycles += r.cycles;
        s.h2d_cycles += r.h2d_cycles;
        s.size_mismatches += r.size_mismatches;
        s.roundtrip_mismatches += r.roundtrip_mismatches;
        s.simulated_cycles += r.simulated_cycles;
        s.simulated_seconds += r.simulated_seconds;
    }
    // Raw bytes through the hardware: every byte when every chunk went, else whole chunks.
    let hw_bytes: usize = rows.iter().map(|r| if r.hardware_chunks == r.chunks { r.raw_bytes } else { (r.hardware_chunks * engine::golden::CHUNK_BYTES).min(r.raw_bytes) }).sum();
    if s.simulated_seconds > 0.0 {
        s.simulated_cycles_per_s = s.simulated_cycles as f64 / s.simulated_seconds;
        s.simulated_mb_per_s = hw_bytes as f64 / 1e6 / s.simulated_seconds;
    }
    if s.cycles > 0 {
        s.engine_gb_per_s = s.raw_bytes as f64 / (s.cycles as f64 * 1e3 / clock_mhz);
    }
    if s.h2d_cycles > 0 {
        s.h2d_engine_gb_per_s = s.raw_bytes as f64 / (s.h2d_cycles as f64 * 1e3 / clock_mhz);
    }
    s
}

/// Combines `stream --shard` reports of one input into the whole input's report: same backend
/// and clock, every tensor exactly once.
pub fn merge(parts: Vec<(std::path::PathBuf, StreamReport)>) -> Result<StreamReport> {
    let Some((first_path, first)) = parts.first() else { bail!("merge: no stream files given") };
    let first = first.clone();
    let mut rows: std::collections::BTreeMap<usize, TensorStream> = std::collections::BTreeMap::new();
    for (path, p) in &parts {
        if p.backend != first.backend || p.clock_mhz != first.clock_mhz || p.input_tensors != first.input_tensors {
            bail!("{}: another backend, clock or input than {}", path.display(), first_path.display());
        }
        for r in &p.tensors {
            if r.index >= first.input_tensors || rows.insert(r.index, r.clone()).is_some() {
                bail!("{}: tensor {} outside the input or in two shards", path.display(), r.index);
            }
        }
    }
    if let Some(missing) = (0..first.input_tensors).find(|i| !rows.contains_key(i)) {
        bail!("merge: tensor {missing} of {} is in no stream file (is a shard missing?)", first.input_tensors);
    }
    let tensors: Vec<TensorStream> = rows.into_values().collect();
    let total = summarize(&tensors, first.clock_mhz);
    Ok(StreamReport { shard: None, tensors, total, ..first })
}

/// Fails loudly when any hardware chunk disagreed with the golden codec.
pub fn check(r: &StreamReport) -> Result<()> {
    let t = &r.total;
    if t.wire_bytes != t.golden_wire_bytes {
        bail!("engine produced {} wire bytes, the golden size model {}", t.wire_bytes, t.golden_wire_bytes);
    }
    if t.size_mismatches > 0 || t.roundtrip_mismatches > 0 {
        let bad: Vec<String> = r
            .tensors
            .iter()
            .filter(|x| x.size_mismatches + x.roundtrip_mismatches > 0)
            .take(5)
            .map(|x| format!("{}:{} (transfer {}: {} size, {} round-trip)", x.model, x.name, x.index, x.size_mismatches, x.roundtrip_mismatches))
            .collect();
        bail!(
            "engine disagrees with the golden codec: {} size mismatches, {} round-trip mismatches (first tensors: {})",
            t.size_mismatches,
            t.roundtrip_mismatches,
            bad.join(", ")
        );
    }
    Ok(())
}

/// The run as text.
pub fn render(r: &StreamReport, per_tensor: bool) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let t = &r.total;
    let _ = writeln!(s, "Engine backend: {}", r.backend);
    let _ = writeln!(s, "Engine clock: {:.1} MHz ({})", r.clock_mhz, r.clock_source);
    let _ = writeln!(s, "Directions: device to host through pz_engine (wire bytes = the image its writes built and the count its done reported), host to device through pz_engine fed that image; both checked against the golden codec");
    if per_tensor {
        let _ = writeln!(s, "\n{:<18} {:<12} {:>6} {:>12} {:>12} {:>8} {:>7} {:>10} {:>12} {:>10} {:>12} {:>5} {:>5}", "model", "tensor", "dtype", "raw B", "wire B", "ratio", "hw/ch", "d2h cyc", "d2h ns", "h2d cyc", "h2d ns", "size!", "rt!");
        for x in &r.tensors {
            let _ = writeln!(
                s,
                "{:<18} {:<12} {:>6} {:>12} {:>12} {:>7.3}x {:>3}/{:<3} {:>10} {:>12.0} {:>10} {:>12.0} {:>5} {:>5}",
                x.model, x.name, x.dtype, x.raw_bytes, x.wire_bytes, x.raw_bytes as f64 / x.wire_bytes.max(1) as f64, x.hardware_chunks, x.chunks, x.cycles, x.ns, x.h2d_cycles, x.h2d_ns, x.size_mismatches, x.roundtrip_mismatches
            );
        }
    }
    let n: u64 = t.blocks_by_tag.iter().sum();
    let moved = if t.transfers > t.tensors { format!(" in {} transfers (file tensors above {} MiB move a piece per transfer)", t.transfers, crate::tensors::PIECE_BYTES >> 20) } else { String::new() };
    let _ = writeln!(s, "\n{} tensors{moved}, {} raw bytes -> {} wire bytes ({:.3}x; golden size model: {} bytes)", t.tensors, t.raw_bytes, t.wire_bytes, t.raw_bytes as f64 / t.wire_bytes.max(1) as f64, t.golden_wire_bytes);
    let _ = writeln!(s, "chunks: {} of {} simulated cycle by cycle both ways; blocks by code (size model): {}", t.hardware_chunks, t.chunks,
        crate::measure::CODES.iter().zip(t.blocks_by_tag).map(|(c, k)| format!("{c} {k} ({:.1} %)", 100.0 * k as f64 / n.max(1) as f64)).collect::<Vec<_>>().join(", "));
    let _ = writeln!(s, "size mismatches: {}, round-trip mismatches: {}", t.size_mismatches, t.roundtrip_mismatches);
    let lanes = crate::engine_backend::LANES_PER_DIRECTION;
    let _ = writeln!(s, "engine, device to host: {} cycles over all transfers = {:.1} us at {:.1} MHz; sustained {:.2} GB/s ({lanes} lanes)", t.cycles, r.clock_mhz.recip() * t.cycles as f64, r.clock_mhz, t.engine_gb_per_s);
    let _ = writeln!(s, "engine, host to device: {} cycles over all transfers = {:.1} us at {:.1} MHz; sustained {:.2} GB/s ({lanes} lanes)", t.h2d_cycles, r.clock_mhz.recip() * t.h2d_cycles as f64, r.clock_mhz, t.h2d_engine_gb_per_s);
    if t.simulated_seconds > 0.0 {
        let _ = writeln!(s, "simulation: {} cycles (all lanes, both directions) in {:.2} s of simulation loops = {:.0} simulated cycles/s per core, {:.3} MB/s (raw, round trip) per core", t.simulated_cycles, t.simulated_seconds, t.simulated_cycles_per_s, t.simulated_mb_per_s);
    }
    s
}
