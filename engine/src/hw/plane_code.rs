//! One plane code of FORMAT.md §5.3 decoded at the head of a bit view (combinational): its
//! length, the pre-XOR plane it gives (top-down XOR with the plane above), or the run of zero
//! planes, and the §9 errors it can raise. The decompressor lane's loop holds two of them: the
//! second decodes the code that starts where the first one ends, so two plane codes are taken
//! per cycle when both are in the window and the second is clean (an error in the second is
//! raised when it becomes the first, next cycle).

use super::d;
use rust_hdl::prelude::*;

hw_block! {
/// Plane-code decoder; see the module docs.
#[derive(LogicBlock)]
pub struct PlaneCode {
    /// Bits 0–31 of the view (first bit in bit 31).
    pub v0: Signal<In, Bits<32>> = d(),
    /// Bits 32–63.
    pub v1: Signal<In, Bits<32>> = d(),
    /// Bits 64–95.
    pub v2: Signal<In, Bits<32>> = d(),
    /// Bits of the chunk body left at the view's head.
    pub limit: Signal<In, Bits<16>> = d(),
    /// Pre-XOR plane above (values 0–31, left-aligned).
    pub above_hi: Signal<In, Bits<32>> = d(),
    /// Pre-XOR plane above (values 32–63).
    pub above_lo: Signal<In, Bits<32>> = d(),
    /// The L plane bits, left-aligned (values 0–31).
    pub ones_hi: Signal<In, Bits<32>> = d(),
    /// The L plane bits, left-aligned (values 32–63).
    pub ones_lo: Signal<In, Bits<32>> = d(),
    /// Plane width L.
    pub plane_bits: Signal<In, Bits<7>> = d(),
    /// Position field width Q.
    pub pos_bits: Signal<In, Bits<3>> = d(),
    /// 16-bit symbols (run field of 4 bits, else 5).
    pub w16: Signal<In, Bit> = d(),
    /// Planes not yet decoded (the code is for plane `remaining − 1`).
    pub remaining: Signal<In, Bits<6>> = d(),
    /// Planes of the code (P): the top plane is `planes − 1`.
    pub planes: Signal<In, Bits<6>> = d(),
    /// Length of the code in bits.
    pub need: Signal<Out, Bits<10>> = d(),
    /// The code runs past the chunk body.
    pub over: Signal<Out, Bit> = d(),
    /// The code gives one plane, `plane_hi`/`plane_lo`.
    pub write_plane: Signal<Out, Bit> = d(),
    /// The decoded pre-XOR plane (values 0–31).
    pub plane_hi: Signal<Out, Bits<32>> = d(),
    /// The decoded pre-XOR plane (values 32–63).
    pub plane_lo: Signal<Out, Bits<32>> = d(),
    /// The code is a run of `run_len` zero planes (≥ 1), each equal to the plane above.
    pub run_write: Signal<Out, Bit> = d(),
    /// Run length.
    pub run_len: Signal<Out, Bits<6>> = d(),
    /// Planes left after the code.
    pub remaining_after: Signal<Out, Bits<6>> = d(),
    /// The code is malformed (class in `error_class`).
    pub error: Signal<Out, Bit> = d(),
    /// FORMAT.md §9 class (lane numbering): 4 position, 5 run too long, 6 DBP zero on top.
    pub error_class: Signal<Out, Bits<4>> = d(),
    vm: Signal<Local, Bits<32>> = d(),
    lim_mask: Signal<Local, Bits<32>> = d(),
    need_l: Signal<Local, Bits<10>> = d(),
    fld_hi: Signal<Local, Bits<32>> = d(),
    fld_lo: Signal<Local, Bits<32>> = d(),
    hi_l: Signal<Local, Bits<32>> = d(),
    lo_l: Signal<Local, Bits<32>> = d(),
    write_l: Signal<Local, Bit> = d(),
    run_l: Signal<Local, Bit> = d(),
    len_l: Signal<Local, Bits<6>> = d(),
    pos: Signal<Local, Bits<7>> = d(),
    span: Signal<Local, Bits<7>> = d(),
    bitpos: Signal<Local, Bits<7>> = d(),
    bitpos2: Signal<Local, Bits<7>> = d(),
    err_l: Signal<Local, Bit> = d(),
    class_l: Signal<Local, Bits<4>> = d(),
    rem_l: Signal<Local, Bits<6>> = d(),
}
}

