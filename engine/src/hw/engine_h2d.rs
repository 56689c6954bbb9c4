//! The host-to-device half of `pz_engine`: a 64-byte-per-cycle chunk splitter in front of two
//! [`DecompressorLane`]s, chunk `c` of the transfer's FORMAT.md stream decoded by lane `c mod 2`
//! and written to device memory at `4096 c + offset`.
//!
//! # Ports (every output is a flop, or a flop's bits rewired)
//! * Descriptor (valid/ready): `desc_id`, `desc_w16`, `desc_raw_bytes` (the tensor's size), as
//!   `pz_h2d_lane`'s; `desc_ready` is high while the engine is idle (transfers run one at a time).
//! * Stream (valid/ready): `in_data[16]` = stream bytes `4k … 4k+3` in word `k` (two 32-byte
//!   beats side by side), `in_bytes` (0–64 valid bytes, 64 except on the last beat; an empty
//!   stream is one beat of 0 bytes), `in_last`.
//! * Two write ports `out{k}_*` as `pz_h2d_lane`'s (`addr` a multiple of 32, `data[8]`, `strb`,
//!   `id`, `last`): port `k` writes the chunks `c ≡ k (mod 2)`; writes of different chunks
//!   interleave and finish out of order, apply each by address.
//! * `done` / `done_id`: one-cycle pulse once both lanes finished the transfer.
//! * `err_valid`, `err_class`, `err_id`, `err_chunk`: the lanes' FORMAT.md §9 errors with the
//!   chunk index of the tensor (the lower of the two lanes' bad chunks), or trailing bytes after
//!   the last chunk (class 11, chunk = the number of chunks); one pulse, before `done`.
//!
//! # Inside
//! Each lane decodes one lane-level transfer per engine transfer: the concatenation of its
//! chunks, itself a FORMAT.md stream of `Σ C` raw bytes, so its own four contexts interleave
//! its chunks as they do in `pz_h2d_lane`; its write addresses `4096 k + o` (its `k`-th chunk)
//! become `4096 (2k + lane) + o` by rewiring bits. The splitter holds two input beats, reads each
//! chunk's 16-bit header where it lies (possibly split across beats), and per cycle moves one
//! segment — the bytes of the current chunk in the front beat — into the repacker, which appends
//! them behind the lane's partial beat (a byte funnel; one shared by both lanes, since a cycle
//! moves one segment) and pushes 0–2 full 32-byte pieces into that lane's two piece buffers
//! (even and odd pieces, [`ChunkFifo`]s). A lane's last piece carries `last` (a partial piece or
//! an empty one flushes the rest). A chunk's 2-byte header is read (and routed) in a cycle of its
//! own and its body's length registered, so no length or flag depends on the stream bytes of the
//! same cycle: a chunk costs one cycle more than its body's segments.

use super::chunk_fifo::ChunkFifo;
use super::decompressor_lane::DecompressorLane;
use super::{arr, constants};
use rust_hdl::prelude::*;

/// Bytes of the engine's stream input per cycle (two 32-byte beats).
pub const STREAM_BEAT_BYTES: usize = 64;
/// Raw bytes of a full chunk (FORMAT.md §7).
const CHUNK_RAW_BYTES: u64 = 4096;

