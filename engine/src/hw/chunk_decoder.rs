//! One decoding context of the host-to-device lane (paper §III-A, Fig. 2, the decompressing
//! half): a FORMAT.md §7–§8 chunk stream comes in as beats of 0–32 bytes (the lane's
//! [`super::decompressor_lane::DecompressorLane`] hands each context one chunk, header and body,
//! as a stream of its own, so several chunks decode at once); the original bytes go out as
//! addressed 32-byte writes. Every condition of FORMAT.md §9 raises the error output with the
//! transfer id and the chunk index; nothing past the first bad block is written, and the context
//! takes the next descriptor once the bad stream's beats have been drained. Bit-exact to
//! [`crate::golden::decode_stream`] on whole streams as well; `docs/HARDWARE.md` ("The
//! decompressor lane") draws it.
//!
//! # Ports
//! * Descriptor (valid/ready): `desc_id` (echoed on writes), `desc_w16`
//!   (16-bit symbols; else 32-bit), `desc_raw_bytes` (the transfer's original size in bytes).
//! * Stream beats (valid/ready): `in_data[k]` = little-endian bytes `4k … 4k+3` of the beat,
//!   `in_bytes` = valid bytes of the beat (any of 0–32: beats may be partial anywhere, the
//!   window appends exactly the bytes given), `in_last` = the transfer's last beat.
//! * Writes (valid/ready): `out_addr` (byte address within the destination, a multiple of 32),
//!   `out_data[k]` (little-endian words), `out_strb` (bit `i` = byte `i` is written), `out_id`,
//!   `out_last` (the write holding the transfer's final byte).
//! * `done`: one-cycle pulse after the transfer's last write has been taken (also for
//!   a transfer that ended in an error, after its error pulse).
//! * `err_valid` / `err_class` / `err_chunk`: one-cycle pulse naming the first §9
//!   condition of the transfer ([`H2dErrorClass`](super::h2d_driver::H2dErrorClass) numbering)
//!   and the index of the chunk it lies in (for trailing bytes: the number of chunks).
//!
//! Every output is a flop. The loop's state is a 4-bit code, one `s_*` constant per state.
//!
//! # Stages
//! 1. Unpacker + decode loop (this block): a 768-bit window holds the stream MSB-first at its
//!    head; each cycle the loop decodes one field at the head (chunk header, tag, mask, up to
//!    64 bits of ZVC symbols, DBX base, three plane codes (decoder A at the head, B where A ends, C where B ends), 256 bits of a raw block or raw chunk),
//!    shifts the window by the field's length and appends the next beat behind the live bits.
//! 2. Rebuild ([`BlockRebuild`]): transpose, DBX prefix sum and range check, ZVC/ZBX expansion.
//! 3. Writer: a block (or raw-chunk beat) as up to four addressed 32-byte writes, then the output
//!    register.

use super::block_rebuild::{BlockRebuild, KIND_PASS};
use super::{arr, constants, d};
use rust_hdl::prelude::*;

/// Bits of the unpacker's window (three beats: a beat is taken while 512 or fewer are live, so
/// the three plane decoders always find their 195 bits).
pub const WINDOW_BITS: usize = 768;
/// Window words of 32 bits.
pub const WINDOW_WORDS: usize = WINDOW_BITS / 32;

