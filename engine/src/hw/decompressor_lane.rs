//! The host-to-device lane `pz_h2d_lane`: chunk splitter, [`CONTEXTS`] decoding contexts and a
//! write arbiter (paper §III-A, Fig. 2, the decompressing half). The FORMAT.md §7–§8 chunk
//! stream of one transfer comes in as 32-byte beats exactly as it lies in host memory; the
//! splitter reads each chunk's header, cuts the chunk (header + body) out of the stream and
//! hands it to the next context in turn (chunk `k` to context `k mod CONTEXTS`) through that
//! context's input buffer ([`ChunkFifo`]); each context ([`ChunkDecoder`]) decodes its chunk as a
//! stream of its own, and the arbiter offsets its writes by the chunk's place in the destination
//! (`4096 · k`, a shift by 12 in the arbiter). Chunks are independent (FORMAT.md §7), and the destination port takes addressed
//! writes, so no reorder buffer is needed: the contexts' serial decode loops run side by side.
//! Bit-exact to [`crate::golden::decode_stream`]; `docs/HARDWARE.md` ("The decompressor lane").
//!
//! # Ports (unchanged from the single-context lane)
//! * Descriptor (valid/ready): `desc_id` (echoed on writes, errors and `done`), `desc_w16`
//!   (16-bit symbols; else 32-bit), `desc_raw_bytes` (the transfer's original size in bytes).
//! * Stream beats (valid/ready): `in_data[k]` = little-endian bytes `4k … 4k+3` of the beat,
//!   `in_bytes` = valid bytes of the beat (32 except on the last beat; 0 allowed there for an
//!   empty stream), `in_last` = the transfer's last beat.
//! * Writes (valid/ready): `out_addr` (byte address within the destination, a multiple of 32),
//!   `out_data[k]` (little-endian words), `out_strb` (bit `i` = byte `i` is written), `out_id`,
//!   `out_last` (the write holding the transfer's final byte; chunks finish out of order, so
//!   other writes of the transfer may follow it). Writes of different chunks interleave.
//! * `done` / `done_id`: one-cycle pulse after the transfer's last write has been taken (also for
//!   a transfer that ended in an error, after its error pulse).
//! * `err_valid` / `err_class` / `err_id` / `err_chunk`: one-cycle pulse naming the first §9
//!   condition of the transfer in stream order ([`H2dErrorClass`](super::h2d_driver::H2dErrorClass)
//!   numbering) and the index of the chunk it lies in (for trailing bytes: the number of chunks).
//!   Contexts retire in chunk order, so the error of the lowest bad chunk is the one reported. In
//!   the bad chunk nothing past the bad block is written; chunks after it that were already
//!   handed to other contexts are decoded and written (they are good data, or stop at their own
//!   bad block); no chunk is handed out after the error is known.
//!
//! Every output is a flop.

use super::chunk_decoder::ChunkDecoder;
use super::chunk_fifo::ChunkFifo;
use super::{arr, constants};
use rust_hdl::prelude::*;

/// Decoding contexts per lane: each decodes its own chunk, so the lane's decoded output is the
/// sum of theirs up to the write port's 32 bytes per cycle.
pub const CONTEXTS: usize = 4;
/// Raw bytes of a full chunk (FORMAT.md §7), as the lane's constant.
const CHUNK_RAW_BYTES: u64 = 4096;

