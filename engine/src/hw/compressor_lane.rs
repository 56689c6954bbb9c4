//! The compressor lane (paper §III-A, Fig. 2, §III-D): 128-byte blocks in as 32-byte beats, one
//! encoded block out every 4 cycles — all four codes sized in parallel, the smallest (or raw)
//! chosen with the FORMAT.md tie-break, and its bits emitted MSB-first. Bit-exact to
//! [`crate::golden::encode_block`]; `docs/HARDWARE.md` draws the stages.
//!
//! # Ports
//! * Input beat (valid/ready; `beat_ready` is a flop, the room of a 2-entry input register):
//!   `beat_data[k]` is the little-endian 32-bit word at byte `4k` of the beat; beat `b` of a
//!   block carries bytes `32b … 32b+31`. `beat_last` marks the last beat of a transfer; it
//!   closes the block even before its fourth beat.
//! * Descriptor, taken with each beat (constant over a transfer): `desc_w16` (16-bit symbols,
//!   N = 64; else 32-bit, N = 32), `desc_id` (echoed on every output block), `desc_tail_bytes`
//!   (valid bytes of the final block, 0 = all 128; the rest is zero-padded as FORMAT.md pads a
//!   final partial block; the tail lies in the transfer's last beat, as a byte count makes it:
//!   beats before it are whole).
//! * Output (valid/ready), one transaction per block: `out_tag` (3 bits), `out_len` (payload
//!   bits), `out_payload[k]` = payload bits `32k … 32k+31` with the first bit in bit 31 (zero past
//!   `out_len`), `out_block` = the block's original words (as input), `out_id`, `out_last`
//!   (the transfer's final block). Read them only while `out_valid` is high.
//!
//! # Stages (one block every 4 cycles, latency [`LATENCY_CYCLES`])
//! 1. gather ([`GatherStage`]): the beats enter its 2-entry input register (one cycle), then
//!    three wait in flops and the fourth (or `beat_last`) beat loads the stage-1 register
//!    directly. Each beat's compaction shifts (zero slots before each nonzero symbol) are
//!    counted as it arrives, so no stage counts over the whole block.
//! 2. stage 1 ([`SymbolStage`], one cycle): the compaction network, the BX values, the DBX deltas
//!    (Kogge–Stone subtractors), the nonzero mask and count, registered in its output flops,
//!    which hold the block through stage 2.
//! 3. stage 2 ([`PlaneStats`] ×3, [`ZeroRuns`] ×3, `s2_*`), [`CHOICE_CYCLES`] + 1 cycles: plane
//!    classes, partial sums and zero runs of DBX, BX and ZBX; then every code's size and the
//!    choice by parallel compares, registered ([`SizeChoice`]); then the chosen code's planes
//!    (or ZVC/raw words) loaded into the plane queue ([`ChoiceStage`]: 36 slots, a header and up
//!    to 33 planes, top plane first).
//! 4. emitter, two stages stepping together, 9 queue slots per cycle for 4 cycles:
//!    [`PlaneCoder`] (codes and bit offsets by prefix) → [`PiecePlacer`] (funnel shift, AND-OR
//!    placement into the payload buffer).
//! 5. output register (`o_*`): the payload when the placer has completed it, with the block's
//!    tag, length, id and original words, which wait in `fin_*` from the coder's last group.
//!
//! Every sub-block's outputs are its own flops, and the lane's own logic between them is flow
//! control and wiring, so a per-module timing check covers every path (Verilator's lint sees no
//! loops). The original block is held by the gather and stage-1 flops, then by the symbol
//! stage's BX flops (the BX values are the symbols), then `em_words`, `fin_words` (while the
//! placer completes the payload) and `o_block`.

use super::choice_stage::ChoiceStage;
use super::gather_stage::GatherStage;
use super::hdl_util::{arr, d};
use super::piece_placer::PiecePlacer;
use super::plane_coder::PlaneCoder;
use super::plane_stats::PlaneStats;
use super::size_choice::{CHOICE_CYCLES, SizeChoice};
use super::symbol_stage::SymbolStage;
use super::zero_runs::ZeroRuns;
use rust_hdl::prelude::*;