hw_block! {
/// One decoding context; see the module docs for ports and stages.
#[derive(LogicBlock)]
pub struct ChunkDecoder {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Synchronous reset.
    pub reset: Signal<In, Bit> = d(),
    /// A descriptor is offered.
    pub desc_valid: Signal<In, Bit> = d(),
    /// The lane takes the offered descriptor this cycle.
    pub desc_ready: Signal<Out, Bit> = d(),
    /// Descriptor: transfer id.
    pub desc_id: Signal<In, Bits<8>> = d(),
    /// Descriptor: 16-bit symbols (bf16/f16); else 32-bit.
    pub desc_w16: Signal<In, Bit> = d(),
    /// Descriptor: original bytes of the transfer.
    pub desc_raw_bytes: Signal<In, Bits<32>> = d(),
    /// A stream beat is offered.
    pub in_valid: Signal<In, Bit> = d(),
    /// The lane takes the offered beat this cycle.
    pub in_ready: Signal<Out, Bit> = d(),
    /// The beat as 8 little-endian 32-bit words.
    pub in_data: [Signal<In, Bits<32>>; 8] = arr(),
    /// Valid bytes of the beat (0–32).
    pub in_bytes: Signal<In, Bits<6>> = d(),
    /// Last beat of the transfer's stream.
    pub in_last: Signal<In, Bit> = d(),
    /// A write is offered.
    pub out_valid: Signal<Out, Bit> = d(),
    /// The memory takes the offered write this cycle.
    pub out_ready: Signal<In, Bit> = d(),
    /// Byte address of the write within the destination (a multiple of 32).
    pub out_addr: Signal<Out, Bits<32>> = d(),
    /// The 32 bytes as 8 little-endian words.
    pub out_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// Byte enables: bit `i` = byte `i` of the write is written.
    pub out_strb: Signal<Out, Bits<32>> = d(),
    /// Transfer id of the write.
    pub out_id: Signal<Out, Bits<8>> = d(),
    /// The write holds the transfer's final byte.
    pub out_last: Signal<Out, Bit> = d(),
    /// One-cycle pulse: the transfer is finished (its last write taken, its error reported).
    pub done: Signal<Out, Bit> = d(),
    /// One-cycle pulse: the transfer's stream is malformed.
    pub err_valid: Signal<Out, Bit> = d(),
    /// FORMAT.md §9 condition (`H2dErrorClass` numbering, 1–11).
    pub err_class: Signal<Out, Bits<4>> = d(),
    /// Index of the chunk the error lies in (trailing bytes: the number of chunks).
    pub err_chunk: Signal<Out, Bits<20>> = d(),
    rebuild: BlockRebuild = d(),
    c_truncated: Constant<Bits<4>> = Constant::new(1u64.into()),
    c_reserved_tag: Constant<Bits<4>> = Constant::new(2u64.into()),
    c_reserved_base: Constant<Bits<4>> = Constant::new(3u64.into()),
    c_position: Constant<Bits<4>> = Constant::new(4u64.into()),
    c_run_too_long: Constant<Bits<4>> = Constant::new(5u64.into()),
    c_dbp_zero_top: Constant<Bits<4>> = Constant::new(6u64.into()),
    c_delta: Constant<Bits<4>> = Constant::new(7u64.into()),
    c_header_too_large: Constant<Bits<4>> = Constant::new(8u64.into()),
    c_size_mismatch: Constant<Bits<4>> = Constant::new(9u64.into()),
    c_stream_truncated: Constant<Bits<4>> = Constant::new(10u64.into()),
    c_trailing: Constant<Bits<4>> = Constant::new(11u64.into()),
    c_pass: Constant<Bits<3>> = Constant::new(KIND_PASS.into()),
    word_shift: [Constant<Bits<5>>; 25] = constants(1),
    plane_index: [Constant<Bits<6>>; 33] = constants(1),
    slot_index: [Constant<Bits<7>>; 64] = constants(1),
    byte_index: [Constant<Bits<8>>; 32] = constants(1),
    /// Loop state 0: waiting for a descriptor.
    s_idle: Constant<Bits<4>> = Constant::new(0u64.into()),
    /// Loop state 1: reading a chunk's 16-bit header.
    s_header: Constant<Bits<4>> = Constant::new(1u64.into()),
    /// Loop state 2: copying a raw chunk, 32 bytes per cycle.
    s_raw_chunk: Constant<Bits<4>> = Constant::new(2u64.into()),
    /// Loop state 3: reading a block's 3-bit tag.
    s_tag: Constant<Bits<4>> = Constant::new(3u64.into()),
    /// Loop state 4: reading the N-bit nonzero mask (ZVC, ZBX).
    s_mask: Constant<Bits<4>> = Constant::new(4u64.into()),
    /// Loop state 5: reading ZVC's nonzero symbols, up to 64 bits per cycle.
    s_zvc_symbols: Constant<Bits<4>> = Constant::new(5u64.into()),
    /// Loop state 6: reading the DBX base-symbol code.
    s_base: Constant<Bits<4>> = Constant::new(6u64.into()),
    /// Loop state 7: reading three plane codes per cycle.
    s_planes: Constant<Bits<4>> = Constant::new(7u64.into()),
    /// Loop state 8: reading a raw block, 256 bits per cycle.
    s_raw_block: Constant<Bits<4>> = Constant::new(8u64.into()),
    /// Loop state 9: handing the decoded block to the rebuild stage.
    s_push: Constant<Bits<4>> = Constant::new(9u64.into()),
    /// Loop state 11: checking the chunk's padding bits.
    s_padding: Constant<Bits<4>> = Constant::new(11u64.into()),
    /// Loop state 12: after the last chunk: no byte may follow.
    s_trailing: Constant<Bits<4>> = Constant::new(12u64.into()),
    /// Loop state 13: truncated, which FORMAT.md §9 reports first).
    s_error_check: Constant<Bits<4>> = Constant::new(13u64.into()),
    /// Loop state 14: discarding the rest of a bad transfer's beats.
    s_drain: Constant<Bits<4>> = Constant::new(14u64.into()),
    /// Loop state 15: waiting for the last write to leave, then `done`.
    s_finish: Constant<Bits<4>> = Constant::new(15u64.into()),
    st: DFF<Bits<4>> = d(),
    win: [DFF<Bits<32>>; WINDOW_WORDS] = arr(),
    fill: DFF<Bits<10>> = d(),
    ended: DFF<Bit> = d(),
    t_id: DFF<Bits<8>> = d(),
    t_w16: DFF<Bit> = d(),
    raw_left: DFF<Bits<32>> = d(),
    chunk: DFF<Bits<20>> = d(),
    addr: DFF<Bits<32>> = d(),
    cbytes_left: DFF<Bits<13>> = d(),
    body_left: DFF<Bits<16>> = d(),
    tag: DFF<Bits<3>> = d(),
    g_l: DFF<Bits<7>> = d(),
    g_p: DFF<Bits<6>> = d(),
    g_q: DFF<Bits<3>> = d(),
    rem: DFF<Bits<6>> = d(),
    above_hi: DFF<Bits<32>> = d(),
    above_lo: DFF<Bits<32>> = d(),
    dbp_hi: [DFF<Bits<32>>; 33] = arr(),
    dbp_lo: [DFF<Bits<32>>; 33] = arr(),
    psym: [DFF<Bits<32>>; 64] = arr(),
    pidx: DFF<Bits<7>> = d(),
    nzc: DFF<Bits<7>> = d(),
    mask_hi: DFF<Bits<32>> = d(),
    mask_lo: DFF<Bits<32>> = d(),
    base: DFF<Bits<32>> = d(),
    rcnt: DFF<Bits<2>> = d(),
    e_class: DFF<Bits<4>> = d(),
    rb_valid: DFF<Bit> = d(),
    rb_addr: DFF<Bits<32>> = d(),
    rb_keep: DFF<Bits<8>> = d(),
    rb_last: DFF<Bit> = d(),
    /// The rebuild stage holds a DBX block (its range check ends at its ready age).
    rb_dbx: DFF<Bit> = d(),
    rb_id: DFF<Bits<8>> = d(),
    job_valid: DFF<Bit> = d(),
    job_words: [DFF<Bits<32>>; 32] = arr(),
    job_addr: DFF<Bits<32>> = d(),
    job_keep: DFF<Bits<8>> = d(),
    job_last: DFF<Bit> = d(),
    job_id: DFF<Bits<8>> = d(),
    job_beat: DFF<Bits<2>> = d(),
    o_valid: DFF<Bit> = d(),
    o_addr: DFF<Bits<32>> = d(),
    o_data: [DFF<Bits<32>>; 8] = arr(),
    o_strb: DFF<Bits<32>> = d(),
    o_id: DFF<Bits<8>> = d(),
    o_last: DFF<Bit> = d(),
    desc_ready_q: DFF<Bit> = d(),
    in_ready_q: DFF<Bit> = d(),
    done_q: DFF<Bit> = d(),
    err_q: DFF<Bit> = d(),
    err_class_q: DFF<Bits<4>> = d(),
    err_chunk_q: DFF<Bits<20>> = d(),
    st_n: Signal<Local, Bits<4>> = d(),
    take: Signal<Local, Bits<10>> = d(),
    need: Signal<Local, Bits<10>> = d(),
    need16: Signal<Local, Bits<16>> = d(),
    in_body: Signal<Local, Bit> = d(),
    have: Signal<Local, Bit> = d(),
    exact: Signal<Local, Bit> = d(),
    over: Signal<Local, Bit> = d(),
    step: Signal<Local, Bit> = d(),
    fail: Signal<Local, Bit> = d(),
    fail_class: Signal<Local, Bits<4>> = d(),
    report: Signal<Local, Bit> = d(),
    report_class: Signal<Local, Bits<4>> = d(),
    push: Signal<Local, Bit> = d(),
    push_kind: Signal<Local, Bits<3>> = d(),
    keep: Signal<Local, Bits<13>> = d(),
    lim_mask: Signal<Local, Bits<32>> = d(),
    v0: Signal<Local, Bits<32>> = d(),
    v1: Signal<Local, Bits<32>> = d(),
    v2: Signal<Local, Bits<32>> = d(),
    vm: Signal<Local, Bits<32>> = d(),
    header: Signal<Local, Bits<16>> = d(),
    chunk_raw: Signal<Local, Bits<13>> = d(),
    popc: Signal<Local, Bits<7>> = d(),
    /// The mask words the popcount reads (the second only for 16-bit symbols).
    pm: [Signal<Local, Bits<32>>; 2] = arr(),
    pc2: [Signal<Local, Bits<32>>; 2] = arr(),
    pc4: [Signal<Local, Bits<32>>; 2] = arr(),
    pc8: [Signal<Local, Bits<32>>; 2] = arr(),
    pc16: [Signal<Local, Bits<32>>; 2] = arr(),
    pc_sum: Signal<Local, Bits<32>> = d(),
    pc32: [Signal<Local, Bits<7>>; 2] = arr(),
    q_of_n: Signal<Local, Bits<3>> = d(),
    zk: Signal<Local, Bits<7>> = d(),
    zs: [Signal<Local, Bits<32>>; 4] = arr(),
    base_l: Signal<Local, Bits<32>> = d(),
    ones_hi: Signal<Local, Bits<32>> = d(),
    ones_lo: Signal<Local, Bits<32>> = d(),
    after_block: Signal<Local, Bits<4>> = d(),
    /// A DBX block's range check is still running, or has just failed: the padding check and
    /// an error report wait for it.
    dbx_pending: Signal<Local, Bit> = d(),
    b_take: Signal<Local, Bit> = d(),
    b_over: Signal<Local, Bit> = d(),
    c_take: Signal<Local, Bit> = d(),
    c_over: Signal<Local, Bit> = d(),
    c_above_hi: Signal<Local, Bits<32>> = d(),
    c_above_lo: Signal<Local, Bits<32>> = d(),
    ab_need: Signal<Local, Bits<10>> = d(),
    cw: [Signal<Local, Bits<32>>; 4] = arr(),
    cv: [Signal<Local, Bits<32>>; 3] = arr(),
    qb: Signal<Local, Bits<5>> = d(),
    rb: Signal<Local, Bits<5>> = d(),
    // Plane-code decoders A (at the head), B (where A ends) and C (where B ends): the same logic three times, written
    // out in this block because a combinational child would close a loop through this block's
    // single `always @(*)` (Verilator UNOPTFLAT).
    pca_v0: Signal<Local, Bits<32>> = d(),
    pca_v1: Signal<Local, Bits<32>> = d(),
    pca_v2: Signal<Local, Bits<32>> = d(),
    pca_limit: Signal<Local, Bits<16>> = d(),
    pca_above_hi: Signal<Local, Bits<32>> = d(),
    pca_above_lo: Signal<Local, Bits<32>> = d(),
    pca_ones_hi: Signal<Local, Bits<32>> = d(),
    pca_ones_lo: Signal<Local, Bits<32>> = d(),
    pca_plane_bits: Signal<Local, Bits<7>> = d(),
    pca_pos_bits: Signal<Local, Bits<3>> = d(),
    pca_w16: Signal<Local, Bit> = d(),
    pca_remaining: Signal<Local, Bits<6>> = d(),
    pca_planes: Signal<Local, Bits<6>> = d(),
    pca_need: Signal<Local, Bits<10>> = d(),
    pca_write_plane: Signal<Local, Bit> = d(),
    pca_plane_hi: Signal<Local, Bits<32>> = d(),
    pca_plane_lo: Signal<Local, Bits<32>> = d(),
    pca_run_write: Signal<Local, Bit> = d(),
    pca_remaining_after: Signal<Local, Bits<6>> = d(),
    pca_error_class: Signal<Local, Bits<4>> = d(),
    pca_vm: Signal<Local, Bits<5>> = d(),
    pca_lim_mask: Signal<Local, Bits<32>> = d(),
    pca_need_l: Signal<Local, Bits<10>> = d(),
    pca_fld_hi: Signal<Local, Bits<32>> = d(),
    pca_fld_lo: Signal<Local, Bits<32>> = d(),
    pca_hi_l: Signal<Local, Bits<32>> = d(),
    pca_lo_l: Signal<Local, Bits<32>> = d(),
    pca_write_l: Signal<Local, Bit> = d(),
    pca_run_l: Signal<Local, Bit> = d(),
    pca_len_l: Signal<Local, Bits<6>> = d(),
    pca_pos: Signal<Local, Bits<7>> = d(),
    pca_span: Signal<Local, Bits<7>> = d(),
    pca_bitpos: Signal<Local, Bits<7>> = d(),
    pca_bitpos2: Signal<Local, Bits<7>> = d(),
    pca_class_l: Signal<Local, Bits<4>> = d(),
    pca_rem_l: Signal<Local, Bits<6>> = d(),
    pcb_v0: Signal<Local, Bits<32>> = d(),
    pcb_v1: Signal<Local, Bits<32>> = d(),
    pcb_v2: Signal<Local, Bits<32>> = d(),
    pcb_limit: Signal<Local, Bits<16>> = d(),
    pcb_above_hi: Signal<Local, Bits<32>> = d(),
    pcb_above_lo: Signal<Local, Bits<32>> = d(),
    pcb_ones_hi: Signal<Local, Bits<32>> = d(),
    pcb_ones_lo: Signal<Local, Bits<32>> = d(),
    pcb_plane_bits: Signal<Local, Bits<7>> = d(),
    pcb_pos_bits: Signal<Local, Bits<3>> = d(),
    pcb_w16: Signal<Local, Bit> = d(),
    pcb_remaining: Signal<Local, Bits<6>> = d(),
    pcb_planes: Signal<Local, Bits<6>> = d(),
    pcb_need: Signal<Local, Bits<10>> = d(),
    pcb_write_plane: Signal<Local, Bit> = d(),
    pcb_plane_hi: Signal<Local, Bits<32>> = d(),
    pcb_plane_lo: Signal<Local, Bits<32>> = d(),
    pcb_run_write: Signal<Local, Bit> = d(),
    pcb_remaining_after: Signal<Local, Bits<6>> = d(),
    pcb_error_class: Signal<Local, Bits<4>> = d(),
    pcb_vm: Signal<Local, Bits<5>> = d(),
    pcb_lim_mask: Signal<Local, Bits<32>> = d(),
    pcb_need_l: Signal<Local, Bits<10>> = d(),
    pcb_fld_hi: Signal<Local, Bits<32>> = d(),
    pcb_fld_lo: Signal<Local, Bits<32>> = d(),
    pcb_hi_l: Signal<Local, Bits<32>> = d(),
    pcb_lo_l: Signal<Local, Bits<32>> = d(),
    pcb_write_l: Signal<Local, Bit> = d(),
    pcb_run_l: Signal<Local, Bit> = d(),
    pcb_len_l: Signal<Local, Bits<6>> = d(),
    pcb_pos: Signal<Local, Bits<7>> = d(),
    pcb_span: Signal<Local, Bits<7>> = d(),
    pcb_bitpos: Signal<Local, Bits<7>> = d(),
    pcb_bitpos2: Signal<Local, Bits<7>> = d(),
    pcb_class_l: Signal<Local, Bits<4>> = d(),
    pcb_rem_l: Signal<Local, Bits<6>> = d(),
    pcc_v0: Signal<Local, Bits<32>> = d(),
    pcc_v1: Signal<Local, Bits<32>> = d(),
    pcc_v2: Signal<Local, Bits<32>> = d(),
    pcc_limit: Signal<Local, Bits<16>> = d(),
    pcc_above_hi: Signal<Local, Bits<32>> = d(),
    pcc_above_lo: Signal<Local, Bits<32>> = d(),
    pcc_ones_hi: Signal<Local, Bits<32>> = d(),
    pcc_ones_lo: Signal<Local, Bits<32>> = d(),
    pcc_plane_bits: Signal<Local, Bits<7>> = d(),
    pcc_pos_bits: Signal<Local, Bits<3>> = d(),
    pcc_w16: Signal<Local, Bit> = d(),
    pcc_remaining: Signal<Local, Bits<6>> = d(),
    pcc_planes: Signal<Local, Bits<6>> = d(),
    pcc_need: Signal<Local, Bits<10>> = d(),
    pcc_write_plane: Signal<Local, Bit> = d(),
    pcc_plane_hi: Signal<Local, Bits<32>> = d(),
    pcc_plane_lo: Signal<Local, Bits<32>> = d(),
    pcc_run_write: Signal<Local, Bit> = d(),
    pcc_remaining_after: Signal<Local, Bits<6>> = d(),
    pcc_error_class: Signal<Local, Bits<4>> = d(),
    pcc_vm: Signal<Local, Bits<5>> = d(),
    pcc_lim_mask: Signal<Local, Bits<32>> = d(),
    pcc_need_l: Signal<Local, Bits<10>> = d(),
    pcc_fld_hi: Signal<Local, Bits<32>> = d(),
    pcc_fld_lo: Signal<Local, Bits<32>> = d(),
    pcc_hi_l: Signal<Local, Bits<32>> = d(),
    pcc_lo_l: Signal<Local, Bits<32>> = d(),
    pcc_write_l: Signal<Local, Bit> = d(),
    pcc_run_l: Signal<Local, Bit> = d(),
    pcc_len_l: Signal<Local, Bits<6>> = d(),
    pcc_pos: Signal<Local, Bits<7>> = d(),
    pcc_span: Signal<Local, Bits<7>> = d(),
    pcc_bitpos: Signal<Local, Bits<7>> = d(),
    pcc_bitpos2: Signal<Local, Bits<7>> = d(),
    pcc_class_l: Signal<Local, Bits<4>> = d(),
    pcc_rem_l: Signal<Local, Bits<6>> = d(),
    b_above_hi: Signal<Local, Bits<32>> = d(),
    b_above_lo: Signal<Local, Bits<32>> = d(),
    bw: [Signal<Local, Bits<32>>; 4] = arr(),
    bv: [Signal<Local, Bits<32>>; 3] = arr(),
    qa: Signal<Local, Bits<5>> = d(),
    ra: Signal<Local, Bits<5>> = d(),
    rem_new: Signal<Local, Bits<6>> = d(),
    above_new_hi: Signal<Local, Bits<32>> = d(),
    above_new_lo: Signal<Local, Bits<32>> = d(),
    wx: [Signal<Local, Bits<32>>; 49] = arr(),
    ws: [Signal<Local, Bits<32>>; 25] = arr(),
    tq: Signal<Local, Bits<5>> = d(),
    tr: Signal<Local, Bits<5>> = d(),
    nw: [Signal<Local, Bits<32>>; 25] = arr(),
    be: [Signal<Local, Bits<32>>; 8] = arr(),
    sh: [Signal<Local, Bits<32>>; 9] = arr(),
    ip: Signal<Local, Bits<10>> = d(),
    iq: Signal<Local, Bits<5>> = d(),
    ir: Signal<Local, Bits<5>> = d(),
    beat_fire: Signal<Local, Bit> = d(),
    fill_n: Signal<Local, Bits<10>> = d(),
    ended_n: Signal<Local, Bit> = d(),
    rb_move: Signal<Local, Bit> = d(),
    rb_free: Signal<Local, Bit> = d(),
    out_free: Signal<Local, Bit> = d(),
    job_last_beat: Signal<Local, Bits<2>> = d(),
    job_fin: Signal<Local, Bit> = d(),
    job_free: Signal<Local, Bit> = d(),
    beat_cnt: Signal<Local, Bits<8>> = d(),
    strb: Signal<Local, Bits<32>> = d(),
    rb_sym: [Signal<Local, Bits<32>>; 8] = arr(),
    rb_kind: Signal<Local, Bits<3>> = d(),
}
}