hw_block! {
/// The host-to-device lane; see the module docs for ports.
#[derive(LogicBlock)]
pub struct DecompressorLane {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset.
    pub reset: Signal<In, Bit>,
    /// A descriptor is offered.
    pub desc_valid: Signal<In, Bit>,
    /// The lane takes the offered descriptor this cycle.
    pub desc_ready: Signal<Out, Bit>,
    /// Descriptor: transfer id.
    pub desc_id: Signal<In, Bits<8>>,
    /// Descriptor: 16-bit symbols (bf16/f16); else 32-bit.
    pub desc_w16: Signal<In, Bit>,
    /// Descriptor: original bytes of the transfer.
    pub desc_raw_bytes: Signal<In, Bits<32>>,
    /// A stream beat is offered.
    pub in_valid: Signal<In, Bit>,
    /// The lane takes the offered beat this cycle.
    pub in_ready: Signal<Out, Bit>,
    /// The beat as 8 little-endian 32-bit words.
    pub in_data: [Signal<In, Bits<32>>; 8] = arr(),
    /// Valid bytes of the beat (0–32).
    pub in_bytes: Signal<In, Bits<6>>,
    /// Last beat of the transfer's stream.
    pub in_last: Signal<In, Bit>,
    /// A write is offered.
    pub out_valid: Signal<Out, Bit>,
    /// The memory takes the offered write this cycle.
    pub out_ready: Signal<In, Bit>,
    /// Byte address of the write within the destination (a multiple of 32).
    pub out_addr: Signal<Out, Bits<32>>,
    /// The 32 bytes as 8 little-endian words.
    pub out_data: [Signal<Out, Bits<32>>; 8] = arr(),
    /// Byte enables: bit `i` = byte `i` of the write is written.
    pub out_strb: Signal<Out, Bits<32>>,
    /// Transfer id of the write.
    pub out_id: Signal<Out, Bits<8>>,
    /// The write holds the transfer's final byte.
    pub out_last: Signal<Out, Bit>,
    /// One-cycle pulse: the transfer is finished (its last write taken, its error reported).
    pub done: Signal<Out, Bit>,
    /// Transfer id of `done`.
    pub done_id: Signal<Out, Bits<8>>,
    /// One-cycle pulse: the transfer's stream is malformed.
    pub err_valid: Signal<Out, Bit>,
    /// FORMAT.md §9 condition (`H2dErrorClass` numbering, 1–11).
    pub err_class: Signal<Out, Bits<4>>,
    /// Transfer id of the error.
    pub err_id: Signal<Out, Bits<8>>,
    /// Index of the chunk the error lies in (trailing bytes: the number of chunks).
    pub err_chunk: Signal<Out, Bits<20>>,
    ctx0: ChunkDecoder,
    ctx1: ChunkDecoder,
    ctx2: ChunkDecoder,
    ctx3: ChunkDecoder,
    fifo0: ChunkFifo,
    fifo1: ChunkFifo,
    fifo2: ChunkFifo,
    fifo3: ChunkFifo,
    ctx_ix: [Constant<Bits<2>>; CONTEXTS] = constants(1),
    word_ix: [Constant<Bits<3>>; 8] = constants(1),
    c_trailing: Constant<Bits<4>> = Constant::new(11u64.into()),
    k_chunk: Constant<Bits<32>> = Constant::new(CHUNK_RAW_BYTES.into()),
    /// Splitter state 0: waiting for a descriptor.
    s_idle: Constant<Bits<3>> = Constant::new(0u64.into()),
    /// Splitter state 1: reading the next chunk's header and handing the chunk to a context.
    s_header: Constant<Bits<3>> = Constant::new(1u64.into()),
    /// Splitter state 2: copying the chunk's bytes into its context's buffer.
    s_feed: Constant<Bits<3>> = Constant::new(2u64.into()),
    /// Splitter state 3: after the last chunk: any byte left is a trailing-bytes error.
    s_trail: Constant<Bits<3>> = Constant::new(3u64.into()),
    /// Splitter state 4: discarding the rest of a bad transfer's beats.
    s_drain: Constant<Bits<3>> = Constant::new(4u64.into()),
    /// Splitter state 5: waiting for every context to retire, then the error (if any) and `done`.
    s_end: Constant<Bits<3>> = Constant::new(5u64.into()),
    st: DFF<Bits<3>>,
    t_id: DFF<Bits<8>>,
    t_w16: DFF<Bit>,
    raw_left: DFF<Bits<32>>,
    chunk: DFF<Bits<20>>,
    dctx: DFF<Bits<2>>,
    fctx: DFF<Bits<2>>,
    rctx: DFF<Bits<2>>,
    f_left: DFF<Bits<13>>,
    bad_hdr: DFF<Bit>,
    failed: DFF<Bit>,
    reported: DFF<Bit>,
    trail: DFF<Bit>,
    in_done: DFF<Bit>,
    ib_cnt: DFF<Bits<2>>,
    /// Unread bytes of the front held beat (`ib0_bytes − off`, 0 when none is held), kept
    /// beside `off` so that the splitter's compares start at a flop.
    av0_q: DFF<Bits<7>>,
    /// Unread bytes of both held beats.
    av_q: DFF<Bits<7>>,
    ib0: [DFF<Bits<32>>; 8] = arr(),
    ib0_bytes: DFF<Bits<6>>,
    ib1: [DFF<Bits<32>>; 8] = arr(),
    ib1_bytes: DFF<Bits<6>>,
    off: DFF<Bits<5>>,
    c_busy: [DFF<Bit>; CONTEXTS] = arr(),
    c_done: [DFF<Bit>; CONTEXTS] = arr(),
    c_err: [DFF<Bit>; CONTEXTS] = arr(),
    c_cls: [DFF<Bits<4>>; CONTEXTS] = arr(),
    /// The context's error lies past its one chunk (its `err_chunk` is 1, trailing bytes; a
    /// context is given a single chunk, so its error chunk is 0 or 1).
    c_epast: [DFF<Bit>; CONTEXTS] = arr(),
    c_chunk: [DFF<Bits<20>>; CONTEXTS] = arr(),
    /// `c_chunk + 1`, stored at dispatch (the error report reads a mux, not an adder).
    c_chunk1: [DFF<Bits<20>>; CONTEXTS] = arr(),
    c_final: [DFF<Bit>; CONTEXTS] = arr(),
    rr: DFF<Bits<2>>,
    o_valid: DFF<Bit>,
    o_addr: DFF<Bits<32>>,
    o_data: [DFF<Bits<32>>; 8] = arr(),
    o_strb: DFF<Bits<32>>,
    o_id: DFF<Bits<8>>,
    o_last: DFF<Bit>,
    desc_ready_q: DFF<Bit>,
    in_ready_q: DFF<Bit>,
    done_q: DFF<Bit>,
    done_id_q: DFF<Bits<8>>,
    err_q: DFF<Bit>,
    err_class_q: DFF<Bits<4>>,
    err_id_q: DFF<Bits<8>>,
    err_chunk_q: DFF<Bits<20>>,
    st_n: Signal<Local, Bits<3>>,
    avail0: Signal<Local, Bits<7>>,
    avail: Signal<Local, Bits<7>>,
    av0_n: Signal<Local, Bits<7>>,
    av_n: Signal<Local, Bits<7>>,
    view: [Signal<Local, Bits<32>>; 16] = arr(),
    pw: [Signal<Local, Bits<32>>; 9] = arr(),
    piece: [Signal<Local, Bits<32>>; 8] = arr(),
    pq: Signal<Local, Bits<3>>,
    rsh: Signal<Local, Bits<6>>,
    hdr: Signal<Local, Bits<16>>,
    craw: Signal<Local, Bits<32>>,
    n: Signal<Local, Bits<7>>,
    dispatch: Signal<Local, Bit>,
    feed: Signal<Local, Bit>,
    feed_last: Signal<Local, Bit>,
    rest: Signal<Local, Bits<7>>,
    /// More bytes in view than the chunk has left (`avail > f_left`).
    avail_over_left: Signal<Local, Bit>,
    /// The chunk has more bytes left than are in view (`f_left > avail`).
    left_over_avail: Signal<Local, Bit>,
    /// Feed: this cycle's piece is the rest of the chunk (`n = f_left`), or all the bytes in view.
    n_is_left: Signal<Local, Bit>,
    n_is_avail: Signal<Local, Bit>,
    pop0: Signal<Local, Bit>,
    pop1: Signal<Local, Bit>,
    left_cnt: Signal<Local, Bits<2>>,
    cnt_n: Signal<Local, Bits<2>>,
    fire: Signal<Local, Bit>,
    in_done_n: Signal<Local, Bit>,
    busy_any: Signal<Local, Bit>,
    ctx_free: Signal<Local, Bit>,
    fifo_room: Signal<Local, Bit>,
    retire: Signal<Local, Bit>,
    ret_err: Signal<Local, Bit>,
    ret_cls: Signal<Local, Bits<4>>,
    ret_chunk: Signal<Local, Bits<20>>,
    /// The splitter's chunk counter plus one (its next value, and a context's trailing-error chunk).
    chunk_inc: Signal<Local, Bits<20>>,
    ovec: Signal<Local, Bits<8>>,
    osh: Signal<Local, Bits<3>>,
    gsel: Signal<Local, Bits<2>>,
    take: Signal<Local, Bit>,
    out_free: Signal<Local, Bit>,
}
}

