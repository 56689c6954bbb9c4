//! Cycle-by-cycle driver of the [`CompressorLane`] rust-hdl simulation: splits transfers into
//! beats, steps the clock, applies output backpressure, collects encoded blocks with the cycle
//! they left, and optionally traces every signal to a VCD file.

use super::compressor_lane::CompressorLane;
use crate::golden::{BLOCK_BYTES, BlockEncoding, SymbolWidth, Tag};
use rust_hdl::core::vcd_probe::VCDProbe;
use rust_hdl::prelude::*;
use std::collections::VecDeque;
use std::io::Write;

/// Bytes per input beat (the shared packer's).
pub use super::beats::BEAT_BYTES;

/// One beat with the descriptor fields the lane samples alongside it.
#[derive(Clone, Debug)]
struct Beat {
    words: [u32; 8],
    last: bool,
    w16: bool,
    id: u8,
    tail_bytes: u8,
    /// First beat of a block: the driver notes the cycle it is taken, for latency.
    first: bool,
}

/// One encoded block as the lane delivered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneBlock {
    /// Tag, payload length and payload bytes (MSB-first, zero past the length, as
    /// [`crate::golden::encode_block`] returns them).
    pub encoding: BlockEncoding,
    /// The block's original 128 bytes, as carried on `out_block`.
    pub block: [u8; BLOCK_BYTES],
    /// Transfer id.
    pub id: u8,
    /// Last block of its transfer.
    pub last: bool,
    /// Cycle in which the block was taken from the output.
    pub out_cycle: u64,
    /// Cycles from its first beat being taken to its encoding appearing on the output.
    pub latency_cycles: u64,
}

/// A simulated lane plus its pending input beats and the cycle count.
pub struct LaneSim {
    lane: Box<CompressorLane>,
    beats: VecDeque<Beat>,
    block_starts: VecDeque<u64>,
    first_out_valid: Option<u64>,
    cycle: u64,
    vcd: Option<VCDProbe<Box<dyn Write>>>,
}

impl Default for LaneSim {
    fn default() -> Self {
        Self::new()
    }
}

impl LaneSim {
    /// A lane after one reset cycle, with no traffic queued.
    pub fn new() -> Self {
        let mut lane = Box::new(CompressorLane::default());
        lane.connect_all();
        check_all(lane.as_ref()).expect("lane wiring check");
        let mut sim = LaneSim {
            lane,
            beats: VecDeque::new(),
            block_starts: VecDeque::new(),
            first_out_valid: None,
            cycle: 0,
            vcd: None,
        };
        sim.lane.reset.next = true;
        sim.clock_edge();
        sim.lane.reset.next = false;
        sim.cycle = 0;
        sim
    }

    /// Traces every signal of the lane to `out` as VCD from now on (one time unit per half cycle).
    pub fn trace_to(&mut self, out: Box<dyn Write>) {
        self.vcd = Some(write_vcd_header(out, self.lane.as_ref()));
    }

    /// Stops tracing and flushes the VCD writer.
    pub fn finish_trace(&mut self) {
        self.vcd = None;
    }

    /// Queues one transfer: `bytes` cut into 32-byte beats, with the given symbol width and id.
    /// A final partial block is zero-padded by the lane (the beats past the data are not sent).
    pub fn queue_transfer(&mut self, bytes: &[u8], width: SymbolWidth, id: u8) {
        assert!(!bytes.is_empty(), "a transfer carries at least one byte");
        let all = super::beats::beat_words(bytes);
        let beats = all.len();
        let tail_bytes = (bytes.len() % BLOCK_BYTES) as u8;
        for (b, words) in all.into_iter().enumerate() {
            self.beats.push_back(Beat {
                words,
                last: b + 1 == beats,
                w16: width == SymbolWidth::W16,
                id,
                tail_bytes,
                first: b % (BLOCK_BYTES / BEAT_BYTES) == 0,
            });
        }
    }

    /// Beats queued and not yet taken by the lane.
    pub fn queued_beats(&self) -> usize {
        self.beats.len()
    }

