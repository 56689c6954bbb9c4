//! Emitter stage 2 of the compressor lane: places one group of codes into the payload buffer.
//!
//! Each code (≤ 65 bits, left-aligned in three words) is funnel-shifted right by its offset's bit
//! within a word into a 3-word window, which lands at the offset's word index. Payload word `k`
//! ORs, over the group's codes, window word 0 of a code at index `k`, word 1 of one at `k − 1`
//! and word 2 of one at `k − 2`: each term is an AND with a decoded index, and the terms meet in
//! a balanced OR tree (no running position, no insertion after insertion).
//!
//! The buffer restarts with a block's first group and is complete after its last, when `done`
//! rises for the cycle in which the lane's output register takes it. Every flop loads only on
//! `enable`, so the buffer and `done` hold while the emitter is frozen.

use super::hdl_util::{arr, constants, d};
use super::plane_coder::GROUP_SLOTS;
use rust_hdl::prelude::*;

/// 32-bit words of the payload buffer (1,024 bits, the largest payload).
pub const PAYLOAD_WORDS: usize = 32;
/// Bits per payload word.
const WORD_BITS: u64 = 32;

hw_block! {
/// Emitter stage 2; see the module docs.
#[derive(LogicBlock)]
pub struct PiecePlacer {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Synchronous reset: no group in flight.
    pub reset: Signal<In, Bit> = d(),
    /// The emitter steps this cycle (every flop here loads only then).
    pub enable: Signal<In, Bit> = d(),
    /// The codes below are a valid group.
    pub in_valid: Signal<In, Bit> = d(),
    /// The group is its block's first: the buffer restarts.
    pub in_first: Signal<In, Bit> = d(),
    /// The group is its block's last: the buffer is complete after it.
    pub in_final: Signal<In, Bit> = d(),
    /// Codes, first 32 bits (first bit in bit 31).
    pub code0: [Signal<In, Bits<32>>; GROUP_SLOTS] = arr(),
    /// Codes, bits 32–63.
    pub code1: [Signal<In, Bits<32>>; GROUP_SLOTS] = arr(),
    /// Codes, bit 64 in bit 31.
    pub code2: [Signal<In, Bits<32>>; GROUP_SLOTS] = arr(),
    /// Bit offset of each code in the payload.
    pub offset: [Signal<In, Bits<11>>; GROUP_SLOTS] = arr(),
    /// Payload word `k` = payload bits `32k … 32k+31`, first bit in bit 31 (registered).
    pub payload: [Signal<Out, Bits<32>>; PAYLOAD_WORDS] = arr(),
    /// The buffer holds a complete payload (registered).
    pub done: Signal<Out, Bit> = d(),
    buf: [DFF<Bits<32>>; PAYLOAD_WORDS] = arr(),
    done_r: DFF<Bit> = d(),
    word_index: [Constant<Bits<6>>; PAYLOAD_WORDS] = constants(1),
    word_bits: Constant<Bits<6>> = Constant::new(WORD_BITS.into()),
    off_t: Signal<Local, Bits<11>> = d(),
    shift: Signal<Local, Bits<6>> = d(),
    index: [Signal<Local, Bits<6>>; GROUP_SLOTS] = arr(),
    win0: [Signal<Local, Bits<32>>; GROUP_SLOTS] = arr(),
    win1: [Signal<Local, Bits<32>>; GROUP_SLOTS] = arr(),
    win2: [Signal<Local, Bits<32>>; GROUP_SLOTS] = arr(),
    term: [Signal<Local, Bits<32>>; GROUP_SLOTS] = arr(),
    from0: [Signal<Local, Bits<32>>; PAYLOAD_WORDS] = arr(),
    from1: [Signal<Local, Bits<32>>; PAYLOAD_WORDS] = arr(),
    from2: [Signal<Local, Bits<32>>; PAYLOAD_WORDS] = arr(),
    base: Signal<Local, Bits<32>> = d(),
}
}

impl Logic for PiecePlacer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, done_r);
        for k in 0..32 {
            self.buf[k].clock.next = self.clock.val();
            self.buf[k].d.next = self.buf[k].q.val();
        }
        // Funnel shift of each code into its 3-word window.
        for t in 0..9 {
            // (`bit_cast` of an indexed signal does not compile under `hdl_gen`: via a local.)
            self.off_t.next = self.offset[t].val();
            self.index[t].next = bit_cast::<6, 11>(self.off_t.val() >> 5);
            self.shift.next = bit_cast::<6, 11>(self.off_t.val() & 31);
            self.win0[t].next = self.code0[t].val() >> self.shift.val();
            self.win1[t].next = (self.code0[t].val() << (self.word_bits.val() - self.shift.val()))
                | (self.code1[t].val() >> self.shift.val());
            self.win2[t].next = (self.code1[t].val() << (self.word_bits.val() - self.shift.val()))
                | (self.code2[t].val() >> self.shift.val());
        }
        if self.enable.val() {
            self.done_r.d.next = self.in_valid.val() & self.in_final.val();
        }
        // Word k's terms from window word w of the codes at index k − w, each OR-ed in a tree.
        for k in 0..32 {
            for t in 0..9 {
                self.term[t].next = bits::<32>(0);
                if self.index[t].val() == self.word_index[k].val() {
                    self.term[t].next = self.win0[t].val();
                }
            }
            self.from0[k].next = ((self.term[0].val() | self.term[1].val()) | (self.term[2].val() | self.term[3].val()))
                | ((self.term[4].val() | self.term[5].val()) | (self.term[6].val() | self.term[7].val()))
                | self.term[8].val();
        }
        self.from1[0].next = bits::<32>(0);
        for k in 1..32 {
            for t in 0..9 {
                self.term[t].next = bits::<32>(0);
                if self.index[t].val() == self.word_index[k - 1].val() {
                    self.term[t].next = self.win1[t].val();
                }
            }
            self.from1[k].next = ((self.term[0].val() | self.term[1].val()) | (self.term[2].val() | self.term[3].val()))
                | ((self.term[4].val() | self.term[5].val()) | (self.term[6].val() | self.term[7].val()))
                | self.term[8].val();
        }
        self.from2[0].next = bits::<32>(0);
        self.from2[1].next = bits::<32>(0);
        for k in 2..32 {
            for t in 0..9 {
                self.term[t].next = bits::<32>(0);
                if self.index[t].val() == self.word_index[k - 2].val() {
                    self.term[t].next = self.win2[t].val();
                }
            }
            self.from2[k].next = ((self.term[0].val() | self.term[1].val()) | (self.term[2].val() | self.term[3].val()))
                | ((self.term[4].val() | self.term[5].val()) | (self.term[6].val() | self.term[7].val()))
                | self.term[8].val();
        }
        for k in 0..32 {
            self.base.next = self.buf[k].q.val();
            if self.in_first.val() {
                self.base.next = bits::<32>(0);
            }
            if self.enable.val() & self.in_valid.val() {
                self.buf[k].d.next =
                    (self.base.val() | self.from0[k].val()) | (self.from1[k].val() | self.from2[k].val());
            }
        }
        if self.reset.val() {
            self.done_r.d.next = false;
        }
        for k in 0..32 {
            self.payload[k].next = self.buf[k].q.val();
        }
        self.done.next = self.done_r.q.val();
    }
}