/// Writes the lane's `update` with the per-context wiring repeated for each (decoder, buffer,
/// index) triple (rust-hdl exports a path with two array indexes wrongly, so the contexts are
/// named fields).
macro_rules! lane_update {
    ($(($ctx:ident, $fifo:ident, $i:tt)),*) => {
impl Logic for DecompressorLane {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, st, t_id, t_w16, raw_left, chunk, dctx, fctx, rctx, f_left, bad_hdr, failed, reported, trail,
            in_done, ib_cnt, av0_q, av_q, ib0_bytes, ib1_bytes, off, rr, o_valid, o_addr, o_strb, o_id, o_last, desc_ready_q,
            in_ready_q, done_q, done_id_q, err_q, err_class_q, err_id_q, err_chunk_q
        );
        for k in 0..8 {
            self.ib0[k].clock.next = self.clock.val();
            self.ib0[k].d.next = self.ib0[k].q.val();
            self.ib1[k].clock.next = self.clock.val();
            self.ib1[k].d.next = self.ib1[k].q.val();
            self.o_data[k].clock.next = self.clock.val();
            self.o_data[k].d.next = self.o_data[k].q.val();
        }
        for c in 0..4 {
            self.c_busy[c].clock.next = self.clock.val();
            self.c_busy[c].d.next = self.c_busy[c].q.val();
            self.c_done[c].clock.next = self.clock.val();
            self.c_done[c].d.next = self.c_done[c].q.val();
            self.c_err[c].clock.next = self.clock.val();
            self.c_err[c].d.next = self.c_err[c].q.val();
            self.c_cls[c].clock.next = self.clock.val();
            self.c_cls[c].d.next = self.c_cls[c].q.val();
            self.c_epast[c].clock.next = self.clock.val();
            self.c_epast[c].d.next = self.c_epast[c].q.val();
            self.c_chunk1[c].clock.next = self.clock.val();
            self.c_chunk1[c].d.next = self.c_chunk1[c].q.val();
            self.c_chunk[c].clock.next = self.clock.val();
            self.c_chunk[c].d.next = self.c_chunk[c].q.val();
            self.c_final[c].clock.next = self.clock.val();
            self.c_final[c].d.next = self.c_final[c].q.val();
        }

        // ---- the splitter's view: the unread bytes of the two held beats from `off` on
        // (their counts are flops, updated with the beats below)
        self.avail0.next = self.av0_q.q.val();
        self.avail.next = self.av_q.q.val();
        self.avail_over_left.next = bit_cast::<13, 7>(self.avail.val()) > self.f_left.q.val();
        self.left_over_avail.next = self.f_left.q.val() > bit_cast::<13, 7>(self.avail.val());
        for k in 0..8 {
            self.view[k].next = self.ib0[k].q.val();
            self.view[k + 8].next = self.ib1[k].q.val();
        }
        self.pq.next = bit_cast::<3, 5>(self.off.q.val() >> 2);
        self.rsh.next = bit_cast::<6, 5>(self.off.q.val() & 3) << 3;
        for j in 0..9 {
            self.pw[j].next = bits::<32>(0);
        }
        for q in 0..8 {
            if self.pq.val() == self.word_ix[q].val() {
                for j in 0..9 {
                    self.pw[j].next = self.view[q + j].val();
                }
            }
        }
        for k in 0..8 {
            self.piece[k].next = self.pw[k].val();
            if self.rsh.val().any() {
                self.piece[k].next = (self.pw[k].val() >> self.rsh.val()) | (self.pw[k + 1].val() << (bits::<6>(32) - self.rsh.val()));
            }
        }
        self.hdr.next = bit_cast::<16, 32>(self.piece[0].val());
        self.craw.next = self.raw_left.q.val();
        if self.raw_left.q.val() > self.k_chunk.val() {
            self.craw.next = self.k_chunk.val();
        }

        // ---- context status: pulses latched, the oldest context retired in chunk order
        self.busy_any.next = false;
        self.ctx_free.next = false;
        self.fifo_room.next = false;
        self.retire.next = false;
        self.ret_err.next = false;
        self.ret_cls.next = bits::<4>(0);
        self.ret_chunk.next = bits::<20>(0);
        $(
            if self.$ctx.done.val() {
                self.c_done[$i].d.next = true;
            }
            if self.$ctx.err_valid.val() {
                self.c_err[$i].d.next = true;
                self.c_cls[$i].d.next = self.$ctx.err_class.val();
                self.c_epast[$i].d.next = self.$ctx.err_chunk.val().any();
            }
            if self.c_busy[$i].q.val() {
                self.busy_any.next = true;
            }
            if self.dctx.q.val() == self.ctx_ix[$i].val() {
                self.ctx_free.next = !self.c_busy[$i].q.val() & self.$ctx.desc_ready.val();
            }
            if self.fctx.q.val() == self.ctx_ix[$i].val() {
                self.fifo_room.next = self.$fifo.room.val();
            }
            if (self.rctx.q.val() == self.ctx_ix[$i].val()) & self.c_busy[$i].q.val() & self.c_done[$i].q.val() {
                self.retire.next = true;
                self.ret_err.next = self.c_err[$i].q.val();
                self.ret_cls.next = self.c_cls[$i].q.val();
                // The context's chunk index (0: it is given one chunk) offset by the chunk's.
                self.ret_chunk.next = self.c_chunk[$i].q.val();
                if self.c_epast[$i].q.val() {
                    self.ret_chunk.next = self.c_chunk1[$i].q.val();
                }
                self.c_busy[$i].d.next = false;
            }
        )*

        // ---- the splitter: one header or one piece of a chunk per cycle
        self.chunk_inc.next = self.chunk.q.val() + 1;
        self.st_n.next = self.st.q.val();
        self.n.next = bits::<7>(0);
        self.dispatch.next = false;
        self.feed.next = false;
        self.feed_last.next = false;
        self.n_is_left.next = false;
        self.n_is_avail.next = false;
        self.err_q.d.next = false;
        self.done_q.d.next = false;
        self.in_done_n.next = self.in_done.q.val();
        self.fire.next = self.in_valid.val() & self.in_ready_q.q.val();
        if self.st.q.val() == self.s_idle.val() {
            if self.desc_valid.val() & self.desc_ready_q.q.val() {
                self.t_id.d.next = self.desc_id.val();
                self.t_w16.d.next = self.desc_w16.val();
                self.raw_left.d.next = self.desc_raw_bytes.val();
                self.chunk.d.next = bits::<20>(0);
                self.dctx.d.next = bits::<2>(0);
                self.rctx.d.next = bits::<2>(0);
                self.failed.d.next = false;
                self.reported.d.next = false;
                self.trail.d.next = false;
                self.in_done_n.next = false;
                self.st_n.next = self.s_trail.val();
                if self.desc_raw_bytes.val().any() {
                    self.st_n.next = self.s_header.val();
                }
            }
        } else if self.st.q.val() == self.s_header.val() {
            if self.failed.q.val() {
                self.st_n.next = self.s_drain.val();
            } else if ((self.avail.val() >= 2) | self.in_done.q.val()) & self.ctx_free.val() {
                // The header is in view (or the stream ended: the context reports the cut).
                self.dispatch.next = true;
                self.f_left.d.next = bits::<13>(2) + bit_cast::<13, 16>(self.hdr.val());
                self.bad_hdr.d.next = false;
                if bit_cast::<32, 16>(self.hdr.val()) > self.craw.val() {
                    self.f_left.d.next = bits::<13>(2);
                    self.bad_hdr.d.next = true;
                }
                self.raw_left.d.next = self.raw_left.q.val() - self.craw.val();
                self.chunk.d.next = self.chunk_inc.val();
                self.fctx.d.next = self.dctx.q.val();
                self.dctx.d.next = self.dctx.q.val() + 1;
                self.st_n.next = self.s_feed.val();
            }
        } else if self.st.q.val() == self.s_feed.val() {
            if self.fifo_room.val() {
                // n = min(avail, f_left, 32), its three compares side by side.
                self.n.next = self.avail.val();
                if self.avail_over_left.val() {
                    self.n.next = bit_cast::<7, 13>(self.f_left.q.val());
                    if self.f_left.q.val() > 32 {
                        self.n.next = bits::<7>(32);
                    }
                } else if self.avail.val() > 32 {
                    self.n.next = bits::<7>(32);
                }
                // n = f_left iff f_left ≤ avail and f_left ≤ 32; n = avail iff avail ≤ f_left and
                // avail ≤ 32; f_left − n from two subtractors that do not wait for n.
                self.n_is_left.next = !self.left_over_avail.val() & (self.f_left.q.val() <= 32);
                self.n_is_avail.next = !self.avail_over_left.val() & (self.avail.val() <= 32);
                self.feed_last.next = self.n_is_left.val() | (self.in_done.q.val() & self.n_is_avail.val());
                self.feed.next = self.n.val().any() | self.feed_last.val();
                self.f_left.d.next = self.f_left.q.val() - 32;
                if self.n_is_left.val() {
                    self.f_left.d.next = bits::<13>(0);
                } else if self.n_is_avail.val() {
                    self.f_left.d.next = self.f_left.q.val() - bit_cast::<13, 7>(self.avail.val());
                }
                if self.feed_last.val() {
                    if bit_cast::<13, 7>(self.n.val()) != self.f_left.q.val() {
                        // The stream ended inside the chunk: no chunk follows.
                        self.st_n.next = self.s_end.val();
                    } else if self.bad_hdr.q.val() {
                        self.st_n.next = self.s_drain.val();
                    } else if self.raw_left.q.val().any() {
                        self.st_n.next = self.s_header.val();
                    } else {
                        self.st_n.next = self.s_trail.val();
                    }
                }
            }
        } else if self.st.q.val() == self.s_trail.val() {
            self.n.next = self.avail.val();
            if self.avail.val().any() {
                self.trail.d.next = true;
            }
            if self.in_done.q.val() {
                self.st_n.next = self.s_end.val();
            }
        } else if self.st.q.val() == self.s_drain.val() {
            self.n.next = self.avail.val();
            if self.in_done.q.val() {
                self.st_n.next = self.s_end.val();
            }
        } else if self.st.q.val() == self.s_end.val() {
            if !self.busy_any.val() & !self.o_valid.q.val() {
                if self.trail.q.val() & !self.reported.q.val() {
                    self.err_q.d.next = true;
                    self.err_class_q.d.next = self.c_trailing.val();
                    self.err_id_q.d.next = self.t_id.q.val();
                    self.err_chunk_q.d.next = self.chunk.q.val();
                    self.reported.d.next = true;
                } else {
                    self.done_q.d.next = true;
                    self.done_id_q.d.next = self.t_id.q.val();
                    self.st_n.next = self.s_idle.val();
                }
            }
        }
        // A retired context's error is the transfer's (contexts retire in chunk order).
        if self.retire.val() {
            self.rctx.d.next = self.rctx.q.val() + 1;
            if self.ret_err.val() & !self.failed.q.val() {
                self.failed.d.next = true;
                self.reported.d.next = true;
                self.err_q.d.next = true;
                self.err_class_q.d.next = self.ret_cls.val();
                self.err_id_q.d.next = self.t_id.q.val();
                self.err_chunk_q.d.next = self.ret_chunk.val();
            }
        }

        // ---- the held beats: drop what was read, append the offered beat
        // pop0 = (n >= avail0), pop1 = (n >= avail), decided from the state and the compares
        // rather than from n (the beats' write enables fan out to 512 flops): Trail and Drain
        // read everything, Feed reads min(avail, f_left, 32) (never less than 32 ≥ avail0),
        // every other cycle nothing.
        self.pop0.next = false;
        self.pop1.next = false;
        if (self.st.q.val() == self.s_trail.val()) | (self.st.q.val() == self.s_drain.val()) {
            self.pop0.next = true;
            self.pop1.next = true;
        } else if (self.st.q.val() == self.s_feed.val()) & self.fifo_room.val() {
            self.pop0.next = bit_cast::<13, 7>(self.avail0.val()) <= self.f_left.q.val();
            self.pop1.next = !self.avail_over_left.val() & (self.avail.val() <= 32);
        } else {
            self.pop0.next = !self.avail0.val().any();
            self.pop1.next = !self.avail.val().any();
        }
        self.pop0.next = self.pop0.val() & self.ib_cnt.q.val().any();
        self.pop1.next = self.pop1.val() & (self.ib_cnt.q.val() == 2);
        self.rest.next = self.n.val() - self.avail0.val();
        self.left_cnt.next = self.ib_cnt.q.val();
        if self.pop0.val() {
            self.left_cnt.next = self.ib_cnt.q.val() - 1;
        }
        if self.pop1.val() {
            self.left_cnt.next = bits::<2>(0);
        }
        self.off.d.next = self.off.q.val() + bit_cast::<5, 7>(self.n.val());
        if self.pop0.val() {
            self.off.d.next = bit_cast::<5, 7>(self.rest.val());
        }
        if self.pop1.val() {
            self.off.d.next = bits::<5>(0);
        }
        // The unread counts after this cycle's read (n ≤ avail; a read past the front beat pops it).
        self.av0_n.next = self.avail0.val() - self.n.val();
        self.av_n.next = self.avail.val() - self.n.val();
        if self.pop0.val() & !self.pop1.val() & (self.ib_cnt.q.val() == 2) {
            for k in 0..8 {
                self.ib0[k].d.next = self.ib1[k].q.val();
            }
            self.ib0_bytes.d.next = self.ib1_bytes.q.val();
            self.av0_n.next = self.av_n.val();
        }
        if !self.left_cnt.val().any() {
            self.av0_n.next = bits::<7>(0);
            self.av_n.next = bits::<7>(0);
        }
        self.cnt_n.next = self.left_cnt.val();
        if self.fire.val() {
            self.cnt_n.next = self.left_cnt.val() + 1;
            self.av_n.next = self.av_n.val() + bit_cast::<7, 6>(self.in_bytes.val());
            if !self.left_cnt.val().any() {
                self.av0_n.next = bit_cast::<7, 6>(self.in_bytes.val());
            }
            self.in_done_n.next = self.in_last.val();
            if self.left_cnt.val().any() {
                for k in 0..8 {
                    self.ib1[k].d.next = self.in_data[k].val();
                }
                self.ib1_bytes.d.next = self.in_bytes.val();
            } else {
                for k in 0..8 {
                    self.ib0[k].d.next = self.in_data[k].val();
                }
                self.ib0_bytes.d.next = self.in_bytes.val();
            }
        }
        if self.st.q.val() == self.s_idle.val() {
            self.cnt_n.next = bits::<2>(0);
            self.off.d.next = bits::<5>(0);
            self.av0_n.next = bits::<7>(0);
            self.av_n.next = bits::<7>(0);
        }
        self.av0_q.d.next = self.av0_n.val();
        self.av_q.d.next = self.av_n.val();
        self.ib_cnt.d.next = self.cnt_n.val();
        self.in_done.d.next = self.in_done_n.val();
        self.st.d.next = self.st_n.val();

        // ---- the contexts: descriptor on dispatch, pieces through the buffers
        self.out_free.next = !self.o_valid.q.val() | self.out_ready.val();
        self.ovec.next = bits::<8>(0);
        $(
            self.$ctx.clock.next = self.clock.val();
            self.$ctx.reset.next = self.reset.val();
            self.$fifo.clock.next = self.clock.val();
            self.$fifo.reset.next = self.reset.val();
            self.$ctx.desc_valid.next = self.dispatch.val() & (self.dctx.q.val() == self.ctx_ix[$i].val());
            self.$ctx.desc_id.next = self.t_id.q.val();
            self.$ctx.desc_w16.next = self.t_w16.q.val();
            self.$ctx.desc_raw_bytes.next = self.craw.val();
            if self.dispatch.val() & (self.dctx.q.val() == self.ctx_ix[$i].val()) {
                self.c_busy[$i].d.next = true;
                self.c_done[$i].d.next = false;
                self.c_err[$i].d.next = false;
                self.c_chunk[$i].d.next = self.chunk.q.val();
                self.c_chunk1[$i].d.next = self.chunk_inc.val();
                self.c_final[$i].d.next = self.raw_left.q.val() == self.craw.val();
            }
            self.$fifo.push.next = self.feed.val() & (self.fctx.q.val() == self.ctx_ix[$i].val());
            for k in 0..8 {
                self.$fifo.push_data[k].next = self.piece[k].val();
            }
            self.$fifo.push_bytes.next = bit_cast::<6, 7>(self.n.val());
            self.$fifo.push_last.next = self.feed_last.val();
            self.$ctx.in_valid.next = self.$fifo.head_valid.val();
            for k in 0..8 {
                self.$ctx.in_data[k].next = self.$fifo.head_data[k].val();
            }
            self.$ctx.in_bytes.next = self.$fifo.head_bytes.val();
            self.$ctx.in_last.next = self.$fifo.head_last.val();
            self.$fifo.pop.next = self.$fifo.head_valid.val() & self.$ctx.in_ready.val();
            if self.$ctx.out_valid.val() {
                self.ovec.next = self.ovec.val() | (bits::<8>(0x11) << $i);
            }
        )*

        // ---- the write arbiter: round robin from `rr`, one write per cycle
        self.osh.next = bit_cast::<3, 8>(self.ovec.val() >> bit_cast::<3, 2>(self.rr.q.val()));
        self.gsel.next = self.rr.q.val() + 3;
        if self.osh.val().get_bit(2) {
            self.gsel.next = self.rr.q.val() + 2;
        }
        if self.osh.val().get_bit(1) {
            self.gsel.next = self.rr.q.val() + 1;
        }
        if self.osh.val().get_bit(0) {
            self.gsel.next = self.rr.q.val();
        }
        self.take.next = self.out_free.val() & self.ovec.val().any();
        if self.take.val() {
            self.o_valid.d.next = true;
            self.rr.d.next = self.gsel.val() + 1;
        } else if self.out_ready.val() {
            self.o_valid.d.next = false;
        }
        $(
            self.$ctx.out_ready.next = self.take.val() & (self.gsel.val() == self.ctx_ix[$i].val());
            if self.take.val() & (self.gsel.val() == self.ctx_ix[$i].val()) {
                // The context writes below 4096 (its one chunk): the chunk's base is a concatenation.
                self.o_addr.d.next = (bit_cast::<32, 20>(self.c_chunk[$i].q.val()) << 12) | self.$ctx.out_addr.val();
                for k in 0..8 {
                    self.o_data[k].d.next = self.$ctx.out_data[k].val();
                }
                self.o_strb.d.next = self.$ctx.out_strb.val();
                self.o_id.d.next = self.$ctx.out_id.val();
                self.o_last.d.next = self.$ctx.out_last.val() & self.c_final[$i].q.val();
            }
        )*

        // ---- handshake flops for the next cycle
        self.desc_ready_q.d.next = self.st_n.val() == self.s_idle.val();
        self.in_ready_q.d.next = (self.st_n.val() != self.s_idle.val())
            & (self.st_n.val() != self.s_end.val())
            & !self.in_done_n.val()
            & (self.cnt_n.val() <= 1);
        if self.reset.val() {
            self.st.d.next = self.s_idle.val();
            self.ib_cnt.d.next = bits::<2>(0);
            self.av0_q.d.next = bits::<7>(0);
            self.av_q.d.next = bits::<7>(0);
            self.in_done.d.next = false;
            for c in 0..4 {
                self.c_busy[c].d.next = false;
            }
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
        self.done_id.next = self.done_id_q.q.val();
        self.err_valid.next = self.err_q.q.val();
        self.err_class.next = self.err_class_q.q.val();
        self.err_id.next = self.err_id_q.q.val();
        self.err_chunk.next = self.err_chunk_q.q.val();
    }
}
    };
}

lane_update!((ctx0, fifo0, 0), (ctx1, fifo1, 1), (ctx2, fifo2, 2), (ctx3, fifo3, 3));