/// Slots of the emitter's plane queue: a header and 33 planes (DBX, 32-bit symbols), rounded up
/// to 4 cycles × [`GROUP_SLOTS`](super::plane_coder::GROUP_SLOTS).
pub const QUEUE_PLANES: usize = 36;
/// Cycles the lane spends on each block (its initiation interval).
pub const CYCLES_PER_BLOCK: u64 = 4;
/// Cycles from the first beat of a block taken to its encoding on the output: input register 1,
/// gather 4, stage 1 (symbol stage) 1, stage 2 [`CHOICE_CYCLES`] + 1, coder 4, placer 1, output
/// register 1.
pub const LATENCY_CYCLES: u64 = 13 + CHOICE_CYCLES;
/// FORMAT.md §4 tag of ZVC.
pub const TAG_ZVC: u64 = 0;
/// FORMAT.md §4 tag of DBX.
pub const TAG_DBX: u64 = 1;
/// FORMAT.md §4 tag of BX.
pub const TAG_BX: u64 = 2;
/// FORMAT.md §4 tag of ZBX.
pub const TAG_ZBX: u64 = 3;
/// FORMAT.md §4 tag of raw.
pub const TAG_RAW: u64 = 4;

hw_block! {
/// One compressor lane; see the module docs for ports and stages.
#[derive(LogicBlock)]
pub struct CompressorLane {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Synchronous reset: empties every stage.
    pub reset: Signal<In, Bit> = d(),
    /// A beat is offered.
    pub beat_valid: Signal<In, Bit> = d(),
    /// The lane takes the offered beat this cycle.
    pub beat_ready: Signal<Out, Bit> = d(),
    /// The 32-byte beat as 8 little-endian 32-bit words.
    pub beat_data: [Signal<In, Bits<32>>; 8] = arr(),
    /// Last beat of the transfer: closes the block.
    pub beat_last: Signal<In, Bit> = d(),
    /// Descriptor: 16-bit symbols (bf16/f16); else 32-bit.
    pub desc_w16: Signal<In, Bit> = d(),
    /// Descriptor: transfer id, echoed on the output.
    pub desc_id: Signal<In, Bits<8>> = d(),
    /// Descriptor: valid bytes of the transfer's final block (0 = 128).
    pub desc_tail_bytes: Signal<In, Bits<7>> = d(),
    /// An encoded block is offered.
    pub out_valid: Signal<Out, Bit> = d(),
    /// The consumer takes the offered block this cycle.
    pub out_ready: Signal<In, Bit> = d(),
    /// Tag of the chosen code (FORMAT.md: 0 ZVC, 1 DBX, 2 BX, 3 ZBX, 4 raw).
    pub out_tag: Signal<Out, Bits<3>> = d(),
    /// Payload length in bits (tag excluded), at most 1,024.
    pub out_len: Signal<Out, Bits<11>> = d(),
    /// Payload bits `32k … 32k+31`, first bit in bit 31.
    pub out_payload: [Signal<Out, Bits<32>>; 32] = arr(),
    /// The block's original 32 words, for a chunk packer that stores a chunk raw.
    pub out_block: [Signal<Out, Bits<32>>; 32] = arr(),
    /// Transfer id of the block.
    pub out_id: Signal<Out, Bits<8>> = d(),
    /// The block closes its transfer.
    pub out_last: Signal<Out, Bit> = d(),
    gather: GatherStage = d(),
    symbols: SymbolStage = d(),
    stats_dbx: PlaneStats = d(),
    stats_bx: PlaneStats = d(),
    stats_zbx: PlaneStats = d(),
    runs_dbx: ZeroRuns = d(),
    runs_bx: ZeroRuns = d(),
    runs_zbx: ZeroRuns = d(),
    sizes: SizeChoice = d(),
    choice: ChoiceStage = d(),
    coder: PlaneCoder = d(),
    placer: PiecePlacer = d(),
    s2_valid: DFF<Bit> = d(),
    /// Cycles the block has spent in stage 2, saturating at the registered choice's latency.
    s2_age: DFF<Bits<2>> = d(),
    /// [`CHOICE_CYCLES`] as a Verilog constant.
    choice_cycles: Constant<Bits<2>> = Constant::new(CHOICE_CYCLES.into()),
    s2_id: DFF<Bits<8>> = d(),
    s2_last: DFF<Bit> = d(),
    fin_words: [DFF<Bits<32>>; 32] = arr(),
    fin_tag: DFF<Bits<3>> = d(),
    fin_len: DFF<Bits<11>> = d(),
    fin_id: DFF<Bits<8>> = d(),
    fin_last: DFF<Bit> = d(),
    o_valid: DFF<Bit> = d(),
    o_tag: DFF<Bits<3>> = d(),
    o_len: DFF<Bits<11>> = d(),
    o_payload: [DFF<Bits<32>>; 32] = arr(),
    o_block: [DFF<Bits<32>>; 32] = arr(),
    o_id: DFF<Bits<8>> = d(),
    o_last: DFF<Bit> = d(),
    em_last_group: Signal<Local, Bit> = d(),
    em_stall: Signal<Local, Bit> = d(),
    em_step: Signal<Local, Bit> = d(),
    em_finish: Signal<Local, Bit> = d(),
    em_free: Signal<Local, Bit> = d(),
    s2_move: Signal<Local, Bit> = d(),
    s2_free: Signal<Local, Bit> = d(),
    s1_move: Signal<Local, Bit> = d(),
    s1_free: Signal<Local, Bit> = d(),
}
}