hw_block! {
/// The host-to-device half of the engine; see the module docs.
#[derive(LogicBlock)]
pub struct EngineH2d {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A descriptor is offered.
    pub desc_valid: Signal<In, Bit>,
    /// The engine takes the offered descriptor this cycle.
    pub desc_ready: Signal<Out, Bit>,
    /// Descriptor: transfer id.
    pub desc_id: Signal<In, Bits<8>>,
    /// Descriptor: 16-bit symbols (bf16/f16); else 32-bit.
    pub desc_w16: Signal<In, Bit>,
    /// Descriptor: original bytes of the transfer.
    pub desc_raw_bytes: Signal<In, Bits<32>>,
    /// A 64-byte stream beat is offered.
    pub in_valid: Signal<In, Bit>,
    /// The engine takes the offered beat this cycle.
    pub in_ready: Signal<Out, Bit>,
    /// The beat as 16 little-endian 32-bit words.
    pub in_data: [Signal<In, Bits<32>>; 16] = arr(),
    /// Valid bytes of the beat (0–64).
    pub in_bytes: Signal<In, Bits<7>>,
    /// Last beat of the transfer's stream.
    pub in_last: Signal<In, Bit>,
    /// Write port 0 (even chunks): a write is offered.
    pub out0_valid: Signal<Out, Bit>,
    /// Write port 0: the memory takes it this cycle.
    pub out0_ready: Signal<In, Bit>,
    /// Write port 0: byte address in the destination (a multiple of 32).
    pub out0_addr: Signal<Out, Bits<32>>,
    /// Write port 0: data, little-endian words.
    pub out0_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// Write port 0: byte enables.
    pub out0_strb: Signal<Out, Bits<32>>,
    /// Write port 0: transfer id.
    pub out0_id: Signal<Out, Bits<8>>,
    /// Write port 0: the write holds the lane's final byte of the transfer.
    pub out0_last: Signal<Out, Bit>,
    /// Write port 1 (odd chunks): a write is offered.
    pub out1_valid: Signal<Out, Bit>,
    /// Write port 1: the memory takes it this cycle.
    pub out1_ready: Signal<In, Bit>,
    /// Write port 1: byte address in the destination (a multiple of 32).
    pub out1_addr: Signal<Out, Bits<32>>,
    /// Write port 1: data, little-endian words.
    pub out1_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// Write port 1: byte enables.
    pub out1_strb: Signal<Out, Bits<32>>,
    /// Write port 1: transfer id.
    pub out1_id: Signal<Out, Bits<8>>,
    /// Write port 1: the write holds the lane's final byte of the transfer.
    pub out1_last: Signal<Out, Bit>,
    /// One-cycle pulse: the transfer is finished.
    pub done: Signal<Out, Bit>,
    /// Transfer id of `done`.
    pub done_id: Signal<Out, Bits<8>>,
    /// One-cycle pulse: the transfer's stream is malformed.
    pub err_valid: Signal<Out, Bit>,
    /// FORMAT.md §9 condition (`H2dErrorClass` numbering).
    pub err_class: Signal<Out, Bits<4>>,
    /// Transfer id of the error.
    pub err_id: Signal<Out, Bits<8>>,
    /// Chunk index of the error in the tensor's stream.
    pub err_chunk: Signal<Out, Bits<20>>,
    /// Lane 0 (even chunks).
    pub lane0: DecompressorLane,
    /// Lane 1 (odd chunks).
    pub lane1: DecompressorLane,
    fa0: ChunkFifo,
    fb0: ChunkFifo,
    fa1: ChunkFifo,
    fb1: ChunkFifo,

    lane_ix: [Constant<Bit>; 2] = [Constant::new(false), Constant::new(true)],
    ix8: [Constant<Bits<3>>; 8] = constants(1),
    k4: [Constant<Bits<7>>; 17] = constants(4),
    k_chunk: Constant<Bits<32>> = Constant::new(CHUNK_RAW_BYTES.into()),
    k_two_chunks: Constant<Bits<32>> = Constant::new((2 * CHUNK_RAW_BYTES).into()),
    k_window: Constant<Bits<7>> = Constant::new((STREAM_BEAT_BYTES as u64).into()),
    c_trailing: Constant<Bits<4>> = Constant::new(11u64.into()),
    t_active: DFF<Bit>,
    t_id: DFF<Bits<8>>,
    raw_left: DFF<Bits<32>>,
    raw_nz: DFF<Bit>,
    in_chunk: DFF<Bit>,
    c_lane: DFF<Bit>,
    s_final: DFF<Bit>,
    s_craw: DFF<Bits<13>>,
    cl: DFF<Bits<13>>,
    hdr_lo: DFF<Bit>,
    s_lo: DFF<Bits<8>>,
    nchunks: DFF<Bits<20>>,
    trail: DFF<Bit>,
    got_last: DFF<Bit>,
    in_end: DFF<Bit>,
    ib0: [DFF<Bits<32>>; 16] = arr(),
    ib1: [DFF<Bits<32>>; 16] = arr(),
    ib0_bytes: DFF<Bits<7>>,
    ib1_bytes: DFF<Bits<7>>,
    ib0_last: DFF<Bit>,
    ib1_last: DFF<Bit>,
    ib_cnt: DFF<Bits<2>>,
    off: DFF<Bits<6>>,
    pq_hot: DFF<Bits<16>>,
    avail_q: DFF<Bits<7>>,
    in_ready_q: DFF<Bit>,
    desc_ready_q: DFF<Bit>,
    acc0: [DFF<Bits<32>>; 8] = arr(),
    acc1: [DFF<Bits<32>>; 8] = arr(),
    fill: [DFF<Bits<5>>; 2] = arr(),
    wpar: [DFF<Bit>; 2] = arr(),
    rpar: [DFF<Bit>; 2] = arr(),
    fl_pend: [DFF<Bit>; 2] = arr(),
    closed: [DFF<Bit>; 2] = arr(),
    l_done: [DFF<Bit>; 2] = arr(),
    e_have: DFF<Bit>,
    e_cls: DFF<Bits<4>>,
    e_chunk: DFF<Bits<20>>,
    e_rep: DFF<Bit>,
    e_id: DFF<Bits<8>>,
    ld_id: DFF<Bits<8>>,
    done_q: DFF<Bit>,
    done_id_q: DFF<Bits<8>>,
    err_q: DFF<Bit>,
    err_class_q: DFF<Bits<4>>,
    err_id_q: DFF<Bits<8>>,
    err_chunk_q: DFF<Bits<20>>,

    desc_fire: Signal<Local, Bit>,
    full: Signal<Local, Bits<32>>,
    raw0: Signal<Local, Bits<32>>,
    raw1: Signal<Local, Bits<32>>,
    t_active_n: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    avail: Signal<Local, Bits<7>>,
    view: [Signal<Local, Bits<32>>; 32] = arr(),
    pw: [Signal<Local, Bits<32>>; 17] = arr(),
    seg: [Signal<Local, Bits<32>>; 16] = arr(),
    off_n: Signal<Local, Bits<6>>,
    rsh: Signal<Local, Bits<6>>,
    at_start: Signal<Local, Bit>,
    trailing: Signal<Local, Bit>,
    big: Signal<Local, Bit>,
    raw_after: Signal<Local, Bits<32>>,
    hdr: Signal<Local, Bits<16>>,
    hdr_c: Signal<Local, Bits<13>>,
    body: Signal<Local, Bits<13>>,
    wantc: Signal<Local, Bits<7>>,
    wsmall: Signal<Local, Bits<7>>,
    cl_lo: Signal<Local, Bits<7>>,
    cl_big: Signal<Local, Bit>,
    cl_huge: Signal<Local, Bit>,
    ge: Signal<Local, Bit>,
    gt: Signal<Local, Bit>,
    take_all: Signal<Local, Bit>,
    zero_body: Signal<Local, Bit>,
    end_body: Signal<Local, Bit>,
    lo_start: Signal<Local, Bit>,
    cl_n: Signal<Local, Bits<13>>,
    tl: Signal<Local, Bit>,
    tl_room: Signal<Local, Bit>,
    tl_shut: Signal<Local, Bit>,
    consume: Signal<Local, Bit>,
    route: Signal<Local, Bit>,
    fin: Signal<Local, Bit>,
    pop_ib: Signal<Local, Bit>,
    cnt_left: Signal<Local, Bits<2>>,
    avail_n: Signal<Local, Bits<7>>,
    imask: Signal<Local, Bits<32>>,
    inm: [Signal<Local, Bits<32>>; 16] = arr(),
    cnt_n: Signal<Local, Bits<2>>,
    got_last_n: Signal<Local, Bit>,
    pmask: Signal<Local, Bits<32>>,
    segm: [Signal<Local, Bits<32>>; 16] = arr(),
    segz: [Signal<Local, Bits<32>>; 31] = arr(),
    accs: [Signal<Local, Bits<32>>; 8] = arr(),
    rs: Signal<Local, Bits<5>>,
    rq: Signal<Local, Bits<3>>,
    lsh: Signal<Local, Bits<6>>,
    u: [Signal<Local, Bits<32>>; 24] = arr(),
    cat: [Signal<Local, Bits<32>>; 24] = arr(),
    tot: Signal<Local, Bits<7>>,
    tot_a: Signal<Local, Bits<7>>,
    tot_w: Signal<Local, Bits<7>>,
    np: Signal<Local, Bits<2>>,
    r_n: Signal<Local, Bits<5>>,
    acc_n: [Signal<Local, Bits<32>>; 8] = arr(),
    last0: Signal<Local, Bit>,
    last1: Signal<Local, Bit>,
    p0v: [Signal<Local, Bit>; 2] = arr(),
    p1v: [Signal<Local, Bit>; 2] = arr(),
    flv: [Signal<Local, Bit>; 2] = arr(),
    eh: Signal<Local, Bit>,
    ec: Signal<Local, Bits<20>>,
    ecls: Signal<Local, Bits<4>>,
    eid: Signal<Local, Bits<8>>,
    gchunk: [Signal<Local, Bits<20>>; 2] = arr(),
    da0: [Signal<Local, Bits<32>>; 8] = arr(),
    db0: [Signal<Local, Bits<32>>; 8] = arr(),
    da1: [Signal<Local, Bits<32>>; 8] = arr(),
    db1: [Signal<Local, Bits<32>>; 8] = arr(),
    pa_bytes: [Signal<Local, Bits<6>>; 2] = arr(),
    pb_bytes: [Signal<Local, Bits<6>>; 2] = arr(),
    pa_last: [Signal<Local, Bit>; 2] = arr(),
    pb_last: [Signal<Local, Bit>; 2] = arr(),
    ld0: [Signal<Local, Bits<32>>; 8] = arr(),
    ld1: [Signal<Local, Bits<32>>; 8] = arr(),
    lin_valid: [Signal<Local, Bit>; 2] = arr(),
    lin_bytes: [Signal<Local, Bits<6>>; 2] = arr(),
    lin_last: [Signal<Local, Bit>; 2] = arr(),
}
}