impl Logic for PlaneCode {
    #[hdl_gen]
    fn update(&mut self) {
        // The prefix is read through the body limit: bits past the body read as zero.
        self.lim_mask.next = bits::<32>(0xFFFF_FFFF_u64);
        if self.limit.val() < 32 {
            self.lim_mask.next = !(bits::<32>(0xFFFF_FFFF_u64) >> bit_cast::<5, 16>(self.limit.val()));
        }
        self.vm.next = self.v0.val() & self.lim_mask.val();
        self.fld_hi.next = (self.v0.val() << 1) | (self.v1.val() >> 31);
        self.fld_lo.next = (self.v1.val() << 1) | (self.v2.val() >> 31);
        self.hi_l.next = bits::<32>(0);
        self.lo_l.next = bits::<32>(0);
        self.write_l.next = false;
        self.run_l.next = false;
        self.len_l.next = bits::<6>(0);
        self.pos.next = bits::<7>(0);
        self.span.next = bits::<7>(1);
        self.bitpos.next = bits::<7>(0);
        self.bitpos2.next = bits::<7>(0);
        self.err_l.next = false;
        self.class_l.next = bits::<4>(4);
        if self.vm.val().get_bit(31) {
            // `1` + the L plane bits.
            self.need_l.next = bit_cast::<10, 7>(self.plane_bits.val()) + 1;
            self.hi_l.next = (self.fld_hi.val() & self.ones_hi.val()) ^ self.above_hi.val();
            self.lo_l.next = (self.fld_lo.val() & self.ones_lo.val()) ^ self.above_lo.val();
            self.write_l.next = true;
        } else if self.vm.val().get_bit(30) {
            // `01` + (k − 2): a run of k zero planes.
            self.need_l.next = bits::<10>(7);
            self.len_l.next = bit_cast::<6, 32>((self.v0.val() >> 25) & 0x1F) + 2;
            if self.w16.val() {
                self.need_l.next = bits::<10>(6);
                self.len_l.next = bit_cast::<6, 32>((self.v0.val() >> 26) & 0xF) + 2;
            }
            self.run_l.next = true;
        } else if self.vm.val().get_bit(29) {
            // `001`: one zero plane.
            self.need_l.next = bits::<10>(3);
            self.len_l.next = bits::<6>(1);
            self.run_l.next = true;
        } else {
            self.need_l.next = bits::<10>(5);
            self.write_l.next = true;
            match self.vm.val().get_bits::<2>(27).index() {
                0 => {
                    // `00000`: all ones.
                    self.hi_l.next = self.ones_hi.val() ^ self.above_hi.val();
                    self.lo_l.next = self.ones_lo.val() ^ self.above_lo.val();
                }
                1 => {
                    // `00001`: the pre-XOR plane is zero; never on the top plane.
                    if self.remaining.val() == self.planes.val() {
                        self.err_l.next = true;
                        self.class_l.next = bits::<4>(6);
                    }
                }
                _ => {
                    // `00010` / `00011` + position: two adjacent ones / one one.
                    self.need_l.next = bits::<10>(5) + bit_cast::<10, 3>(self.pos_bits.val());
                    self.pos.next = bit_cast::<7, 32>(
                        (self.v0.val() >> (bits::<5>(27) - bit_cast::<5, 3>(self.pos_bits.val())))
                            & ((bits::<32>(1) << bit_cast::<5, 3>(self.pos_bits.val())) - 1),
                    );
                    if !self.vm.val().get_bit(27) {
                        self.span.next = bits::<7>(2);
                    }
                    if (self.pos.val() + self.span.val()) > self.plane_bits.val() {
                        self.err_l.next = true;
                        self.class_l.next = bits::<4>(4);
                    }
                    // Position `pos` of the L-bit plane word is left-aligned bit 64 − L + pos.
                    self.bitpos.next = bits::<7>(64) - self.plane_bits.val() + self.pos.val();
                    self.bitpos2.next = self.bitpos.val() + 1;
                    if self.bitpos.val() >= 32 {
                        self.hi_l.next = bits::<32>(1) << bit_cast::<5, 7>(self.bitpos.val() - 32);
                    } else {
                        self.lo_l.next = bits::<32>(1) << bit_cast::<5, 7>(self.bitpos.val());
                    }
                    if self.span.val() == 2 {
                        if self.bitpos2.val() >= 32 {
                            self.hi_l.next = self.hi_l.val() | (bits::<32>(1) << bit_cast::<5, 7>(self.bitpos2.val() - 32));
                        } else {
                            self.lo_l.next = self.lo_l.val() | (bits::<32>(1) << bit_cast::<5, 7>(self.bitpos2.val()));
                        }
                    }
                    self.hi_l.next = self.hi_l.val() ^ self.above_hi.val();
                    self.lo_l.next = self.lo_l.val() ^ self.above_lo.val();
                }
            }
        }
        self.rem_l.next = self.remaining.val() - 1;
        if self.run_l.val() {
            self.rem_l.next = self.remaining.val() - self.len_l.val();
            if self.len_l.val() > self.remaining.val() {
                self.err_l.next = true;
                self.class_l.next = bits::<4>(5);
            }
        }
        self.need.next = self.need_l.val();
        self.over.next = bit_cast::<16, 10>(self.need_l.val()) > self.limit.val();
        self.write_plane.next = self.write_l.val();
        self.plane_hi.next = self.hi_l.val();
        self.plane_lo.next = self.lo_l.val();
        self.run_write.next = self.run_l.val();
        self.run_len.next = self.len_l.val();
        self.remaining_after.next = self.rem_l.val();
        self.error.next = self.err_l.val();
        self.error_class.next = self.class_l.val();
    }
}