impl Logic for CompressorLane {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- every flop holds unless overridden below
        dff_setup!(
            self,
            clock,
            s2_valid,
            s2_age,
            s2_id,
            s2_last,
            fin_tag,
            fin_len,
            fin_id,
            fin_last,
            o_valid,
            o_tag,
            o_len,
            o_id,
            o_last
        );
        for i in 0..32 {
            self.fin_words[i].clock.next = self.clock.val();
            self.fin_words[i].d.next = self.fin_words[i].q.val();
            self.o_payload[i].clock.next = self.clock.val();
            self.o_payload[i].d.next = self.o_payload[i].q.val();
            self.o_block[i].clock.next = self.clock.val();
            self.o_block[i].d.next = self.o_block[i].q.val();
        }

        // ---- flow control: a stage moves on when the next one is empty or moving too. The
        // emitter (queue, coder, placer, `fin_*`) steps as a whole; it freezes when the placer
        // holds a complete payload and the output register holds a block, taken or not: the
        // enables of the emitter and of stages 1–2 (about 13,000 flops) then come from flops
        // only, not from `out_ready` (the packer's combinational `blk_ready`, which through
        // them and their buffer trees made an 826 ps path). A block taken from the output
        // register lets the placer's block in one cycle later, which the output register's
        // slack absorbs while the packer keeps pace.
        self.em_last_group.next = self.choice.busy.val() & (self.choice.cycle.val() == 3);
        self.em_stall.next = self.placer.done.val() & self.o_valid.q.val();
        self.em_step.next = !self.em_stall.val();
        self.em_finish.next = self.em_step.val() & self.em_last_group.val();
        self.em_free.next = !self.choice.busy.val() | self.em_finish.val();
        self.s2_move.next = self.s2_valid.q.val() & (self.s2_age.q.val() == self.choice_cycles.val()) & self.em_free.val();
        self.s2_free.next = !self.s2_valid.q.val() | self.s2_move.val();
        self.s1_move.next = self.gather.valid.val() & self.s2_free.val();
        self.s1_free.next = !self.gather.valid.val() | self.s1_move.val();
        self.beat_ready.next = self.gather.room.val();