/// Writes [`EngineH2d`]'s `update` with the per-lane logic repeated for each lane (lanes and their
/// buffers are named fields: rust-hdl exports a path with two array indexes wrongly).
macro_rules! engine_h2d_update {
    ($(($lane:ident, $fa:ident, $fb:ident, $acc:ident, $i:tt, $hi:tt,
        $ov:ident, $ordy:ident, $oa:ident, $od:ident, $os:ident, $oid:ident, $ol:ident,
        $da:ident, $db:ident, $ld:ident, $raw:ident)),*) => {
impl Logic for EngineH2d {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, t_active, t_id, raw_left, raw_nz, in_chunk, avail_q, c_lane, s_final, s_craw, cl, hdr_lo, s_lo, nchunks, trail, got_last,
            in_end, ib0_bytes, ib1_bytes, ib0_last, ib1_last, ib_cnt, off, pq_hot, in_ready_q, desc_ready_q, e_have, e_cls, e_chunk,
            e_rep, e_id, ld_id, done_q, done_id_q, err_q, err_class_q, err_id_q, err_chunk_q
        );
        for k in 0..16 {
            self.ib0[k].clock.next = self.clock.val();
            self.ib0[k].d.next = self.ib0[k].q.val();
            self.ib1[k].clock.next = self.clock.val();
            self.ib1[k].d.next = self.ib1[k].q.val();
        }
        for k in 0..8 {
            self.acc0[k].clock.next = self.clock.val();
            self.acc0[k].d.next = self.acc0[k].q.val();
            self.acc1[k].clock.next = self.clock.val();
            self.acc1[k].d.next = self.acc1[k].q.val();
        }
        for l in 0..2 {
            self.fill[l].clock.next = self.clock.val();
            self.fill[l].d.next = self.fill[l].q.val();
            self.wpar[l].clock.next = self.clock.val();
            self.wpar[l].d.next = self.wpar[l].q.val();
            self.rpar[l].clock.next = self.clock.val();
            self.rpar[l].d.next = self.rpar[l].q.val();
            self.fl_pend[l].clock.next = self.clock.val();
            self.fl_pend[l].d.next = self.fl_pend[l].q.val();
            self.closed[l].clock.next = self.clock.val();
            self.closed[l].d.next = self.closed[l].q.val();
            self.l_done[l].clock.next = self.clock.val();
            self.l_done[l].d.next = self.l_done[l].q.val();
        }

        self.off_n.next = self.off.q.val();

        // ---- descriptor: both lanes get their share of the chunks (lane l: chunks c ≡ l mod 2)
        self.desc_fire.next = self.desc_valid.val() & self.desc_ready_q.q.val();
        self.full.next = self.desc_raw_bytes.val() >> 12;
        self.raw0.next = ((self.full.val() + 1) >> 1) << 12;
        self.raw1.next = (self.full.val() >> 1) << 12;
        if self.full.val().get_bit(0) {
            self.raw1.next = self.raw1.val() + (self.desc_raw_bytes.val() & 0xFFF);
        } else {
            self.raw0.next = self.raw0.val() + (self.desc_raw_bytes.val() & 0xFFF);
        }
        self.t_active_n.next = self.t_active.q.val();
        if self.desc_fire.val() {
            self.t_active_n.next = true;
            self.t_id.d.next = self.desc_id.val();
            self.raw_left.d.next = self.desc_raw_bytes.val();
            self.raw_nz.d.next = self.desc_raw_bytes.val().any();
            self.in_chunk.d.next = false;
            self.c_lane.d.next = false;
            self.cl.d.next = bits::<13>(0);
            self.hdr_lo.d.next = false;
            self.nchunks.d.next = bits::<20>(0);
            self.trail.d.next = false;
            self.e_rep.d.next = false;
            self.off_n.next = bits::<6>(0);
            for l in 0..2 {
                self.closed[l].d.next = false;
                self.l_done[l].d.next = false;
            }
            // A lane without chunks gets an empty stream (one piece of 0 bytes).
            self.fl_pend[0].d.next = !self.desc_raw_bytes.val().any();
            self.fl_pend[1].d.next = self.desc_raw_bytes.val() <= self.k_chunk.val();
        }

        // ---- the splitter's view: the front beat from `off` on (its bytes past `ib0_bytes` are
        // zero, masked as the beat is taken); `avail_q` holds `ib0_bytes − off` (0 when empty)
        self.avail.next = self.avail_q.q.val();
        for k in 0..16 {
            self.view[k].next = self.ib0[k].q.val();
        }
        for k in 16..32 {
            self.view[k].next = bits::<32>(0);
        }
        self.rsh.next = (self.off.q.val() & 3) << 3;
        for j in 0..17 {
            self.pw[j].next = bits::<32>(0);
        }
        for q in 0..16 {
            // `pq_hot`: the word offset `off / 4` one-hot, a flop (it selects 17 × 32 bits).
            if self.pq_hot.q.val().get_bit(q) {
                for j in 0..17 {
                    self.pw[j].next = self.view[q + j].val();
                }
            }
        }
        for k in 0..16 {
            self.seg[k].next = self.pw[k].val();
            if self.rsh.val().any() {
                self.seg[k].next = (self.pw[k].val() >> self.rsh.val()) | (self.pw[k + 1].val() << (bits::<6>(32) - self.rsh.val()));
            }
        }

        // ---- chunk bookkeeping. A chunk's header is read in a cycle of its own (both bytes, or
        // its first byte when it is the front beat's last, the second in the next cycle) and the
        // body's length registered in `cl`; a body then moves min(avail, cl) bytes per cycle. No
        // length or flag of a cycle depends on the stream bytes of that cycle.
        self.at_start.next = !self.in_chunk.q.val() & !self.hdr_lo.q.val() & self.raw_nz.q.val();
        self.trailing.next = !self.in_chunk.q.val() & !self.hdr_lo.q.val() & !self.raw_nz.q.val();
        self.big.next = self.raw_left.q.val() > self.k_chunk.val();
        self.hdr_c.next = bit_cast::<13, 32>(self.raw_left.q.val());
        self.raw_after.next = bits::<32>(0);
        if self.big.val() {
            self.hdr_c.next = bit_cast::<13, 32>(self.k_chunk.val());
            self.raw_after.next = self.raw_left.q.val() - self.k_chunk.val();
        }
        self.hdr.next = bit_cast::<16, 32>(self.seg[0].val());
        if self.hdr_lo.q.val() {
            // The second byte opens the new front beat.
            self.hdr.next = bit_cast::<16, 8>(self.s_lo.q.val()) | (bit_cast::<16, 32>(self.ib0[0].q.val() & 0xFF) << 8);
            self.hdr_c.next = self.s_craw.q.val();
        }
        // A header above the raw size leaves an empty body (the lane reports HeaderTooLarge).
        self.body.next = bit_cast::<13, 16>(self.hdr.val());
        if self.hdr.val() > bit_cast::<16, 13>(self.hdr_c.val()) {
            self.body.next = bits::<13>(0);
        }
        self.lo_start.next = self.at_start.val() & (self.avail.val() == 1);
        // The bytes the current item still needs: `wsmall` (a body's `cl` by its low 7 bits:
        // exact below 128, and used only below `avail`) and `wantc` (clipped at a beat, for the
        // mask); `ge`: the item takes all of `avail` (want ≥ avail); `gt`: a body outlasts the
        // front beat (cl > avail). As `avail` ≤ 64, a body of 128 bytes or more (`cl_huge`) wins
        // both compares and otherwise 7-bit compares decide.
        self.cl_lo.next = bit_cast::<7, 13>(self.cl.q.val());
        self.cl_big.next = (self.cl.q.val() >> 6).any();
        self.cl_huge.next = (self.cl.q.val() >> 7).any();
        self.wsmall.next = bits::<7>(2);
        self.ge.next = self.avail.val() <= 2;
        self.gt.next = false;
        if self.hdr_lo.q.val() {
            self.wsmall.next = bits::<7>(1);
            self.ge.next = self.avail.val() <= 1;
        }
        if self.in_chunk.q.val() {
            self.wsmall.next = self.cl_lo.val();
            self.ge.next = self.cl_huge.val() | (self.avail.val() <= self.cl_lo.val());
            self.gt.next = self.cl_huge.val() | (self.avail.val() < self.cl_lo.val());
        }
        self.wantc.next = self.wsmall.val();
        if self.in_chunk.q.val() & self.cl_big.val() {
            self.wantc.next = self.k_window.val();
        }
        self.take_all.next = self.ge.val() | self.trailing.val();
        self.zero_body.next = self.in_chunk.q.val() & !self.cl.q.val().any();
        self.end_body.next = self.in_chunk.q.val() & !self.gt.val();
        self.cl_n.next = bits::<13>(0);
        if self.gt.val() {
            self.cl_n.next = self.cl.q.val() - bit_cast::<13, 7>(self.avail.val());
        }
        // The current chunk's lane, a flop (it moves on as a body ends): `tl` selects 256 bits.
        self.tl.next = self.c_lane.q.val();
        self.tl_room.next = false;
        self.tl_shut.next = false;
        $(
            if self.tl.val() == self.lane_ix[$i].val() {
                self.tl_room.next = self.$fa.room.val() & self.$fb.room.val();
                self.tl_shut.next = self.closed[$i].q.val() | self.fl_pend[$i].q.val();
            }
        )*
        // An empty body ends its chunk in a cycle of 0 bytes.
        self.consume.next = self.t_active.q.val() & (self.avail.val().any() | self.zero_body.val()) & (self.tl_room.val() | self.trailing.val() | self.tl_shut.val());
        self.route.next = self.consume.val() & !self.trailing.val() & !self.tl_shut.val();
        // The segment ends its chunk's body, the lane's last chunk.
        self.fin.next = self.route.val() & self.end_body.val() & self.s_final.q.val();
        if self.consume.val() {
            if self.at_start.val() {
                self.hdr_lo.d.next = self.lo_start.val();
                self.s_lo.d.next = bit_cast::<8, 32>(self.seg[0].val());
                self.in_chunk.d.next = !self.lo_start.val();
                self.cl.d.next = self.body.val();
                self.raw_left.d.next = self.raw_after.val();
                self.raw_nz.d.next = self.big.val();
                self.s_craw.d.next = self.hdr_c.val();
                self.s_final.d.next = self.raw_left.q.val() <= self.k_two_chunks.val();
                self.nchunks.d.next = self.nchunks.q.val() + 1;
            }
            if self.hdr_lo.q.val() {
                self.hdr_lo.d.next = false;
                self.in_chunk.d.next = true;
                self.cl.d.next = self.body.val();
            }
            if self.in_chunk.q.val() {
                self.cl.d.next = self.cl_n.val();
                self.in_chunk.d.next = self.gt.val();
                if !self.gt.val() {
                    self.c_lane.d.next = !self.c_lane.q.val();
                }
            }
            if self.trailing.val() {
                self.trail.d.next = true;
            }
        }

        // ---- the repacker: the segment (n bytes) behind the target lane's partial piece
        // (bytes past `avail` are zero already: the segment is masked by `wantc` alone)
        self.pmask.next = bits::<32>(0xFF_FFFF);
        if (self.wantc.val() & 3) == 1 {
            self.pmask.next = bits::<32>(0xFF);
        }
        if (self.wantc.val() & 3) == 2 {
            self.pmask.next = bits::<32>(0xFFFF);
        }
        for k in 0..16 {
            self.segm[k].next = bits::<32>(0);
            if self.wantc.val() >= self.k4[k + 1].val() {
                self.segm[k].next = self.seg[k].val();
            } else if self.wantc.val() > self.k4[k].val() {
                self.segm[k].next = self.seg[k].val() & self.pmask.val();
            }
        }
        // segz = 7 zero words, the 16 segment words, 8 zero words: u[w] = segm[w − rq].
        for k in 0..7 {
            self.segz[k].next = bits::<32>(0);
        }
        for k in 0..8 {
            self.segz[k + 23].next = bits::<32>(0);
        }
        for k in 0..16 {
            self.segz[k + 7].next = self.segm[k].val();
        }
        for k in 0..8 {
            self.accs[k].next = self.acc0[k].q.val();
            if self.tl.val() {
                self.accs[k].next = self.acc1[k].q.val();
            }
        }
        self.rs.next = self.fill[0].q.val();
        if self.tl.val() {
            self.rs.next = self.fill[1].q.val();
        }
        self.rq.next = bit_cast::<3, 5>(self.rs.val() >> 2);
        self.lsh.next = bit_cast::<6, 5>(self.rs.val() & 3) << 3;
        for w in 0..24 {
            self.u[w].next = bits::<32>(0);
        }
        for q in 0..8 {
            if self.rq.val() == self.ix8[q].val() {
                for w in 0..24 {
                    self.u[w].next = self.segz[w + 7 - q].val();
                }
            }
        }
        self.cat[0].next = self.u[0].val() << self.lsh.val();
        for w in 1..24 {
            self.cat[w].next = self.u[w].val() << self.lsh.val();
            if self.lsh.val().any() {
                self.cat[w].next = self.cat[w].val() | (self.u[w - 1].val() >> (bits::<6>(32) - self.lsh.val()));
            }
        }
        for w in 0..8 {
            self.cat[w].next = self.cat[w].val() | self.accs[w].val();
        }
        // rs + n, with n = min(avail, want): both sums side by side, one picked by `take_all`.
        self.tot_a.next = bit_cast::<7, 5>(self.rs.val()) + self.avail.val();
        self.tot_w.next = bit_cast::<7, 5>(self.rs.val()) + self.wsmall.val();
        self.tot.next = self.tot_w.val();
        if self.take_all.val() {
            self.tot.next = self.tot_a.val();
        }
        self.np.next = bit_cast::<2, 7>(self.tot.val() >> 5);
        self.r_n.next = bit_cast::<5, 7>(self.tot.val());
        for w in 0..8 {
            self.acc_n[w].next = self.cat[w].val();
            if self.np.val() == 1 {
                self.acc_n[w].next = self.cat[w + 8].val();
            }
            if self.np.val() == 2 {
                self.acc_n[w].next = self.cat[w + 16].val();
            }
        }
        self.last0.next = self.fin.val() & (self.np.val() == 1) & !self.r_n.val().any();
        self.last1.next = self.fin.val() & (self.np.val() == 2) & !self.r_n.val().any();

        // ---- the held beats: drop the front one when read, append the offered beat
        self.fire.next = self.in_valid.val() & self.in_ready_q.q.val();
        self.pop_ib.next = self.t_active.q.val() & self.ib_cnt.q.val().any() & (!self.avail.val().any() | (self.consume.val() & self.take_all.val()));
        self.avail_n.next = self.avail.val();
        if self.consume.val() {
            // (a segment that does not pop takes wsmall < avail bytes)
            self.off_n.next = self.off.q.val() + bit_cast::<6, 7>(self.wsmall.val());
            self.avail_n.next = self.avail.val() - self.wsmall.val();
        }
        self.cnt_left.next = self.ib_cnt.q.val();
        if self.pop_ib.val() {
            self.off_n.next = bits::<6>(0);
            self.avail_n.next = self.ib1_bytes.q.val();
            self.cnt_left.next = self.ib_cnt.q.val() - 1;
            for k in 0..16 {
                self.ib0[k].d.next = self.ib1[k].q.val();
            }
            self.ib0_bytes.d.next = self.ib1_bytes.q.val();
            self.ib0_last.d.next = self.ib1_last.q.val();
            if self.ib0_last.q.val() {
                self.in_end.d.next = true;
            }
        }
        if !self.cnt_left.val().any() {
            self.avail_n.next = bits::<7>(0);
        }
        // The offered beat, its bytes past `in_bytes` zeroed.
        self.imask.next = bits::<32>(0xFF_FFFF);
        if (self.in_bytes.val() & 3) == 1 {
            self.imask.next = bits::<32>(0xFF);
        }
        if (self.in_bytes.val() & 3) == 2 {
            self.imask.next = bits::<32>(0xFFFF);
        }
        for k in 0..16 {
            self.inm[k].next = bits::<32>(0);
            if self.in_bytes.val() >= self.k4[k + 1].val() {
                self.inm[k].next = self.in_data[k].val();
            } else if self.in_bytes.val() > self.k4[k].val() {
                self.inm[k].next = self.in_data[k].val() & self.imask.val();
            }
        }
        self.cnt_n.next = self.cnt_left.val();
        self.got_last_n.next = self.got_last.q.val();
        if self.fire.val() {
            self.cnt_n.next = self.cnt_left.val() + 1;
            self.got_last_n.next = self.in_last.val();
            if self.cnt_left.val().any() {
                for k in 0..16 {
                    self.ib1[k].d.next = self.inm[k].val();
                }
                self.ib1_bytes.d.next = self.in_bytes.val();
                self.ib1_last.d.next = self.in_last.val();
            } else {
                for k in 0..16 {
                    self.ib0[k].d.next = self.inm[k].val();
                }
                self.ib0_bytes.d.next = self.in_bytes.val();
                self.ib0_last.d.next = self.in_last.val();
                self.avail_n.next = self.in_bytes.val();
            }
        }
        self.avail_q.d.next = self.avail_n.val();
        self.off.d.next = self.off_n.val();
        self.pq_hot.d.next = bits::<16>(1) << bit_cast::<16, 6>(self.off_n.val() >> 2);
        if self.desc_fire.val() {
            self.got_last_n.next = false;
            self.in_end.d.next = false;
        }
        self.ib_cnt.d.next = self.cnt_n.val();
        self.got_last.d.next = self.got_last_n.val();

        // ---- per lane: pieces into its buffers, flushes, the lane, errors, ports
        // A new transfer starts without an error (the descriptor clears the held one).
        self.eh.next = self.e_have.q.val() & !self.desc_fire.val();
        self.ec.next = self.e_chunk.q.val();
        self.ecls.next = self.e_cls.q.val();
        self.eid.next = self.e_id.q.val();
        $(
            self.p0v[$i].next = self.route.val() & (self.tl.val() == self.lane_ix[$i].val()) & self.np.val().any();
            self.p1v[$i].next = self.route.val() & (self.tl.val() == self.lane_ix[$i].val()) & (self.np.val() == 2);
            self.flv[$i].next = self.fl_pend[$i].q.val()
                & !(self.route.val() & (self.tl.val() == self.lane_ix[$i].val()))
                & ((!self.wpar[$i].q.val() & self.$fa.room.val()) | (self.wpar[$i].q.val() & self.$fb.room.val()));
            // The stream ended with the lane's chunks incomplete: close its stream.
            if self.t_active.q.val() & self.in_end.q.val() & !self.closed[$i].q.val() {
                self.fl_pend[$i].d.next = true;
            }
            if self.route.val() & (self.tl.val() == self.lane_ix[$i].val()) {
                for w in 0..8 {
                    self.$acc[w].d.next = self.acc_n[w].val();
                }
                self.fill[$i].d.next = self.r_n.val();
                if self.fin.val() {
                    // No piece of this cycle carries `last` (a partial remains, or an empty
                    // body's cycle pushed none): the flush ends the lane's stream.
                    if self.r_n.val().any() | !self.np.val().any() {
                        self.fl_pend[$i].d.next = true;
                    } else {
                        self.closed[$i].d.next = true;
                    }
                }
            }
            if self.flv[$i].val() {
                for w in 0..8 {
                    self.$acc[w].d.next = bits::<32>(0);
                }
                self.fill[$i].d.next = bits::<5>(0);
                self.fl_pend[$i].d.next = false;
                self.closed[$i].d.next = true;
            }
            // Slot 0 (a piece or the flush) goes to the buffer at wpar, slot 1 to the other.
            self.$fa.push.next = ((self.p0v[$i].val() | self.flv[$i].val()) & !self.wpar[$i].q.val()) | (self.p1v[$i].val() & self.wpar[$i].q.val());
            self.$fb.push.next = ((self.p0v[$i].val() | self.flv[$i].val()) & self.wpar[$i].q.val()) | (self.p1v[$i].val() & !self.wpar[$i].q.val());
            for w in 0..8 {
                self.$da[w].next = self.cat[w].val();
                self.$db[w].next = self.cat[w].val();
                if self.flv[$i].val() {
                    self.$da[w].next = self.$acc[w].q.val();
                    self.$db[w].next = self.$acc[w].q.val();
                }
                if self.wpar[$i].q.val() {
                    self.$da[w].next = self.cat[w + 8].val();
                } else {
                    self.$db[w].next = self.cat[w + 8].val();
                }
            }
            self.pa_bytes[$i].next = bits::<6>(32);
            self.pb_bytes[$i].next = bits::<6>(32);
            self.pa_last[$i].next = self.last1.val();
            self.pb_last[$i].next = self.last1.val();
            if !self.wpar[$i].q.val() {
                self.pa_last[$i].next = self.last0.val() | self.flv[$i].val();
                if self.flv[$i].val() {
                    self.pa_bytes[$i].next = bit_cast::<6, 5>(self.fill[$i].q.val());
                }
            } else {
                self.pb_last[$i].next = self.last0.val() | self.flv[$i].val();
                if self.flv[$i].val() {
                    self.pb_bytes[$i].next = bit_cast::<6, 5>(self.fill[$i].q.val());
                }
            }
            // Every child input written once, from the locals (Icarus-safe).
            for w in 0..8 {
                self.$fa.push_data[w].next = self.$da[w].val();
                self.$fb.push_data[w].next = self.$db[w].val();
            }
            self.$fa.push_bytes.next = self.pa_bytes[$i].val();
            self.$fb.push_bytes.next = self.pb_bytes[$i].val();
            self.$fa.push_last.next = self.pa_last[$i].val();
            self.$fb.push_last.next = self.pb_last[$i].val();
            if (self.p0v[$i].val() | self.flv[$i].val()) != self.p1v[$i].val() {
                self.wpar[$i].d.next = !self.wpar[$i].q.val();
            }

            // The lane reads its pieces alternately from the two buffers.
            self.$fa.clock.next = self.clock.val();
            self.$fa.reset.next = self.reset.val();
            self.$fb.clock.next = self.clock.val();
            self.$fb.reset.next = self.reset.val();
            self.$lane.clock.next = self.clock.val();
            self.$lane.reset.next = self.reset.val();
            self.lin_valid[$i].next = self.$fa.head_valid.val();
            for w in 0..8 {
                self.$ld[w].next = self.$fa.head_data[w].val();
            }
            self.lin_bytes[$i].next = self.$fa.head_bytes.val();
            self.lin_last[$i].next = self.$fa.head_last.val();
            if self.rpar[$i].q.val() {
                self.lin_valid[$i].next = self.$fb.head_valid.val();
                for w in 0..8 {
                    self.$ld[w].next = self.$fb.head_data[w].val();
                }
                self.lin_bytes[$i].next = self.$fb.head_bytes.val();
                self.lin_last[$i].next = self.$fb.head_last.val();
            }
            self.$lane.in_valid.next = self.lin_valid[$i].val();
            for w in 0..8 {
                self.$lane.in_data[w].next = self.$ld[w].val();
            }
            self.$lane.in_bytes.next = self.lin_bytes[$i].val();
            self.$lane.in_last.next = self.lin_last[$i].val();
            self.$fa.pop.next = !self.rpar[$i].q.val() & self.$fa.head_valid.val() & self.$lane.in_ready.val();
            self.$fb.pop.next = self.rpar[$i].q.val() & self.$fb.head_valid.val() & self.$lane.in_ready.val();
            if self.$fa.pop.val() | self.$fb.pop.val() {
                self.rpar[$i].d.next = !self.rpar[$i].q.val();
            }
            self.$lane.desc_valid.next = self.desc_fire.val();
            self.$lane.desc_id.next = self.desc_id.val();
            self.$lane.desc_w16.next = self.desc_w16.val();
            self.$lane.desc_raw_bytes.next = self.$raw.val();
            if self.$lane.done.val() {
                self.l_done[$i].d.next = true;
                self.ld_id.d.next = self.$lane.done_id.val();
            }
            // Lane chunk k is the tensor's chunk 2k + lane.
            self.gchunk[$i].next = (self.$lane.err_chunk.val() << 1) + $i;
            if self.$lane.err_valid.val() & (!self.eh.val() | (self.gchunk[$i].val() < self.ec.val())) {
                self.eh.next = true;
                self.ec.next = self.gchunk[$i].val();
                self.ecls.next = self.$lane.err_class.val();
                self.eid.next = self.$lane.err_id.val();
            }
            self.$lane.out_ready.next = self.$ordy.val();
            self.$ov.next = self.$lane.out_valid.val();
            self.$oa.next = ((self.$lane.out_addr.val() >> 12) << 13) | (self.$lane.out_addr.val() & 0xFFF) | $hi;
            for w in 0..8 {
                self.$od[w].next = self.$lane.out_data[w].val();
            }
            self.$os.next = self.$lane.out_strb.val();
            self.$oid.next = self.$lane.out_id.val();
            self.$ol.next = self.$lane.out_last.val();
        )*
        self.e_have.d.next = self.eh.val();
        self.e_chunk.d.next = self.ec.val();
        self.e_cls.d.next = self.ecls.val();
        self.e_id.d.next = self.eid.val();

        // ---- end of the transfer: the error (the lanes' lowest bad chunk, else trailing bytes), then done
        self.err_q.d.next = false;
        self.done_q.d.next = false;
        if self.t_active.q.val() & self.l_done[0].q.val() & self.l_done[1].q.val() & self.in_end.q.val() & !self.err_q.q.val() {
            if self.e_have.q.val() & !self.e_rep.q.val() {
                self.err_q.d.next = true;
                self.err_class_q.d.next = self.e_cls.q.val();
                self.err_id_q.d.next = self.e_id.q.val();
                self.err_chunk_q.d.next = self.e_chunk.q.val();
                self.e_rep.d.next = true;
            } else if self.trail.q.val() & !self.e_have.q.val() & !self.e_rep.q.val() {
                self.err_q.d.next = true;
                self.err_class_q.d.next = self.c_trailing.val();
                self.err_id_q.d.next = self.t_id.q.val();
                self.err_chunk_q.d.next = self.nchunks.q.val();
                self.e_rep.d.next = true;
            } else {
                self.done_q.d.next = true;
                // The id the lanes echoed (both carry the transfer's).
                self.done_id_q.d.next = self.ld_id.q.val();
                self.t_active_n.next = false;
            }
        }
        self.t_active.d.next = self.t_active_n.val();
        self.desc_ready_q.d.next = !self.t_active_n.val() & self.lane0.desc_ready.val() & self.lane1.desc_ready.val();
        self.in_ready_q.d.next = self.t_active_n.val() & !self.got_last_n.val() & (self.cnt_n.val() <= 1);

        if self.reset.val() {
            self.t_active.d.next = false;
            self.ib_cnt.d.next = bits::<2>(0);
            self.in_end.d.next = false;
            self.got_last.d.next = false;
            self.desc_ready_q.d.next = false;
            self.in_ready_q.d.next = false;
            self.done_q.d.next = false;
            self.err_q.d.next = false;
            self.cl.d.next = bits::<13>(0);
            self.hdr_lo.d.next = false;
            self.in_chunk.d.next = false;
            self.avail_q.d.next = bits::<7>(0);
            self.off.d.next = bits::<6>(0);
            self.pq_hot.d.next = bits::<16>(1);
            self.raw_left.d.next = bits::<32>(0);
            self.raw_nz.d.next = false;
            for l in 0..2 {
                self.fill[l].d.next = bits::<5>(0);
                self.wpar[l].d.next = false;
                self.rpar[l].d.next = false;
                self.fl_pend[l].d.next = false;
                self.closed[l].d.next = false;
            }
            for k in 0..8 {
                self.acc0[k].d.next = bits::<32>(0);
                self.acc1[k].d.next = bits::<32>(0);
            }
        }

        self.desc_ready.next = self.desc_ready_q.q.val();
        self.in_ready.next = self.in_ready_q.q.val();
        self.done.next = self.done_q.q.val();
        self.done_id.next = self.done_id_q.q.val();
        self.err_valid.next = self.err_q.q.val();
        self.err_class.next = self.err_class_q.q.val();
        self.err_id.next = self.err_id_q.q.val();
        self.err_chunk.next = self.err_chunk_q.q.val();
    }
}
    };
}

engine_h2d_update!(
    (lane0, fa0, fb0, acc0, 0, 0, out0_valid, out0_ready, out0_addr, out0_data, out0_strb, out0_id, out0_last, da0, db0, ld0, raw0),
    (lane1, fa1, fb1, acc1, 1, 0x1000, out1_valid, out1_ready, out1_addr, out1_data, out1_strb, out1_id, out1_last, da1, db1, ld1, raw1)
);