    /// Cycles simulated since reset.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// True when no beat is queued and no block is inside the lane.
    pub fn idle(&self) -> bool {
        self.beats.is_empty() && self.block_starts.is_empty()
    }

    /// Simulates one clock cycle with the consumer's `out_ready`; returns the block taken from
    /// the output in this cycle, if any.
    pub fn step(&mut self, out_ready: bool) -> Option<LaneBlock> {
        let lane = &mut self.lane;
        match self.beats.front() {
            Some(beat) => {
                lane.beat_valid.next = true;
                for (k, w) in beat.words.iter().enumerate() {
                    lane.beat_data[k].next = (*w as u64).into();
                }
                lane.beat_last.next = beat.last;
                lane.desc_w16.next = beat.w16;
                lane.desc_id.next = (beat.id as u64).into();
                lane.desc_tail_bytes.next = (beat.tail_bytes as u64).into();
            }
            None => {
                lane.beat_valid.next = false;
                lane.beat_last.next = false;
            }
        }
        lane.out_ready.next = out_ready;
        simulate(lane.as_mut(), 1000);
        let beat_taken = lane.beat_valid.val() && lane.beat_ready.val();
        let out = if lane.out_valid.val() {
            self.first_out_valid.get_or_insert(self.cycle);
            if out_ready { Some(self.read_output()) } else { None }
        } else {
            None
        };
        if beat_taken {
            let beat = self.beats.pop_front().expect("a beat was offered");
            if beat.first {
                self.block_starts.push_back(self.cycle);
            }
        }
        self.clock_edge();
        out
    }

    fn read_output(&mut self) -> LaneBlock {
        let lane = &self.lane;
        let tag = Tag::from_bits(lane.out_tag.val().to_u32()).expect("lane emitted a reserved tag");
        let payload_bits = lane.out_len.val().to_u32();
        let mut payload: Vec<u8> = lane
            .out_payload
            .iter()
            .flat_map(|w| w.val().to_u32().to_be_bytes())
            .collect();
        payload.truncate(payload_bits.div_ceil(8) as usize);
        let mut block = [0u8; BLOCK_BYTES];
        for (k, w) in lane.out_block.iter().enumerate() {
            block[4 * k..4 * k + 4].copy_from_slice(&w.val().to_u32().to_le_bytes());
        }
        let start = self
            .block_starts
            .pop_front()
            .expect("an output block without an input block");
        let first_valid = self.first_out_valid.take().expect("output seen valid");
        LaneBlock {
            encoding: BlockEncoding {
                tag,
                payload_bits,
                payload,
            },
            block,
            id: lane.out_id.val().to_u32() as u8,
            last: lane.out_last.val(),
            out_cycle: self.cycle,
            latency_cycles: first_valid - start,
        }
    }

    fn clock_edge(&mut self) {
        for level in [true, false] {
            self.lane.clock.next = Clock { clk: level };
            simulate(self.lane.as_mut(), 1000);
            if let Some(mut vcd) = self.vcd.take() {
                vcd.timestamp(2 * self.cycle + u64::from(!level))
                    .expect("vcd timestamp");
                self.vcd = Some(write_vcd_change(vcd, self.lane.as_ref()));
            }
        }
        self.cycle += 1;
    }

    /// Runs with the output always ready until every queued block has come out (or `max_cycles`
    /// pass); returns the blocks in order.
    pub fn drain(&mut self, max_cycles: u64) -> Vec<LaneBlock> {
        let mut out = Vec::new();
        let stop = self.cycle + max_cycles;
        while !self.idle() && self.cycle < stop {
            out.extend(self.step(true));
        }
        out
    }
}

/// Cuts `bytes` into 128-byte blocks (the last zero-padded), as the lane sees a transfer.
pub fn padded_blocks(bytes: &[u8]) -> Vec<[u8; BLOCK_BYTES]> {
    bytes
        .chunks(BLOCK_BYTES)
        .map(|c| {
            let mut b = [0u8; BLOCK_BYTES];
            b[..c.len()].copy_from_slice(c);
            b
        })
        .collect()
}