        // ---- gather (the closing beat loads the stage-1 register) and stage 1
        self.gather.clock.next = self.clock.val();
        self.gather.reset.next = self.reset.val();
        self.gather.push.next = self.beat_valid.val() & self.gather.room.val();
        self.gather.accept.next = self.s1_free.val();
        for k in 0..8 {
            self.gather.beat_data[k].next = self.beat_data[k].val();
        }
        self.gather.beat_last.next = self.beat_last.val();
        self.gather.desc_w16.next = self.desc_w16.val();
        self.gather.desc_id.next = self.desc_id.val();
        self.gather.desc_tail_bytes.next = self.desc_tail_bytes.val();
        self.gather.advance.next = self.s1_move.val();
        self.symbols.clock.next = self.clock.val();
        self.symbols.advance.next = self.s1_move.val();
        for k in 0..32 {
            self.symbols.words[k].next = self.gather.words[k].val();
        }
        for k in 0..64 {
            self.symbols.shift[k].next = self.gather.shift[k].val();
        }
        self.symbols.w16.next = self.gather.w16.val();

        // ---- stage 2: the three plane codes read the symbol stage's flops
        self.stats_bx.clock.next = self.clock.val();
        self.stats_zbx.clock.next = self.clock.val();
        self.stats_dbx.clock.next = self.clock.val();
        for m in 0..32 {
            self.stats_bx.x[m].next = self.symbols.bx_x[m].val();
            self.stats_bx.x_lo[m].next = self.symbols.bx_x_lo[m].val();
            self.stats_bx.x_top[m].next = false;
            self.stats_bx.valid[m].next = true;
            self.stats_bx.valid[m + 32].next = self.symbols.w16_q.val();
            self.stats_zbx.x[m].next = self.symbols.zbx_x[m].val();
            self.stats_zbx.x_lo[m].next = self.symbols.zbx_x_lo[m].val();
            self.stats_zbx.x_top[m].next = false;
            self.stats_dbx.x[m].next = self.symbols.dbx_x[m].val();
            self.stats_dbx.x_lo[m].next = self.symbols.dbx_x_lo[m].val();
            self.stats_dbx.x_top[m].next = self.symbols.dbx_x_top[m].val();
        }
        for m in 0..64 {
            self.stats_zbx.valid[m].next = self.symbols.zbx_valid[m].val();
        }
        for m in 0..31 {
            self.stats_dbx.valid[m].next = true;
        }
        for m in 31..63 {
            self.stats_dbx.valid[m].next = self.symbols.w16_q.val();
        }
        self.stats_dbx.valid[63].next = false;
        self.stats_bx.count.next = self.symbols.bx_count.val();
        self.stats_dbx.count.next = self.symbols.dbx_count.val();
        self.stats_zbx.count.next = self.symbols.nonzero_q.val();
        self.stats_bx.wide.next = self.symbols.wide_q.val();
        self.stats_dbx.wide.next = self.symbols.wide_q.val();
        self.stats_zbx.wide.next = self.symbols.wide_q.val();
        self.stats_bx.extra.next = false;
        self.stats_dbx.extra.next = true;
        self.stats_zbx.extra.next = false;

        // ---- stage 2 registers: id and last (the block itself is in the symbol stage's flops)
        self.s2_valid.d.next = self.s2_valid.q.val() & !self.s2_move.val();
        if self.s2_age.q.val() != self.choice_cycles.val() {
            self.s2_age.d.next = self.s2_age.q.val() + 1;
        }
        if self.s1_move.val() {
            self.s2_valid.d.next = true;
            self.s2_age.d.next = bits::<2>(0);
            self.s2_id.d.next = self.gather.id.val();
            self.s2_last.d.next = self.gather.last.val();
        }
        // ---- stage 2: zero-run lengths of each code (beside its statistics)
        self.runs_dbx.clock.next = self.clock.val();
        self.runs_dbx.zero.next = self.stats_dbx.zero.val();
        self.runs_dbx.zero_top.next = self.stats_dbx.zero_top.val();
        self.runs_bx.clock.next = self.clock.val();
        self.runs_bx.zero.next = self.stats_bx.zero.val();
        self.runs_bx.zero_top.next = self.stats_bx.zero_top.val();
        self.runs_zbx.clock.next = self.clock.val();
        self.runs_zbx.zero.next = self.stats_zbx.zero.val();
        self.runs_zbx.zero_top.next = self.stats_zbx.zero_top.val();

