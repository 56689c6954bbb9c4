//! `cycle` fidelity: every block through the compressor lane's rust-hdl simulation, cycle by
//! cycle, at its real input rate (one 32-byte beat per cycle per lane), with optional random
//! output backpressure. Chunks alternate between the two lanes of the direction; the blocks'
//! bits are packed into chunks by [`super::ChunkPacker`].

use super::{BLOCK_BYTES, CHUNK_BYTES, ChunkOut, ChunkPacker, EngineBackend, LANES_PER_DIRECTION, TAG_BITS, TransferOut};
use anyhow::{Result, ensure};
use engine::golden::SymbolWidth;
use engine::hw::LaneSim;
use cpu_time::ThreadTime;

/// Cycles a lane may take per block before the run is declared hung (backpressure included).
const MAX_CYCLES_PER_BLOCK: u64 = 64;

/// The rust-hdl lanes of one direction.
pub struct CycleBackend {
    lanes: Vec<LaneSim>,
    /// xorshift32 state of the output-ready pattern (0 = always ready).
    ready_state: u32,
}

impl CycleBackend {
    /// Two freshly reset lanes; `backpressure_seed` 0 keeps `out_ready` high.
    pub fn new(backpressure_seed: u32) -> Self {
        CycleBackend { lanes: (0..LANES_PER_DIRECTION).map(|_| LaneSim::new()).collect(), ready_state: backpressure_seed }
    }

    fn out_ready(&mut self) -> bool {
        if self.ready_state == 0 {
            return true;
        }
        let mut x = self.ready_state;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.ready_state = x;
        x % 4 != 0
    }

    /// Streams `chunks` (raw bytes each) through lane `lane`; returns per chunk the packed wire
    /// bytes and the blocks by tag, plus the cycles the lane took.
    fn run_lane(&mut self, lane: usize, chunks: &[&[u8]], width: SymbolWidth) -> Result<(Vec<ChunkOut>, u64)> {
        let expected: usize = chunks.iter().map(|c| c.len().div_ceil(BLOCK_BYTES)).sum();
        for (i, c) in chunks.iter().enumerate() {
            self.lanes[lane].queue_transfer(c, width, i as u8);
        }
        let start = self.lanes[lane].cycle();
        let limit = start + MAX_CYCLES_PER_BLOCK * expected as u64 + 64;
        let mut blocks = Vec::with_capacity(expected);
        while !self.lanes[lane].idle() {
            ensure!(self.lanes[lane].cycle() < limit, "lane {lane}: {} of {expected} blocks out after {} cycles (hung)", blocks.len(), limit - start);
            let ready = self.out_ready();
            blocks.extend(self.lanes[lane].step(ready));
        }
        ensure!(blocks.len() == expected, "lane {lane} delivered {} of {expected} blocks", blocks.len());
        let mut out = Vec::with_capacity(chunks.len());
        let mut it = blocks.into_iter();
        for c in chunks {
            let mut packer = ChunkPacker::default();
            let mut by_tag = [0u64; 5];
            for _ in 0..c.len().div_ceil(BLOCK_BYTES) {
                let b = it.next().expect("counted above");
                let tag = b.encoding.tag as u32;
                by_tag[tag as usize] += 1;
                packer.put(tag, TAG_BITS);
                packer.put_bytes(&b.encoding.payload, b.encoding.payload_bits);
            }
            let stream = packer.finish(c);
            out.push(ChunkOut { raw_bytes: c.len(), wire_bytes: stream.len(), stream: Some(stream), blocks_by_tag: by_tag });
        }
        Ok((out, self.lanes[lane].cycle() - start))
    }

    /// Streams the chunks with the given indices of `data` (chunk `c` on lane `c mod 2`);
    /// returns them in index order with the busiest lane's cycles and all lanes' cycles.
    pub fn run_chunks(&mut self, data: &[u8], indices: &[usize], width: SymbolWidth) -> Result<(Vec<(usize, ChunkOut)>, u64, u64)> {
        let mut out = Vec::with_capacity(indices.len());
        let (mut busiest, mut total) = (0u64, 0u64);
        for lane in 0..LANES_PER_DIRECTION {
            let mine: Vec<usize> = indices.iter().copied().filter(|c| c % LANES_PER_DIRECTION == lane).collect();
            if mine.is_empty() {
                continue;
            }
            let slices: Vec<&[u8]> = mine.iter().map(|&c| &data[c * CHUNK_BYTES..((c + 1) * CHUNK_BYTES).min(data.len())]).collect();
            let (chunks, cycles) = self.run_lane(lane, &slices, width)?;
            busiest = busiest.max(cycles);
            total += cycles;
            out.extend(mine.into_iter().zip(chunks));
        }
        out.sort_by_key(|(c, _)| *c);
        Ok((out, busiest, total))
    }
}

impl EngineBackend for CycleBackend {
    fn describe(&self) -> String {
        let bp = if self.ready_state == 0 { "output always ready" } else { "random output backpressure" };
        format!("cycle: rust-hdl simulation of the compressor lane, every block cycle by cycle, {LANES_PER_DIRECTION} lanes, {bp}")
    }

    fn compress(&mut self, data: &[u8], width: SymbolWidth) -> Result<TransferOut> {
        let all: Vec<usize> = (0..data.len().div_ceil(CHUNK_BYTES)).collect();
        let t = ThreadTime::now();
        let (chunks, cycles, simulated) = self.run_chunks(data, &all, width)?;
        Ok(TransferOut { chunks: chunks.into_iter().map(|(_, c)| c).collect(), cycles, simulated_cycles: simulated, simulated_seconds: t.elapsed().as_secs_f64() })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{CYCLES_PER_BLOCK, LATENCY_CYCLES, model_cycles};
    use super::*;

    fn data(n: usize) -> Vec<u8> {
        (0..n as u32).flat_map(|i| ((i % 97) as f32 * 0.25).to_le_bytes()).take(n).collect()
    }

    #[test]
    fn always_ready_timing_is_the_published_latency_model() {
        let mut b = CycleBackend::new(0);
        // Three chunks: lane 0 gets chunks 0 and 2 (64 blocks), lane 1 chunk 1.
        let d = data(3 * CHUNK_BYTES);
        let out = b.compress(&d, SymbolWidth::W32).unwrap();
        assert_eq!(out.chunks.len(), 3);
        assert_eq!(out.cycles, 63 * CYCLES_PER_BLOCK + LATENCY_CYCLES + 1);
        assert_eq!(out.cycles, model_cycles(d.len()));
        assert!(out.chunks.iter().all(|c| c.stream.as_ref().is_some_and(|s| s.len() == c.wire_bytes)));
    }

    #[test]
    fn backpressure_slows_the_lane_but_not_its_output() {
        let d = data(CHUNK_BYTES + 300);
        let free = CycleBackend::new(0).compress(&d, SymbolWidth::W16).unwrap();
        let held = CycleBackend::new(12345).compress(&d, SymbolWidth::W16).unwrap();
        assert!(held.cycles > free.cycles, "{} vs {}", held.cycles, free.cycles);
        let bytes = |o: &TransferOut| o.chunks.iter().map(|c| c.stream.clone().unwrap()).collect::<Vec<_>>();
        assert_eq!(bytes(&free), bytes(&held));
        assert_eq!(free.chunks[1].raw_bytes, 300);
    }
}