impl Logic for ChunkDecoder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, st, fill, ended, t_id, t_w16, raw_left, chunk, addr, cbytes_left, body_left, tag, g_l, g_p,
            g_q, rem, above_hi, above_lo, pidx, nzc, mask_hi, mask_lo, base, rcnt, e_class, rb_valid, rb_addr,
            rb_keep, rb_last, rb_id, rb_dbx, job_valid, job_addr, job_keep, job_last, job_id, job_beat, o_valid, o_addr,
            o_strb, o_id, o_last, desc_ready_q, in_ready_q, done_q, err_q, err_class_q, err_chunk_q
        );
        for i in 0..24 {
            self.win[i].clock.next = self.clock.val();
            self.win[i].d.next = self.win[i].q.val();
        }
        for j in 0..33 {
            self.dbp_hi[j].clock.next = self.clock.val();
            self.dbp_hi[j].d.next = self.dbp_hi[j].q.val();
            self.dbp_lo[j].clock.next = self.clock.val();
            self.dbp_lo[j].d.next = self.dbp_lo[j].q.val();
        }
        for i in 0..64 {
            self.psym[i].clock.next = self.clock.val();
            self.psym[i].d.next = self.psym[i].q.val();
        }
        for k in 0..32 {
            self.job_words[k].clock.next = self.clock.val();
            self.job_words[k].d.next = self.job_words[k].q.val();
        }
        for k in 0..8 {
            self.o_data[k].clock.next = self.clock.val();
            self.o_data[k].d.next = self.o_data[k].q.val();
        }

        // ---- writer and rebuild-stage flow control
        self.out_free.next = !self.o_valid.q.val() | self.out_ready.val();
        self.job_last_beat.next = bit_cast::<2, 8>((self.job_keep.q.val() - 1) >> 5);
        self.job_fin.next = self.job_valid.q.val() & self.out_free.val() & (self.job_beat.q.val() == self.job_last_beat.val());
        self.job_free.next = !self.job_valid.q.val() | self.job_fin.val();
        self.rb_move.next = self.rb_valid.q.val() & self.rebuild.ready.val() & self.job_free.val() & !self.rebuild.delta_err.val();
        self.rb_free.next = !self.rb_valid.q.val() | self.rb_move.val();
        self.dbx_pending.next = self.rb_valid.q.val() & self.rb_dbx.q.val() & (!self.rebuild.ready.val() | self.rebuild.delta_err.val());

        // ---- the window's head: three words, the first limited to the chunk body
        self.v0.next = self.win[0].q.val();
        self.v1.next = self.win[1].q.val();
        self.v2.next = self.win[2].q.val();
        self.lim_mask.next = bits::<32>(0xFFFF_FFFF_u64);
        if self.body_left.q.val() < 32 {
            self.lim_mask.next = !(bits::<32>(0xFFFF_FFFF_u64) >> bit_cast::<5, 16>(self.body_left.q.val()));
        }
        self.vm.next = self.v0.val() & self.lim_mask.val();
        self.header.next = bit_cast::<16, 32>(((self.v0.val() >> 24) & 0xFF) | ((self.v0.val() >> 8) & 0xFF00));
        self.chunk_raw.next = bits::<13>(4096);
        if self.raw_left.q.val() < 4096 {
            self.chunk_raw.next = bit_cast::<13, 32>(self.raw_left.q.val());
        }
        self.keep.next = bits::<13>(128);
        if self.cbytes_left.q.val() < 128 {
            self.keep.next = self.cbytes_left.q.val();
        }
        if self.st.q.val() == self.s_raw_chunk.val() {
            self.keep.next = bits::<13>(32);
            if self.cbytes_left.q.val() < 32 {
                self.keep.next = self.cbytes_left.q.val();
            }
        }
        // Mask popcount and ⌈log2 n⌉ (ZBX position field).
        // A tree of field-wise sums (1-, 2-, 4-, 8-, 16-bit fields; the masked-off bits are
        // constant zeros, so no carry crosses a field): six adder levels, not a 64-long chain.
        self.pm[0].next = self.v0.val();
        self.pm[1].next = bits::<32>(0);
        if self.t_w16.q.val() {
            self.pm[1].next = self.v1.val();
        }
        for h in 0..2 {
            self.pc2[h].next = (self.pm[h].val() & 0x5555_5555_u64) + ((self.pm[h].val() >> 1) & 0x5555_5555_u64);
            self.pc4[h].next = (self.pc2[h].val() & 0x3333_3333_u64) + ((self.pc2[h].val() >> 2) & 0x3333_3333_u64);
            self.pc8[h].next = (self.pc4[h].val() & 0x0F0F_0F0F_u64) + ((self.pc4[h].val() >> 4) & 0x0F0F_0F0F_u64);
            self.pc16[h].next = (self.pc8[h].val() & 0x00FF_00FF_u64) + ((self.pc8[h].val() >> 8) & 0x00FF_00FF_u64);
            self.pc_sum.next = (self.pc16[h].val() & 0xFFFF_u64) + (self.pc16[h].val() >> 16);
            self.pc32[h].next = bit_cast::<7, 32>(self.pc_sum.val());
        }
        self.popc.next = self.pc32[0].val() + self.pc32[1].val();
        self.q_of_n.next = bits::<3>(6);
        if self.popc.val() <= 32 {
            self.q_of_n.next = bits::<3>(5);
        }
        if self.popc.val() <= 16 {
            self.q_of_n.next = bits::<3>(4);
        }
        if self.popc.val() <= 8 {
            self.q_of_n.next = bits::<3>(3);
        }
        if self.popc.val() <= 4 {
            self.q_of_n.next = bits::<3>(2);
        }
        if self.popc.val() <= 2 {
            self.q_of_n.next = bits::<3>(1);
        }
        if self.popc.val() <= 1 {
            self.q_of_n.next = bits::<3>(0);
        }
        // Left-aligned mask of the plane's L bits.
        self.ones_hi.next = bits::<32>(0xFFFF_FFFF_u64);
        self.ones_lo.next = bits::<32>(0xFFFF_FFFF_u64);
        if self.g_l.q.val() < 64 {
            self.ones_lo.next = !(bits::<32>(0xFFFF_FFFF_u64) >> bit_cast::<5, 7>(self.g_l.q.val() - 32));
        }
        if self.g_l.q.val() <= 32 {
            self.ones_lo.next = bits::<32>(0);
        }
        if self.g_l.q.val() < 32 {
            self.ones_hi.next = !(bits::<32>(0xFFFF_FFFF_u64) >> bit_cast::<5, 7>(self.g_l.q.val()));
        }
        // Two plane codes: A at the head, B where A ends (the window shifted by A's length).
        self.pca_v0.next = self.v0.val();
        self.pca_v1.next = self.v1.val();
        self.pca_v2.next = self.v2.val();
        self.pca_limit.next = self.body_left.q.val();
        self.pca_above_hi.next = self.above_hi.q.val();
        self.pca_above_lo.next = self.above_lo.q.val();
        self.pca_ones_hi.next = self.ones_hi.val();
        self.pca_ones_lo.next = self.ones_lo.val();
        self.pca_plane_bits.next = self.g_l.q.val();
        self.pca_pos_bits.next = self.g_q.q.val();
        self.pca_w16.next = self.t_w16.q.val();
        self.pca_remaining.next = self.rem.q.val();
        self.pca_planes.next = self.g_p.q.val();
        // -- decoder A
        // The prefix is read through the body limit: bits past the body read as zero.
        self.pca_lim_mask.next = bits::<32>(0xFFFF_FFFF_u64);
        if self.pca_limit.val() < 32 {
            self.pca_lim_mask.next = !(bits::<32>(0xFFFF_FFFF_u64) >> bit_cast::<5, 16>(self.pca_limit.val()));
        }
        self.pca_vm.next = bit_cast::<5, 32>((self.pca_v0.val() & self.pca_lim_mask.val()) >> 27);
        self.pca_fld_hi.next = (self.pca_v0.val() << 1) | (self.pca_v1.val() >> 31);
        self.pca_fld_lo.next = (self.pca_v1.val() << 1) | (self.pca_v2.val() >> 31);
        self.pca_hi_l.next = bits::<32>(0);
        self.pca_lo_l.next = bits::<32>(0);
        self.pca_write_l.next = false;
        self.pca_run_l.next = false;
        self.pca_len_l.next = bits::<6>(0);
        self.pca_pos.next = bits::<7>(0);
        self.pca_span.next = bits::<7>(1);
        self.pca_bitpos.next = bits::<7>(0);
        self.pca_bitpos2.next = bits::<7>(0);
        self.pca_class_l.next = bits::<4>(0);
        if self.pca_vm.val().get_bit(4) {
            // `1` + the L plane bits.
            self.pca_need_l.next = bit_cast::<10, 7>(self.pca_plane_bits.val()) + 1;
            self.pca_hi_l.next = (self.pca_fld_hi.val() & self.pca_ones_hi.val()) ^ self.pca_above_hi.val();
            self.pca_lo_l.next = (self.pca_fld_lo.val() & self.pca_ones_lo.val()) ^ self.pca_above_lo.val();
            self.pca_write_l.next = true;
        } else if self.pca_vm.val().get_bit(3) {
            // `01` + (k − 2): a run of k zero planes.
            self.pca_need_l.next = bits::<10>(7);
            self.pca_len_l.next = bit_cast::<6, 32>((self.pca_v0.val() >> 25) & 0x1F) + 2;
            if self.pca_w16.val() {
                self.pca_need_l.next = bits::<10>(6);
                self.pca_len_l.next = bit_cast::<6, 32>((self.pca_v0.val() >> 26) & 0xF) + 2;
            }
            self.pca_run_l.next = true;
        } else if self.pca_vm.val().get_bit(2) {
            // `001`: one zero plane.
            self.pca_need_l.next = bits::<10>(3);
            self.pca_len_l.next = bits::<6>(1);
            self.pca_run_l.next = true;
        } else {
            self.pca_need_l.next = bits::<10>(5);
            self.pca_write_l.next = true;
            match self.pca_vm.val().get_bits::<2>(0).index() {
                0 => {
                    // `00000`: all ones.
                    self.pca_hi_l.next = self.pca_ones_hi.val() ^ self.pca_above_hi.val();
                    self.pca_lo_l.next = self.pca_ones_lo.val() ^ self.pca_above_lo.val();
                }
                1 => {
                    // `00001`: the pre-XOR plane is zero; never on the top plane.
                    if self.pca_remaining.val() == self.pca_planes.val() {
                        self.pca_class_l.next = self.c_dbp_zero_top.val();
                    }
                }
                _ => {
                    // `00010` / `00011` + position: two adjacent ones / one one.
                    self.pca_need_l.next = bits::<10>(5) + bit_cast::<10, 3>(self.pca_pos_bits.val());
                    self.pca_pos.next = bit_cast::<7, 32>(
                        (self.pca_v0.val() >> (bits::<5>(27) - bit_cast::<5, 3>(self.pca_pos_bits.val())))
                            & ((bits::<32>(1) << bit_cast::<5, 3>(self.pca_pos_bits.val())) - 1),
                    );
                    if !self.pca_vm.val().get_bit(0) {
                        self.pca_span.next = bits::<7>(2);
                    }
                    if (self.pca_pos.val() + self.pca_span.val()) > self.pca_plane_bits.val() {
                        self.pca_class_l.next = self.c_position.val();
                    }
                    // Position `pos` of the L-bit plane word is left-aligned bit 64 − L + pos.
                    self.pca_bitpos.next = bits::<7>(64) - self.pca_plane_bits.val() + self.pca_pos.val();
                    self.pca_bitpos2.next = self.pca_bitpos.val() + 1;
                    if self.pca_bitpos.val() >= 32 {
                        self.pca_hi_l.next = bits::<32>(1) << bit_cast::<5, 7>(self.pca_bitpos.val() - 32);
                    } else {
                        self.pca_lo_l.next = bits::<32>(1) << bit_cast::<5, 7>(self.pca_bitpos.val());
                    }
                    if self.pca_span.val() == 2 {
                        if self.pca_bitpos2.val() >= 32 {
                            self.pca_hi_l.next = self.pca_hi_l.val() | (bits::<32>(1) << bit_cast::<5, 7>(self.pca_bitpos2.val() - 32));
                        } else {
                            self.pca_lo_l.next = self.pca_lo_l.val() | (bits::<32>(1) << bit_cast::<5, 7>(self.pca_bitpos2.val()));
                        }
                    }
                    self.pca_hi_l.next = self.pca_hi_l.val() ^ self.pca_above_hi.val();
                    self.pca_lo_l.next = self.pca_lo_l.val() ^ self.pca_above_lo.val();
                }
            }
        }
        self.pca_rem_l.next = self.pca_remaining.val() - 1;
        if self.pca_run_l.val() {
            self.pca_rem_l.next = self.pca_remaining.val() - self.pca_len_l.val();
            if self.pca_len_l.val() > self.pca_remaining.val() {
                self.pca_class_l.next = self.c_run_too_long.val();
            }
        }
        self.pca_need.next = self.pca_need_l.val();
        self.pca_write_plane.next = self.pca_write_l.val();
        self.pca_plane_hi.next = self.pca_hi_l.val();
        self.pca_plane_lo.next = self.pca_lo_l.val();
        self.pca_run_write.next = self.pca_run_l.val();
        self.pca_remaining_after.next = self.pca_rem_l.val();
        self.pca_error_class.next = self.pca_class_l.val();
        self.qa.next = bit_cast::<5, 10>(self.pca_need.val() >> 5);
        self.ra.next = bit_cast::<5, 10>(self.pca_need.val());
        for i in 0..4 {
            self.bw[i].next = self.win[i].q.val();
            if self.qa.val() == 1 {
                self.bw[i].next = self.win[i + 1].q.val();
            }
            if self.qa.val() == 2 {
                self.bw[i].next = self.win[i + 2].q.val();
            }
        }
        for i in 0..3 {
            self.bv[i].next = self.bw[i].val();
            if self.ra.val().any() {
                self.bv[i].next = (self.bw[i].val() << self.ra.val()) | (self.bw[i + 1].val() >> (bits::<6>(32) - bit_cast::<6, 5>(self.ra.val())));
            }
        }
        self.b_above_hi.next = self.above_hi.q.val();
        self.b_above_lo.next = self.above_lo.q.val();
        if self.pca_write_plane.val() {
            self.b_above_hi.next = self.pca_plane_hi.val();
            self.b_above_lo.next = self.pca_plane_lo.val();
        }
        self.pcb_v0.next = self.bv[0].val();
        self.pcb_v1.next = self.bv[1].val();
        self.pcb_v2.next = self.bv[2].val();
        self.pcb_limit.next = self.body_left.q.val() - bit_cast::<16, 10>(self.pca_need.val());
        self.pcb_above_hi.next = self.b_above_hi.val();
        self.pcb_above_lo.next = self.b_above_lo.val();
        self.pcb_ones_hi.next = self.ones_hi.val();
        self.pcb_ones_lo.next = self.ones_lo.val();
        self.pcb_plane_bits.next = self.g_l.q.val();
        self.pcb_pos_bits.next = self.g_q.q.val();
        self.pcb_w16.next = self.t_w16.q.val();
        self.pcb_remaining.next = self.pca_remaining_after.val();
        self.pcb_planes.next = self.g_p.q.val();
        // -- decoder B
        // The prefix is read through the body limit: bits past the body read as zero.
        self.pcb_lim_mask.next = bits::<32>(0xFFFF_FFFF_u64);
        if self.pcb_limit.val() < 32 {
            self.pcb_lim_mask.next = !(bits::<32>(0xFFFF_FFFF_u64) >> bit_cast::<5, 16>(self.pcb_limit.val()));
        }
        self.pcb_vm.next = bit_cast::<5, 32>((self.pcb_v0.val() & self.pcb_lim_mask.val()) >> 27);
        self.pcb_fld_hi.next = (self.pcb_v0.val() << 1) | (self.pcb_v1.val() >> 31);
        self.pcb_fld_lo.next = (self.pcb_v1.val() << 1) | (self.pcb_v2.val() >> 31);
        self.pcb_hi_l.next = bits::<32>(0);
        self.pcb_lo_l.next = bits::<32>(0);
        self.pcb_write_l.next = false;
        self.pcb_run_l.next = false;
        self.pcb_len_l.next = bits::<6>(0);
        self.pcb_pos.next = bits::<7>(0);
        self.pcb_span.next = bits::<7>(1);
        self.pcb_bitpos.next = bits::<7>(0);
        self.pcb_bitpos2.next = bits::<7>(0);
        self.pcb_class_l.next = bits::<4>(0);
        if self.pcb_vm.val().get_bit(4) {
            // `1` + the L plane bits.
            self.pcb_need_l.next = bit_cast::<10, 7>(self.pcb_plane_bits.val()) + 1;
            self.pcb_hi_l.next = (self.pcb_fld_hi.val() & self.pcb_ones_hi.val()) ^ self.pcb_above_hi.val();
            self.pcb_lo_l.next = (self.pcb_fld_lo.val() & self.pcb_ones_lo.val()) ^ self.pcb_above_lo.val();
            self.pcb_write_l.next = true;
        } else if self.pcb_vm.val().get_bit(3) {
            // `01` + (k − 2): a run of k zero planes.
            self.pcb_need_l.next = bits::<10>(7);
            self.pcb_len_l.next = bit_cast::<6, 32>((self.pcb_v0.val() >> 25) & 0x1F) + 2;
            if self.pcb_w16.val() {
                self.pcb_need_l.next = bits::<10>(6);
                self.pcb_len_l.next = bit_cast::<6, 32>((self.pcb_v0.val() >> 26) & 0xF) + 2;
            }
            self.pcb_run_l.next = true;
        } else if self.pcb_vm.val().get_bit(2) {
            // `001`: one zero plane.
            self.pcb_need_l.next = bits::<10>(3);
            self.pcb_len_l.next = bits::<6>(1);
            self.pcb_run_l.next = true;
        } else {
            self.pcb_need_l.next = bits::<10>(5);
            self.pcb_write_l.next = true;
            match self.pcb_vm.val().get_bits::<2>(0).index() {
                0 => {
                    // `00000`: all ones.
                    self.pcb_hi_l.next = self.pcb_ones_hi.val() ^ self.pcb_above_hi.val();
                    self.pcb_lo_l.next = self.pcb_ones_lo.val() ^ self.pcb_above_lo.val();
                }
                1 => {
                    // `00001`: the pre-XOR plane is zero; never on the top plane.
                    if self.pcb_remaining.val() == self.pcb_planes.val() {
                        self.pcb_class_l.next = self.c_dbp_zero_top.val();
                    }
                }
                _ => {
                    // `00010` / `00011` + position: two adjacent ones / one one.
                    self.pcb_need_l.next = bits::<10>(5) + bit_cast::<10, 3>(self.pcb_pos_bits.val());
                    self.pcb_pos.next = bit_cast::<7, 32>(
                        (self.pcb_v0.val() >> (bits::<5>(27) - bit_cast::<5, 3>(self.pcb_pos_bits.val())))
                            & ((bits::<32>(1) << bit_cast::<5, 3>(self.pcb_pos_bits.val())) - 1),
                    );
                    if !self.pcb_vm.val().get_bit(0) {
                        self.pcb_span.next = bits::<7>(2);
                    }
                    if (self.pcb_pos.val() + self.pcb_span.val()) > self.pcb_plane_bits.val() {
                        self.pcb_class_l.next = self.c_position.val();
                    }
                    // Position `pos` of the L-bit plane word is left-aligned bit 64 − L + pos.
                    self.pcb_bitpos.next = bits::<7>(64) - self.pcb_plane_bits.val() + self.pcb_pos.val();
                    self.pcb_bitpos2.next = self.pcb_bitpos.val() + 1;
                    if self.pcb_bitpos.val() >= 32 {
                        self.pcb_hi_l.next = bits::<32>(1) << bit_cast::<5, 7>(self.pcb_bitpos.val() - 32);
                    } else {
                        self.pcb_lo_l.next = bits::<32>(1) << bit_cast::<5, 7>(self.pcb_bitpos.val());
                    }
                    if self.pcb_span.val() == 2 {
                        if self.pcb_bitpos2.val() >= 32 {
                            self.pcb_hi_l.next = self.pcb_hi_l.val() | (bits::<32>(1) << bit_cast::<5, 7>(self.pcb_bitpos2.val() - 32));
                        } else {
                            self.pcb_lo_l.next = self.pcb_lo_l.val() | (bits::<32>(1) << bit_cast::<5, 7>(self.pcb_bitpos2.val()));
                        }
                    }
                    self.pcb_hi_l.next = self.pcb_hi_l.val() ^ self.pcb_above_hi.val();
                    self.pcb_lo_l.next = self.pcb_lo_l.val() ^ self.pcb_above_lo.val();
                }
            }
        }
        self.pcb_rem_l.next = self.pcb_remaining.val() - 1;
        if self.pcb_run_l.val() {
            self.pcb_rem_l.next = self.pcb_remaining.val() - self.pcb_len_l.val();
            if self.pcb_len_l.val() > self.pcb_remaining.val() {
                self.pcb_class_l.next = self.c_run_too_long.val();
            }
        }
        self.pcb_need.next = self.pcb_need_l.val();
        self.pcb_write_plane.next = self.pcb_write_l.val();
        self.pcb_plane_hi.next = self.pcb_hi_l.val();
        self.pcb_plane_lo.next = self.pcb_lo_l.val();
        self.pcb_run_write.next = self.pcb_run_l.val();
        self.pcb_remaining_after.next = self.pcb_rem_l.val();
        self.pcb_error_class.next = self.pcb_class_l.val();
        self.b_over.next = bit_cast::<16, 10>(self.pcb_need.val()) > self.pcb_limit.val();
        // C where B ends.
        self.ab_need.next = self.pca_need.val() + self.pcb_need.val();
        self.qb.next = bit_cast::<5, 10>(self.ab_need.val() >> 5);
        self.rb.next = bit_cast::<5, 10>(self.ab_need.val());
        for i in 0..4 {
            self.cw[i].next = self.win[i].q.val();
            if self.qb.val() == 1 {
                self.cw[i].next = self.win[i + 1].q.val();
            }
            if self.qb.val() == 2 {
                self.cw[i].next = self.win[i + 2].q.val();
            }
            if self.qb.val() == 3 {
                self.cw[i].next = self.win[i + 3].q.val();
            }
            if self.qb.val() == 4 {
                self.cw[i].next = self.win[i + 4].q.val();
            }
        }
        for i in 0..3 {
            self.cv[i].next = self.cw[i].val();
            if self.rb.val().any() {
                self.cv[i].next = (self.cw[i].val() << self.rb.val()) | (self.cw[i + 1].val() >> (bits::<6>(32) - bit_cast::<6, 5>(self.rb.val())));
            }
        }
        self.c_above_hi.next = self.b_above_hi.val();
        self.c_above_lo.next = self.b_above_lo.val();
        if self.pcb_write_plane.val() {
            self.c_above_hi.next = self.pcb_plane_hi.val();
            self.c_above_lo.next = self.pcb_plane_lo.val();
        }
        self.pcc_v0.next = self.cv[0].val();
        self.pcc_v1.next = self.cv[1].val();
        self.pcc_v2.next = self.cv[2].val();
        self.pcc_limit.next = self.body_left.q.val() - bit_cast::<16, 10>(self.ab_need.val());
        self.pcc_above_hi.next = self.c_above_hi.val();
        self.pcc_above_lo.next = self.c_above_lo.val();
        self.pcc_ones_hi.next = self.ones_hi.val();
        self.pcc_ones_lo.next = self.ones_lo.val();
        self.pcc_plane_bits.next = self.g_l.q.val();
        self.pcc_pos_bits.next = self.g_q.q.val();
        self.pcc_w16.next = self.t_w16.q.val();
        self.pcc_remaining.next = self.pcb_remaining_after.val();
        self.pcc_planes.next = self.g_p.q.val();
        // -- decoder C
        // The prefix is read through the body limit: bits past the body read as zero.
        self.pcc_lim_mask.next = bits::<32>(0xFFFF_FFFF_u64);
        if self.pcc_limit.val() < 32 {
            self.pcc_lim_mask.next = !(bits::<32>(0xFFFF_FFFF_u64) >> bit_cast::<5, 16>(self.pcc_limit.val()));
        }
        self.pcc_vm.next = bit_cast::<5, 32>((self.pcc_v0.val() & self.pcc_lim_mask.val()) >> 27);
        self.pcc_fld_hi.next = (self.pcc_v0.val() << 1) | (self.pcc_v1.val() >> 31);
        self.pcc_fld_lo.next = (self.pcc_v1.val() << 1) | (self.pcc_v2.val() >> 31);
        self.pcc_hi_l.next = bits::<32>(0);
        self.pcc_lo_l.next = bits::<32>(0);
        self.pcc_write_l.next = false;
        self.pcc_run_l.next = false;
        self.pcc_len_l.next = bits::<6>(0);
        self.pcc_pos.next = bits::<7>(0);
        self.pcc_span.next = bits::<7>(1);
        self.pcc_bitpos.next = bits::<7>(0);
        self.pcc_bitpos2.next = bits::<7>(0);
        self.pcc_class_l.next = bits::<4>(0);
        if self.pcc_vm.val().get_bit(4) {
            // `1` + the L plane bits.
            self.pcc_need_l.next = bit_cast::<10, 7>(self.pcc_plane_bits.val()) + 1;
            self.pcc_hi_l.next = (self.pcc_fld_hi.val() & self.pcc_ones_hi.val()) ^ self.pcc_above_hi.val();
            self.pcc_lo_l.next = (self.pcc_fld_lo.val() & self.pcc_ones_lo.val()) ^ self.pcc_above_lo.val();
            self.pcc_write_l.next = true;
        } else if self.pcc_vm.val().get_bit(3) {
            // `01` + (k − 2): a run of k zero planes.
            self.pcc_need_l.next = bits::<10>(7);
            self.pcc_len_l.next = bit_cast::<6, 32>((self.pcc_v0.val() >> 25) & 0x1F) + 2;
            if self.pcc_w16.val() {
                self.pcc_need_l.next = bits::<10>(6);
                self.pcc_len_l.next = bit_cast::<6, 32>((self.pcc_v0.val() >> 26) & 0xF) + 2;
            }
            self.pcc_run_l.next = true;
        } else if self.pcc_vm.val().get_bit(2) {
            // `001`: one zero plane.
            self.pcc_need_l.next = bits::<10>(3);
            self.pcc_len_l.next = bits::<6>(1);
            self.pcc_run_l.next = true;
        } else {
            self.pcc_need_l.next = bits::<10>(5);
            self.pcc_write_l.next = true;
            match self.pcc_vm.val().get_bits::<2>(0).index() {
                0 => {
                    // `00000`: all ones.
                    self.pcc_hi_l.next = self.pcc_ones_hi.val() ^ self.pcc_above_hi.val();
                    self.pcc_lo_l.next = self.pcc_ones_lo.val() ^ self.pcc_above_lo.val();
                }
                1 => {
                    // `00001`: the pre-XOR plane is zero; never on the top plane.
                    if self.pcc_remaining.val() == self.pcc_planes.val() {
                        self.pcc_class_l.next = self.c_dbp_zero_top.val();
                    }
                }
                _ => {
                    // `00010` / `00011` + position: two adjacent ones / one one.
                    self.pcc_need_l.next = bits::<10>(5) + bit_cast::<10, 3>(self.pcc_pos_bits.val());
                    self.pcc_pos.next = bit_cast::<7, 32>(
                        (self.pcc_v0.val() >> (bits::<5>(27) - bit_cast::<5, 3>(self.pcc_pos_bits.val())))
                            & ((bits::<32>(1) << bit_cast::<5, 3>(self.pcc_pos_bits.val())) - 1),
                    );
                    if !self.pcc_vm.val().get_bit(0) {
                        self.pcc_span.next = bits::<7>(2);
                    }
                    if (self.pcc_pos.val() + self.pcc_span.val()) > self.pcc_plane_bits.val() {
                        self.pcc_class_l.next = self.c_position.val();
                    }
                    // Position `pos` of the L-bit plane word is left-aligned bit 64 − L + pos.
                    self.pcc_bitpos.next = bits::<7>(64) - self.pcc_plane_bits.val() + self.pcc_pos.val();
                    self.pcc_bitpos2.next = self.pcc_bitpos.val() + 1;
                    if self.pcc_bitpos.val() >= 32 {
                        self.pcc_hi_l.next = bits::<32>(1) << bit_cast::<5, 7>(self.pcc_bitpos.val() - 32);
                    } else {
                        self.pcc_lo_l.next = bits::<32>(1) << bit_cast::<5, 7>(self.pcc_bitpos.val());
                    }
                    if self.pcc_span.val() == 2 {
                        if self.pcc_bitpos2.val() >= 32 {
                            self.pcc_hi_l.next = self.pcc_hi_l.val() | (bits::<32>(1) << bit_cast::<5, 7>(self.pcc_bitpos2.val() - 32));
                        } else {
                            self.pcc_lo_l.next = self.pcc_lo_l.val() | (bits::<32>(1) << bit_cast::<5, 7>(self.pcc_bitpos2.val()));
                        }
                    }
                    self.pcc_hi_l.next = self.pcc_hi_l.val() ^ self.pcc_above_hi.val();
                    self.pcc_lo_l.next = self.pcc_lo_l.val() ^ self.pcc_above_lo.val();
                }
            }
        }
        self.pcc_rem_l.next = self.pcc_remaining.val() - 1;
        if self.pcc_run_l.val() {
            self.pcc_rem_l.next = self.pcc_remaining.val() - self.pcc_len_l.val();
            if self.pcc_len_l.val() > self.pcc_remaining.val() {
                self.pcc_class_l.next = self.c_run_too_long.val();
            }
        }
        self.pcc_need.next = self.pcc_need_l.val();
        self.pcc_write_plane.next = self.pcc_write_l.val();
        self.pcc_plane_hi.next = self.pcc_hi_l.val();
        self.pcc_plane_lo.next = self.pcc_lo_l.val();
        self.pcc_run_write.next = self.pcc_run_l.val();
        self.pcc_remaining_after.next = self.pcc_rem_l.val();
        self.pcc_error_class.next = self.pcc_class_l.val();
        self.c_over.next = bit_cast::<16, 10>(self.pcc_need.val()) > self.pcc_limit.val();

        // ---- the decode loop: one field per cycle
        self.st_n.next = self.st.q.val();
        self.take.next = bits::<10>(0);
        self.need.next = bits::<10>(0);
        self.in_body.next = false;
        self.fail.next = false;
        self.fail_class.next = self.c_truncated.val();
        self.report.next = false;
        self.report_class.next = self.c_truncated.val();
        self.push.next = false;
        self.push_kind.next = self.tag.q.val();
        self.zk.next = bits::<7>(0);
        for t in 0..4 {
            self.zs[t].next = bits::<32>(0);
        }
        self.base_l.next = bits::<32>(0);
        self.b_take.next = false;
        self.c_take.next = false;
        self.rem_new.next = self.pca_remaining_after.val();
        self.above_new_hi.next = self.b_above_hi.val();
        self.above_new_lo.next = self.b_above_lo.val();
        self.after_block.next = self.s_tag.val();
        if self.cbytes_left.q.val() == self.keep.val() {
            self.after_block.next = self.s_padding.val();
        }
        self.err_q.d.next = false;
        self.done_q.d.next = false;

        // How many bits the current step needs.
        if self.st.q.val() == self.s_header.val() {
            self.need.next = bits::<10>(16);
        } else if self.st.q.val() == self.s_raw_chunk.val() {
            self.need.next = bit_cast::<10, 13>(self.keep.val() << 3);
        } else if self.st.q.val() == self.s_tag.val() {
            self.need.next = bits::<10>(3);
            self.in_body.next = true;
        } else if self.st.q.val() == self.s_mask.val() {
            self.need.next = bits::<10>(32);
            if self.t_w16.q.val() {
                self.need.next = bits::<10>(64);
            }
            self.in_body.next = true;
        } else if self.st.q.val() == self.s_zvc_symbols.val() {
            // Up to 64 bits: 2 symbols of 32 bits or 4 of 16.
            self.zk.next = self.nzc.q.val() - self.pidx.q.val();
            if self.t_w16.q.val() {
                if self.zk.val() > 4 {
                    self.zk.next = bits::<7>(4);
                }
                self.need.next = bit_cast::<10, 7>(self.zk.val() << 4);
            } else {
                if self.zk.val() > 2 {
                    self.zk.next = bits::<7>(2);
                }
                self.need.next = bit_cast::<10, 7>(self.zk.val() << 5);
            }
            self.in_body.next = true;
        } else if self.st.q.val() == self.s_base.val() {
            self.in_body.next = true;
            if self.vm.val().get_bit(31) {
                self.need.next = bits::<10>(33);
                if self.t_w16.q.val() {
                    self.need.next = bits::<10>(17);
                }
            } else {
                match self.vm.val().get_bits::<2>(29).index() {
                    0 => {
                        self.need.next = bits::<10>(3);
                    }
                    1 => {
                        self.need.next = bits::<10>(7);
                    }
                    2 => {
                        self.need.next = bits::<10>(11);
                    }
                    _ => {
                        self.need.next = bits::<10>(19);
                        if self.t_w16.q.val() {
                            self.need.next = bits::<10>(3);
                        }
                    }
                }
            }
        } else if self.st.q.val() == self.s_planes.val() {
            self.in_body.next = true;
            self.need.next = self.pca_need.val();
        } else if self.st.q.val() == self.s_raw_block.val() {
            self.need.next = bits::<10>(256);
            self.in_body.next = true;
        } else if self.st.q.val() == self.s_padding.val() {
            // 0–7 zero bits; 8 or more left is a size mismatch (decided below).
            self.in_body.next = true;
            if self.body_left.q.val() < 8 {
                self.need.next = bit_cast::<10, 16>(self.body_left.q.val());
            }
        }
        self.need16.next = bit_cast::<16, 10>(self.need.val());
        self.have.next = self.fill.q.val() >= self.need.val();
        self.over.next = self.in_body.val() & (self.need16.val() > self.body_left.q.val());
        // The decision is final once the bits it needs, or the whole rest of the body, are in
        // the window, or the stream has ended.
        self.exact.next = self.have.val()
            | (self.in_body.val() & (bit_cast::<16, 10>(self.fill.q.val()) >= self.body_left.q.val()))
            | self.ended.q.val();
        self.step.next = false;
        if self.exact.val() & self.over.val() {
            // A field runs past the end of the chunk body.
            self.fail.next = true;
            self.fail_class.next = self.c_truncated.val();
        } else if self.have.val() {
            self.step.next = true;
        } else if self.ended.q.val() {
            self.report.next = true;
            self.report_class.next = self.c_stream_truncated.val();
        }

        if self.st.q.val() == self.s_idle.val() {
            if self.desc_valid.val() & self.desc_ready_q.q.val() {
                self.t_id.d.next = self.desc_id.val();
                self.t_w16.d.next = self.desc_w16.val();
                self.raw_left.d.next = self.desc_raw_bytes.val();
                self.chunk.d.next = bits::<20>(0);
                self.addr.d.next = bits::<32>(0);
                self.st_n.next = self.s_header.val();
                if !self.desc_raw_bytes.val().any() {
                    self.st_n.next = self.s_trailing.val();
                }
            }
        } else if self.st.q.val() == self.s_header.val() {
            if self.step.val() {
                self.take.next = bits::<10>(16);
                self.cbytes_left.d.next = self.chunk_raw.val();
                self.body_left.d.next = self.header.val() << 3;
                if bit_cast::<16, 13>(self.chunk_raw.val()) < self.header.val() {
                    self.report.next = true;
                    self.report_class.next = self.c_header_too_large.val();
                } else if bit_cast::<16, 13>(self.chunk_raw.val()) == self.header.val() {
                    self.st_n.next = self.s_raw_chunk.val();
                } else {
                    self.st_n.next = self.s_tag.val();
                }
            }
        } else if self.st.q.val() == self.s_raw_chunk.val() {
            self.push_kind.next = self.c_pass.val();
            if self.step.val() & self.rb_free.val() {
                self.take.next = bit_cast::<10, 13>(self.keep.val() << 3);
                self.push.next = true;
            }
        } else if self.st.q.val() == self.s_tag.val() {
            if self.step.val() {
                self.take.next = bits::<10>(3);
                self.tag.d.next = bit_cast::<3, 32>(self.vm.val() >> 29);
                self.above_hi.d.next = bits::<32>(0);
                self.above_lo.d.next = bits::<32>(0);
                for j in 0..33 {
                    self.dbp_hi[j].d.next = bits::<32>(0);
                    self.dbp_lo[j].d.next = bits::<32>(0);
                }
                self.mask_hi.d.next = bits::<32>(0);
                self.mask_lo.d.next = bits::<32>(0);
                self.pidx.d.next = bits::<7>(0);
                self.rcnt.d.next = bits::<2>(0);
                // BX and DBX geometry (ZBX sets its own from the mask).
                self.g_l.d.next = bits::<7>(32);
                self.g_p.d.next = bits::<6>(32);
                self.g_q.d.next = bits::<3>(5);
                self.rem.d.next = bits::<6>(32);
                if self.t_w16.q.val() {
                    self.g_l.d.next = bits::<7>(64);
                    self.g_p.d.next = bits::<6>(16);
                    self.g_q.d.next = bits::<3>(6);
                    self.rem.d.next = bits::<6>(16);
                }
                match self.vm.val().get_bits::<3>(29).index() {
                    0 => {
                        self.st_n.next = self.s_mask.val();
                    }
                    1 => {
                        self.g_l.d.next = bits::<7>(31);
                        self.g_p.d.next = bits::<6>(33);
                        self.rem.d.next = bits::<6>(33);
                        if self.t_w16.q.val() {
                            self.g_l.d.next = bits::<7>(63);
                            self.g_p.d.next = bits::<6>(17);
                            self.rem.d.next = bits::<6>(17);
                        }
                        self.st_n.next = self.s_base.val();
                    }
                    2 => {
                        self.st_n.next = self.s_planes.val();
                    }
                    3 => {
                        self.st_n.next = self.s_mask.val();
                    }
                    4 => {
                        self.st_n.next = self.s_raw_block.val();
                    }
                    _ => {
                        self.take.next = bits::<10>(0);
                        self.fail.next = true;
                        self.fail_class.next = self.c_reserved_tag.val();
                    }
                }
            }
        } else if self.st.q.val() == self.s_mask.val() {
            if self.step.val() {
                self.take.next = self.need.val();
                self.mask_hi.d.next = self.v0.val();
                if self.t_w16.q.val() {
                    self.mask_lo.d.next = self.v1.val();
                }
                self.nzc.d.next = self.popc.val();
                self.st_n.next = self.s_push.val();
                if self.popc.val().any() {
                    if self.tag.q.val() == 0 {
                        self.st_n.next = self.s_zvc_symbols.val();
                    } else {
                        self.g_l.d.next = self.popc.val();
                        self.g_q.d.next = self.q_of_n.val();
                        self.st_n.next = self.s_planes.val();
                    }
                }
            }
        } else if self.st.q.val() == self.s_zvc_symbols.val() {
            self.zs[0].next = self.v0.val();
            self.zs[1].next = self.v1.val();
            if self.t_w16.q.val() {
                self.zs[0].next = self.v0.val() >> 16;
                self.zs[1].next = self.v0.val() & 0xFFFF;
                self.zs[2].next = self.v1.val() >> 16;
                self.zs[3].next = self.v1.val() & 0xFFFF;
            }
            if self.step.val() {
                self.take.next = self.need.val();
                for p in 0..64 {
                    for t in 0..4 {
                        if (self.pidx.q.val() + self.slot_index[t].val() == self.slot_index[p].val())
                            & (self.slot_index[t].val() < self.zk.val())
                        {
                            self.psym[p].d.next = self.zs[t].val();
                        }
                    }
                }
                self.pidx.d.next = self.pidx.q.val() + self.zk.val();
                if self.pidx.q.val() + self.zk.val() == self.nzc.q.val() {
                    self.st_n.next = self.s_push.val();
                }
            }
        } else if self.st.q.val() == self.s_base.val() {
            if self.vm.val().get_bit(31) {
                self.base_l.next = (self.v0.val() << 1) | (self.v1.val() >> 31);
                if self.t_w16.q.val() {
                    self.base_l.next = (self.v0.val() >> 15) & 0xFFFF;
                }
            } else {
                match self.vm.val().get_bits::<2>(29).index() {
                    1 => {
                        self.base_l.next = (self.v0.val() >> 25) & 0xF;
                        if self.v0.val().get_bit(28) {
                            self.base_l.next = self.base_l.val() | 0xFFFF_FFF0_u64;
                        }
                    }
                    2 => {
                        self.base_l.next = (self.v0.val() >> 21) & 0xFF;
                        if self.v0.val().get_bit(28) {
                            self.base_l.next = self.base_l.val() | 0xFFFF_FF00_u64;
                        }
                    }
                    3 => {
                        self.base_l.next = (self.v0.val() >> 13) & 0xFFFF;
                        if self.v0.val().get_bit(28) {
                            self.base_l.next = self.base_l.val() | 0xFFFF_0000_u64;
                        }
                    }
                    _ => {}
                }
                if self.t_w16.q.val() {
                    self.base_l.next = self.base_l.val() & 0xFFFF;
                }
            }
            if self.step.val() {
                self.take.next = self.need.val();
                self.base.d.next = self.base_l.val();
                self.st_n.next = self.s_planes.val();
                if self.t_w16.q.val() & (self.vm.val().get_bits::<3>(29) == 3) {
                    self.take.next = bits::<10>(0);
                    self.st_n.next = self.s_base.val();
                    self.fail.next = true;
                    self.fail_class.next = self.c_reserved_base.val();
                }
            }
        } else if self.st.q.val() == self.s_planes.val() {
            if self.step.val() {
                if self.pca_error_class.val().any() {
                    self.fail.next = true;
                    self.fail_class.next = self.pca_error_class.val();
                } else {
                    self.take.next = self.pca_need.val();
                    // B goes too when it is whole in the window, inside the body and clean.
                    self.b_take.next = self.pca_remaining_after.val().any()
                        & !self.b_over.val()
                        & !self.pcb_error_class.val().any()
                        & (self.fill.q.val() >= self.pca_need.val() + self.pcb_need.val());
                    if self.b_take.val() {
                        self.take.next = self.ab_need.val();
                        self.rem_new.next = self.pcb_remaining_after.val();
                        self.above_new_hi.next = self.c_above_hi.val();
                        self.above_new_lo.next = self.c_above_lo.val();
                        // And C, on the same terms.
                        self.c_take.next = self.pcb_remaining_after.val().any()
                            & !self.c_over.val()
                            & !self.pcc_error_class.val().any()
                            & (self.fill.q.val() >= self.ab_need.val() + self.pcc_need.val());
                        if self.c_take.val() {
                            self.take.next = self.ab_need.val() + self.pcc_need.val();
                            self.rem_new.next = self.pcc_remaining_after.val();
                            if self.pcc_write_plane.val() {
                                self.above_new_hi.next = self.pcc_plane_hi.val();
                                self.above_new_lo.next = self.pcc_plane_lo.val();
                            }
                        }
                    }
                    for p in 0..33 {
                        if self.pca_run_write.val()
                            & (self.plane_index[p].val() < self.rem.q.val())
                            & (self.plane_index[p].val() >= self.pca_remaining_after.val())
                        {
                            self.dbp_hi[p].d.next = self.above_hi.q.val();
                            self.dbp_lo[p].d.next = self.above_lo.q.val();
                        }
                        if self.pca_write_plane.val() & (self.plane_index[p].val() == self.pca_remaining_after.val()) {
                            self.dbp_hi[p].d.next = self.pca_plane_hi.val();
                            self.dbp_lo[p].d.next = self.pca_plane_lo.val();
                        }
                        if self.b_take.val()
                            & self.pcb_run_write.val()
                            & (self.plane_index[p].val() < self.pca_remaining_after.val())
                            & (self.plane_index[p].val() >= self.pcb_remaining_after.val())
                        {
                            self.dbp_hi[p].d.next = self.b_above_hi.val();
                            self.dbp_lo[p].d.next = self.b_above_lo.val();
                        }
                        if self.b_take.val()
                            & self.pcb_write_plane.val()
                            & (self.plane_index[p].val() == self.pcb_remaining_after.val())
                        {
                            self.dbp_hi[p].d.next = self.pcb_plane_hi.val();
                            self.dbp_lo[p].d.next = self.pcb_plane_lo.val();
                        }
                        if self.c_take.val()
                            & self.pcc_run_write.val()
                            & (self.plane_index[p].val() < self.pcb_remaining_after.val())
                            & (self.plane_index[p].val() >= self.pcc_remaining_after.val())
                        {
                            self.dbp_hi[p].d.next = self.c_above_hi.val();
                            self.dbp_lo[p].d.next = self.c_above_lo.val();
                        }
                        if self.c_take.val() & self.pcc_write_plane.val() & (self.plane_index[p].val() == self.pcc_remaining_after.val()) {
                            self.dbp_hi[p].d.next = self.pcc_plane_hi.val();
                            self.dbp_lo[p].d.next = self.pcc_plane_lo.val();
                        }
                    }
                    self.above_hi.d.next = self.above_new_hi.val();
                    self.above_lo.d.next = self.above_new_lo.val();
                    self.rem.d.next = self.rem_new.val();
                    if !self.rem_new.val().any() {
                        self.st_n.next = self.s_push.val();
                    }
                }
            }
        } else if self.st.q.val() == self.s_raw_block.val() {
            if self.step.val() {
                self.take.next = bits::<10>(256);
                for c in 0..4 {
                    if bit_cast::<6, 2>(self.rcnt.q.val()) == self.plane_index[c].val() {
                        for t in 0..8 {
                            self.psym[8 * c + t].d.next = (self.win[t].q.val() << 24)
                                | ((self.win[t].q.val() << 8) & 0xFF_0000)
                                | ((self.win[t].q.val() >> 8) & 0xFF00)
                                | (self.win[t].q.val() >> 24);
                        }
                    }
                }
                self.rcnt.d.next = self.rcnt.q.val() + 1;
                if self.rcnt.q.val() == 3 {
                    self.st_n.next = self.s_push.val();
                }
            }
        } else if self.st.q.val() == self.s_push.val() {
            if self.rb_free.val() {
                self.push.next = true;
                self.st_n.next = self.after_block.val();
            }
        } else if self.st.q.val() == self.s_padding.val() {
            // A DBX block still in its range check decides first (it precedes the padding).
            if self.dbx_pending.val() {
                self.take.next = bits::<10>(0);
            } else if self.body_left.q.val() >= 8 {
                self.fail.next = true;
                self.fail_class.next = self.c_size_mismatch.val();
            } else if self.step.val() {
                if self.vm.val().any() {
                    self.fail.next = true;
                    self.fail_class.next = self.c_size_mismatch.val();
                } else {
                    self.take.next = self.need.val();
                    self.chunk.d.next = self.chunk.q.val() + 1;
                    self.st_n.next = self.s_header.val();
                    if !self.raw_left.q.val().any() {
                        self.st_n.next = self.s_trailing.val();
                    }
                }
            }
        } else if self.st.q.val() == self.s_trailing.val() {
            if self.fill.q.val().any() {
                self.report.next = true;
                self.report_class.next = self.c_trailing.val();
            } else if self.ended.q.val() {
                self.st_n.next = self.s_finish.val();
            }
        } else if self.st.q.val() == self.s_error_check.val() {
            // A DBX block still in its range check precedes the failing field: its error, if
            // any, replaces this one.
            if self.dbx_pending.val() {
                self.take.next = bits::<10>(0);
            } else if bit_cast::<16, 10>(self.fill.q.val()) >= self.body_left.q.val() {
                self.report.next = true;
                self.report_class.next = self.e_class.q.val();
            } else if self.ended.q.val() {
                self.report.next = true;
                self.report_class.next = self.c_stream_truncated.val();
            } else {
                self.take.next = self.fill.q.val();
            }
        } else if self.st.q.val() == self.s_drain.val() {
            self.take.next = self.fill.q.val();
            if self.ended.q.val() {
                self.st_n.next = self.s_finish.val();
            }
        } else if self.st.q.val() == self.s_finish.val() {
            if !self.rb_valid.q.val() & !self.job_valid.q.val() & !self.o_valid.q.val() {
                self.done_q.d.next = true;
                self.st_n.next = self.s_idle.val();
            }
        }
        // A DBX block's range check ends while the loop decodes the next block: its error
        // replaces whatever the loop decided this cycle.
        if self.rebuild.delta_err.val() & self.rb_valid.q.val() {
            self.fail.next = true;
            self.fail_class.next = self.c_delta.val();
        }
        // A block error waits in ErrorCheck until the body is known to be complete.
        if self.fail.val() {
            self.take.next = bits::<10>(0);
            self.e_class.d.next = self.fail_class.val();
            self.st_n.next = self.s_error_check.val();
        }
        if self.report.val() {
            self.take.next = bits::<10>(0);
            self.err_q.d.next = true;
            self.err_class_q.d.next = self.report_class.val();
            self.err_chunk_q.d.next = self.chunk.q.val();
            self.st_n.next = self.s_drain.val();
        }
        // Bookkeeping of the body, the chunk and the transfer.
        if self.in_body.val() | (self.st.q.val() == self.s_error_check.val()) {
            self.body_left.d.next = self.body_left.q.val() - bit_cast::<16, 10>(self.take.val());
        }
        if self.push.val() {
            self.cbytes_left.d.next = self.cbytes_left.q.val() - self.keep.val();
            self.raw_left.d.next = self.raw_left.q.val() - bit_cast::<32, 13>(self.keep.val());
            self.addr.d.next = self.addr.q.val() + bit_cast::<32, 13>(self.keep.val());
            if (self.st.q.val() == self.s_raw_chunk.val()) & (self.cbytes_left.q.val() == self.keep.val()) {
                self.chunk.d.next = self.chunk.q.val() + 1;
                self.st_n.next = self.s_header.val();
                if self.raw_left.q.val() == bit_cast::<32, 13>(self.keep.val()) {
                    self.st_n.next = self.s_trailing.val();
                }
            }
        }

        // ---- rebuild stage inputs (each written once)
        self.rb_kind.next = self.push_kind.val();
        for t in 0..8 {
            self.rb_sym[t].next = self.psym[t].q.val();
            if self.st.q.val() == self.s_raw_chunk.val() {
                self.rb_sym[t].next = (self.win[t].q.val() << 24)
                    | ((self.win[t].q.val() << 8) & 0xFF_0000)
                    | ((self.win[t].q.val() >> 8) & 0xFF00)
                    | (self.win[t].q.val() >> 24);
            }
        }
        self.rebuild.clock.next = self.clock.val();
        self.rebuild.load.next = self.push.val();
        self.rebuild.kind.next = self.rb_kind.val();
        self.rebuild.w16.next = self.t_w16.q.val();
        for j in 0..33 {
            self.rebuild.plane_hi[j].next = self.dbp_hi[j].q.val();
            self.rebuild.plane_lo[j].next = self.dbp_lo[j].q.val();
        }
        for t in 0..8 {
            self.rebuild.sym[t].next = self.rb_sym[t].val();
        }
        for t in 8..64 {
            self.rebuild.sym[t].next = self.psym[t].q.val();
        }
        self.rebuild.mask_hi.next = self.mask_hi.q.val();
        self.rebuild.mask_lo.next = self.mask_lo.q.val();
        self.rebuild.base.next = self.base.q.val();
        if self.push.val() {
            self.rb_valid.d.next = true;
            self.rb_addr.d.next = self.addr.q.val();
            self.rb_keep.d.next = bit_cast::<8, 13>(self.keep.val());
            self.rb_last.d.next = self.raw_left.q.val() == bit_cast::<32, 13>(self.keep.val());
            self.rb_id.d.next = self.t_id.q.val();
            self.rb_dbx.d.next = self.rb_kind.val() == 1;
        } else if self.rb_move.val() | self.rebuild.delta_err.val() {
            self.rb_valid.d.next = false;
        }

        // ---- window: drop `take` bits from the head, append the beat behind the live bits
        for i in 0..24 {
            self.wx[i].next = self.win[i].q.val();
        }
        for i in 24..49 {
            self.wx[i].next = bits::<32>(0);
        }
        self.tq.next = bit_cast::<5, 10>(self.take.val() >> 5);
        self.tr.next = bit_cast::<5, 10>(self.take.val());
        for i in 0..25 {
            self.ws[i].next = bits::<32>(0);
            for q in 0..25 {
                if self.tq.val() == self.word_shift[q].val() {
                    self.ws[i].next = self.wx[i + q].val();
                }
            }
        }
        for i in 0..24 {
            self.nw[i].next = self.ws[i].val();
            if self.tr.val().any() {
                self.nw[i].next = (self.ws[i].val() << self.tr.val()) | (self.ws[i + 1].val() >> (bits::<6>(32) - bit_cast::<6, 5>(self.tr.val())));
            }
        }
        self.nw[24].next = bits::<32>(0);
        self.beat_fire.next = self.in_valid.val() & self.in_ready_q.q.val();
        for k in 0..8 {
            self.be[k].next = (self.in_data[k].val() << 24)
                | ((self.in_data[k].val() << 8) & 0xFF_0000)
                | ((self.in_data[k].val() >> 8) & 0xFF00)
                | (self.in_data[k].val() >> 24);
            if bit_cast::<8, 6>(self.in_bytes.val()) <= self.byte_index[4 * k].val() {
                self.be[k].next = self.be[k].val() & 0x00FF_FFFF;
            }
            if bit_cast::<8, 6>(self.in_bytes.val()) <= self.byte_index[4 * k + 1].val() {
                self.be[k].next = self.be[k].val() & 0xFF00_FFFF_u64;
            }
            if bit_cast::<8, 6>(self.in_bytes.val()) <= self.byte_index[4 * k + 2].val() {
                self.be[k].next = self.be[k].val() & 0xFFFF_00FF_u64;
            }
            if bit_cast::<8, 6>(self.in_bytes.val()) <= self.byte_index[4 * k + 3].val() {
                self.be[k].next = self.be[k].val() & 0xFFFF_FF00_u64;
            }
        }
        self.ip.next = self.fill.q.val() - self.take.val();
        self.iq.next = bit_cast::<5, 10>(self.ip.val() >> 5);
        self.ir.next = bit_cast::<5, 10>(self.ip.val());
        for k in 0..8 {
            self.sh[k].next = self.be[k].val() >> self.ir.val();
        }
        self.sh[8].next = bits::<32>(0);
        if self.ir.val().any() {
            for k in 1..9 {
                self.sh[k].next = self.sh[k].val() | (self.be[k - 1].val() << (bits::<6>(32) - bit_cast::<6, 5>(self.ir.val())));
            }
        }
        self.fill_n.next = self.ip.val();
        self.ended_n.next = self.ended.q.val();
        if self.beat_fire.val() {
            for q in 0..17 {
                if self.iq.val() == self.word_shift[q].val() {
                    for k in 0..9 {
                        self.nw[q + k].next = self.nw[q + k].val() | self.sh[k].val();
                    }
                }
            }
            self.fill_n.next = self.ip.val() + (bit_cast::<10, 6>(self.in_bytes.val()) << 3);
            self.ended_n.next = self.in_last.val();
        }
        if self.st.q.val() == self.s_idle.val() {
            self.fill_n.next = bits::<10>(0);
            self.ended_n.next = false;
        }
        for i in 0..24 {
            self.win[i].d.next = self.nw[i].val();
        }
        self.fill.d.next = self.fill_n.val();
        self.ended.d.next = self.ended_n.val();
        self.st.d.next = self.st_n.val();

        // ---- writer: a block as up to four writes, one per cycle
        self.beat_cnt.next = self.job_keep.q.val() - (bit_cast::<8, 2>(self.job_beat.q.val()) << 5);
        self.strb.next = bits::<32>(0xFFFF_FFFF_u64);
        if self.beat_cnt.val() < 32 {
            self.strb.next = !(bits::<32>(0xFFFF_FFFF_u64) << bit_cast::<5, 8>(self.beat_cnt.val()));
        }
        if self.job_valid.q.val() & self.out_free.val() {
            self.o_valid.d.next = true;
            self.o_addr.d.next = self.job_addr.q.val() + (bit_cast::<32, 2>(self.job_beat.q.val()) << 5);
            self.o_strb.d.next = self.strb.val();
            self.o_id.d.next = self.job_id.q.val();
            self.o_last.d.next = self.job_last.q.val() & self.job_fin.val();
            match self.job_beat.q.val().index() {
                0 => {
                    for k in 0..8 {
                        self.o_data[k].d.next = self.job_words[k].q.val();
                    }
                }
                1 => {
                    for k in 0..8 {
                        self.o_data[k].d.next = self.job_words[k + 8].q.val();
                    }
                }
                2 => {
                    for k in 0..8 {
                        self.o_data[k].d.next = self.job_words[k + 16].q.val();
                    }
                }
                _ => {
                    for k in 0..8 {
                        self.o_data[k].d.next = self.job_words[k + 24].q.val();
                    }
                }
            }
            self.job_beat.d.next = self.job_beat.q.val() + 1;
        } else if self.out_ready.val() {
            self.o_valid.d.next = false;
        }
        if self.job_fin.val() {
            self.job_valid.d.next = false;
        }
        if self.rb_move.val() {
            self.job_valid.d.next = true;
            self.job_beat.d.next = bits::<2>(0);
            for k in 0..32 {
                self.job_words[k].d.next = self.rebuild.words[k].val();
            }
            self.job_addr.d.next = self.rb_addr.q.val();
            self.job_keep.d.next = self.rb_keep.q.val();
            self.job_last.d.next = self.rb_last.q.val();
            self.job_id.d.next = self.rb_id.q.val();
        }

        // ---- handshake flops for the next cycle
        self.desc_ready_q.d.next = self.st_n.val() == self.s_idle.val();
        self.in_ready_q.d.next = (self.st_n.val() != self.s_idle.val())
            & (self.st_n.val() != self.s_finish.val())
            & !self.ended_n.val()
            & (self.fill_n.val() <= 512);
        if self.reset.val() {
            self.st.d.next = self.s_idle.val();
            self.fill.d.next = bits::<10>(0);
            self.ended.d.next = false;
            self.rb_valid.d.next = false;
            self.job_valid.d.next = false;
            self.o_valid.d.next = false;
            self.desc_ready_q.d.next = false;
            self.in_ready_q.d.next = false;
            self.done_q.d.next = false;
            self.err_q.d.next = false;
        }

        // ---- outputs: every one a flop
        self.desc_ready.next = self.desc_ready_q.q.val();
        self.in_ready.next = self.in_ready_q.q.val();
        self.out_valid.next = self.o_valid.q.val();
        self.out_addr.next = self.o_addr.q.val();
        for k in 0..8 {
            self.out_data[k].next = self.o_data[k].q.val();
        }
        self.out_strb.next = self.o_strb.q.val();
        self.out_id.next = self.o_id.q.val();
        self.out_last.next = self.o_last.q.val();
        self.done.next = self.done_q.q.val();
        self.err_valid.next = self.err_q.q.val();
        self.err_class.next = self.err_class_q.q.val();
        self.err_chunk.next = self.err_chunk_q.q.val();
    }
}