        // ---- stage 2's third cycle: every code's size and the choice, registered
        self.sizes.clock.next = self.clock.val();
        self.sizes.nonzero.next = self.symbols.nonzero_q.val();
        self.sizes.w16.next = self.symbols.w16_q.val();
        self.sizes.first_symbol.next = self.symbols.bx_x[0].val();
        for k in 0..4 {
            self.sizes.dbx_part[k].next = self.stats_dbx.part_bits[k].val();
            self.sizes.bx_part[k].next = self.stats_bx.part_bits[k].val();
            self.sizes.zbx_part[k].next = self.stats_zbx.part_bits[k].val();
        }
        self.sizes.dbx_top.next = self.stats_dbx.top_bits.val();
        self.sizes.bx_top.next = self.stats_bx.top_bits.val();
        self.sizes.zbx_top.next = self.stats_zbx.top_bits.val();

        // ---- stage 2's last cycle: the plane-queue load of the chosen code (its own module)
        self.choice.clock.next = self.clock.val();
        self.choice.reset.next = self.reset.val();
        self.choice.load.next = self.s2_move.val();
        self.choice.step.next = self.em_step.val();
        self.choice.mask_hi.next = self.symbols.mask_hi.val();
        self.choice.mask_lo.next = self.symbols.mask_lo.val();
        self.choice.size_zvc.next = self.sizes.size_zvc.val();
        self.choice.size_dbx.next = self.sizes.size_dbx.val();
        self.choice.size_bx.next = self.sizes.size_bx.val();
        self.choice.size_zbx.next = self.sizes.size_zbx.val();
        self.choice.win_zvc.next = self.sizes.win_zvc.val();
        self.choice.win_dbx.next = self.sizes.win_dbx.val();
        self.choice.win_bx.next = self.sizes.win_bx.val();
        self.choice.win_zbx.next = self.sizes.win_zbx.val();
        self.choice.base_hi.next = self.sizes.base_hi.val();
        self.choice.base_lo.next = self.sizes.base_lo.val();
        self.choice.base_len.next = self.sizes.base_len.val();
        self.choice.w16.next = self.symbols.w16_q.val();
        self.choice.id.next = self.s2_id.q.val();
        self.choice.last.next = self.s2_last.q.val();
        for m in 0..32 {
            self.choice.dbx_x_held[m].next = self.symbols.dbx_x[m].val();
            self.choice.dbx_x_lo_held[m].next = self.symbols.dbx_x_lo[m].val();
            self.choice.dbx_x_top_held[m].next = self.symbols.dbx_x_top[m].val();
        }
        for j in 0..33 {
            self.choice.dbx_zero_run[j].next = self.runs_dbx.run[j].val();
        }
        self.choice.dbx_single_zero.next = self.stats_dbx.single_zero.val();
        self.choice.dbx_single_zero_top.next = self.stats_dbx.single_zero_top.val();
        self.choice.dbx_run_start.next = self.stats_dbx.run_start.val();
        self.choice.dbx_run_start_top.next = self.stats_dbx.run_start_top.val();
        self.choice.dbx_all_ones.next = self.stats_dbx.all_ones.val();
        self.choice.dbx_all_ones_top.next = self.stats_dbx.all_ones_top.val();
        self.choice.dbx_dbp_zero.next = self.stats_dbx.dbp_zero.val();
        self.choice.dbx_dbp_zero_top.next = self.stats_dbx.dbp_zero_top.val();
        self.choice.dbx_two_ones.next = self.stats_dbx.two_ones.val();
        self.choice.dbx_two_ones_top.next = self.stats_dbx.two_ones_top.val();
        self.choice.dbx_one_one.next = self.stats_dbx.one_one.val();
        self.choice.dbx_one_one_top.next = self.stats_dbx.one_one_top.val();
        self.choice.dbx_verbatim.next = self.stats_dbx.verbatim.val();
        self.choice.dbx_verbatim_top.next = self.stats_dbx.verbatim_top.val();
        self.choice.dbx_plane_len.next = self.symbols.dbx_count.val();
        self.choice.dbx_pos_field_bits.next = self.stats_dbx.pos_field_bits.val();
        for m in 0..32 {
            self.choice.bx_x_held[m].next = self.symbols.bx_x[m].val();
            self.choice.bx_x_lo_held[m].next = self.symbols.bx_x_lo[m].val();
            self.choice.bx_x_top_held[m].next = false;
        }
        for j in 0..33 {
            self.choice.bx_zero_run[j].next = self.runs_bx.run[j].val();
        }
        self.choice.bx_single_zero.next = self.stats_bx.single_zero.val();
        self.choice.bx_single_zero_top.next = self.stats_bx.single_zero_top.val();
        self.choice.bx_run_start.next = self.stats_bx.run_start.val();
        self.choice.bx_run_start_top.next = self.stats_bx.run_start_top.val();
        self.choice.bx_all_ones.next = self.stats_bx.all_ones.val();
        self.choice.bx_all_ones_top.next = self.stats_bx.all_ones_top.val();
        self.choice.bx_dbp_zero.next = self.stats_bx.dbp_zero.val();
        self.choice.bx_dbp_zero_top.next = self.stats_bx.dbp_zero_top.val();
        self.choice.bx_two_ones.next = self.stats_bx.two_ones.val();
        self.choice.bx_two_ones_top.next = self.stats_bx.two_ones_top.val();
        self.choice.bx_one_one.next = self.stats_bx.one_one.val();
        self.choice.bx_one_one_top.next = self.stats_bx.one_one_top.val();
        self.choice.bx_verbatim.next = self.stats_bx.verbatim.val();
        self.choice.bx_verbatim_top.next = self.stats_bx.verbatim_top.val();
        self.choice.bx_plane_len.next = self.symbols.bx_count.val();
        self.choice.bx_pos_field_bits.next = self.stats_bx.pos_field_bits.val();
        for m in 0..32 {
            self.choice.zbx_x_held[m].next = self.symbols.zbx_x[m].val();
            self.choice.zbx_x_lo_held[m].next = self.symbols.zbx_x_lo[m].val();
            self.choice.zbx_x_top_held[m].next = false;
        }
        for j in 0..33 {
            self.choice.zbx_zero_run[j].next = self.runs_zbx.run[j].val();
        }
        self.choice.zbx_single_zero.next = self.stats_zbx.single_zero.val();
        self.choice.zbx_single_zero_top.next = self.stats_zbx.single_zero_top.val();
        self.choice.zbx_run_start.next = self.stats_zbx.run_start.val();
        self.choice.zbx_run_start_top.next = self.stats_zbx.run_start_top.val();
        self.choice.zbx_all_ones.next = self.stats_zbx.all_ones.val();
        self.choice.zbx_all_ones_top.next = self.stats_zbx.all_ones_top.val();
        self.choice.zbx_dbp_zero.next = self.stats_zbx.dbp_zero.val();
        self.choice.zbx_dbp_zero_top.next = self.stats_zbx.dbp_zero_top.val();
        self.choice.zbx_two_ones.next = self.stats_zbx.two_ones.val();
        self.choice.zbx_two_ones_top.next = self.stats_zbx.two_ones_top.val();
        self.choice.zbx_one_one.next = self.stats_zbx.one_one.val();
        self.choice.zbx_one_one_top.next = self.stats_zbx.one_one_top.val();
        self.choice.zbx_verbatim.next = self.stats_zbx.verbatim.val();
        self.choice.zbx_verbatim_top.next = self.stats_zbx.verbatim_top.val();
        self.choice.zbx_plane_len.next = self.symbols.nonzero_q.val();
        self.choice.zbx_pos_field_bits.next = self.stats_zbx.pos_field_bits.val();

        // ---- emitter stages: coder (slots 0–8 of the queue) → placer
        self.coder.clock.next = self.clock.val();
        self.coder.reset.next = self.reset.val();
        self.coder.enable.next = self.em_step.val();
        self.coder.in_valid.next = self.choice.busy.val();
        self.coder.in_first.next = self.choice.cycle.val() == 0;
        self.coder.in_final.next = self.choice.cycle.val() == 3;
        for t in 0..9 {
            self.coder.hi[t].next = self.choice.slot_hi[t].val();
            self.coder.lo[t].next = self.choice.slot_lo[t].val();
            self.coder.class[t].next = self.choice.slot_class[t].val();
            self.coder.run[t].next = self.choice.slot_run[t].val();
            self.coder.len[t].next = self.choice.slot_len[t].val();
            self.coder.lit[t].next = self.choice.slot_lit[t].val();
        }
        self.coder.plane_len.next = self.choice.plane_len.val();
        self.coder.pos_shift.next = self.choice.pos_shift.val();
        self.coder.run_shift.next = self.choice.run_shift.val();
        self.placer.clock.next = self.clock.val();
        self.placer.reset.next = self.reset.val();
        self.placer.enable.next = self.em_step.val();
        self.placer.in_valid.next = self.coder.out_valid.val();
        self.placer.in_first.next = self.coder.out_first.val();
        self.placer.in_final.next = self.coder.out_final.val();
        for t in 0..9 {
            self.placer.code0[t].next = self.coder.code0[t].val();
            self.placer.code1[t].next = self.coder.code1[t].val();
            self.placer.code2[t].next = self.coder.code2[t].val();
            self.placer.offset[t].next = self.coder.offset[t].val();
        }

        // ---- the block's facts wait in `fin_*` while the placer completes its payload; the
        // output register takes both together
        if self.em_finish.val() {
            for k in 0..32 {
                self.fin_words[k].d.next = self.choice.words[k].val();
            }
            self.fin_tag.d.next = self.choice.tag.val();
            self.fin_len.d.next = self.choice.len.val();
            self.fin_id.d.next = self.choice.block_id.val();
            self.fin_last.d.next = self.choice.block_last.val();
        }
        self.o_valid.d.next = self.o_valid.q.val() & !self.out_ready.val();
        if self.em_step.val() & self.placer.done.val() {
            self.o_valid.d.next = true;
            for k in 0..32 {
                self.o_payload[k].d.next = self.placer.payload[k].val();
                self.o_block[k].d.next = self.fin_words[k].q.val();
            }
            self.o_tag.d.next = self.fin_tag.q.val();
            self.o_len.d.next = self.fin_len.q.val();
            self.o_id.d.next = self.fin_id.q.val();
            self.o_last.d.next = self.fin_last.q.val();
        }

        // ---- synchronous reset
        if self.reset.val() {
            self.s2_valid.d.next = false;
            self.o_valid.d.next = false;
        }

        // ---- output ports
        self.out_valid.next = self.o_valid.q.val();
        self.out_tag.next = self.o_tag.q.val();
        self.out_len.next = self.o_len.q.val();
        self.out_id.next = self.o_id.q.val();
        self.out_last.next = self.o_last.q.val();
        for k in 0..32 {
            self.out_payload[k].next = self.o_payload[k].q.val();
            self.out_block[k].next = self.o_block[k].q.val();
        }
    }
}
