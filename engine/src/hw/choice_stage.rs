//! Stage 2's last cycle of the compressor lane: the plane-queue load.
//!
//! From the registered choice ([`super::size_choice::SizeChoice`]: sizes, one-hot winners, the
//! DBX base code), the three plane statistics' registered outputs and stage 2's mask and width,
//! in one cycle: the chosen code's values XORed and transposed into planes (wiring), its plane
//! classes as ORs of the exclusive class masks and its per-plane code lengths, and the queue of
//! 36 slots loaded with a header and the planes top first (or ZVC/raw payload words as literal
//! slots). Slot `s` holds plane `33 − s` whatever the code and width: planes a code or width does
//! not have are empty slots, so that each slot has one source per kind (plane, literal). The
//! queue, the block's geometry, tag, length and original words are this stage's flops; the queue
//! advances by [`GROUP_SLOTS`] slots each emitter step.

use super::compressor_lane::{QUEUE_PLANES, TAG_BX, TAG_DBX, TAG_RAW, TAG_ZBX, TAG_ZVC};
use super::hdl_util::{arr, d};
use super::plane_coder::{
    CLASS_ALL_ONES, CLASS_DBP_ZERO, CLASS_ONE_ONE, CLASS_SINGLE_ZERO, CLASS_TWO_ONES, CLASS_VERBATIM, CLASS_ZERO_RUN,
    FIXED_CODE_BITS, GROUP_SLOTS, POSITION_PREFIX_BITS, RUN_CODE_W16_BITS, RUN_CODE_W32_BITS, SINGLE_ZERO_BITS,
};
use super::size_choice::RAW_BITS;
use super::zero_runs::RUN_PLANES;
use rust_hdl::prelude::*;

/// Bits of a literal queue slot (ZVC and raw payload words, two per slot).
const LITERAL_BITS: u64 = 64;

hw_block! {
/// The plane-queue load stage; see the module docs.
#[derive(LogicBlock)]
pub struct ChoiceStage {
    /// Clock.
    pub clock: Signal<In, Clock> = d(),
    /// Synchronous reset: the queue empties.
    pub reset: Signal<In, Bit> = d(),
    /// The block leaves stage 2 this cycle: load the queue.
    pub load: Signal<In, Bit> = d(),
    /// The emitter steps this cycle: the coder takes slots 0–8 and the queue advances.
    pub step: Signal<In, Bit> = d(),
    /// Stage 2: nonzero mask of symbols 0–31.
    pub mask_hi: Signal<In, Bits<32>> = d(),
    /// Stage 2: nonzero mask of symbols 32–63.
    pub mask_lo: Signal<In, Bits<32>> = d(),
    /// Stage 2: 16-bit symbols.
    pub w16: Signal<In, Bit> = d(),
    /// The choice's registered sizes: payload bits of ZVC.
    pub size_zvc: Signal<In, Bits<11>> = d(),
    /// Payload bits of DBX.
    pub size_dbx: Signal<In, Bits<11>> = d(),
    /// Payload bits of BX.
    pub size_bx: Signal<In, Bits<11>> = d(),
    /// Payload bits of ZBX.
    pub size_zbx: Signal<In, Bits<11>> = d(),
    /// The choice's registered one-hot winners (none: raw).
    pub win_zvc: Signal<In, Bit> = d(),
    /// DBX wins.
    pub win_dbx: Signal<In, Bit> = d(),
    /// BX wins.
    pub win_bx: Signal<In, Bit> = d(),
    /// ZBX wins.
    pub win_zbx: Signal<In, Bit> = d(),
    /// DBX's registered base-symbol code: its first 32 bits.
    pub base_hi: Signal<In, Bits<32>> = d(),
    /// The base-symbol code's bit 32 at bit 31.
    pub base_lo: Signal<In, Bits<32>> = d(),
    /// Bits of the base-symbol code.
    pub base_len: Signal<In, Bits<11>> = d(),
    /// Stage 2: transfer id.
    pub id: Signal<In, Bits<8>> = d(),
    /// Stage 2: the block closes its transfer.
    pub last: Signal<In, Bit> = d(),
    /// DBX statistics: held values 0–31.
    pub dbx_x_held: [Signal<In, Bits<32>>; 32] = arr(),
    /// DBX statistics: held values 32–63.
    pub dbx_x_lo_held: [Signal<In, Bits<17>>; 32] = arr(),
    /// DBX statistics: held plane-32 bits.
    pub dbx_x_top_held: [Signal<In, Bit>; 32] = arr(),
    /// DBX statistics: `single_zero` planes 0–31.
    pub dbx_single_zero: Signal<In, Bits<32>> = d(),
    /// DBX statistics: `single_zero` plane 32.
    pub dbx_single_zero_top: Signal<In, Bit> = d(),
    /// DBX statistics: `run_start` planes 0–31.
    pub dbx_run_start: Signal<In, Bits<32>> = d(),
    /// DBX statistics: `run_start` plane 32.
    pub dbx_run_start_top: Signal<In, Bit> = d(),
    /// DBX statistics: `all_ones` planes 0–31.
    pub dbx_all_ones: Signal<In, Bits<32>> = d(),
    /// DBX statistics: `all_ones` plane 32.
    pub dbx_all_ones_top: Signal<In, Bit> = d(),
    /// DBX statistics: `dbp_zero` planes 0–31.
    pub dbx_dbp_zero: Signal<In, Bits<32>> = d(),
    /// DBX statistics: `dbp_zero` plane 32.
    pub dbx_dbp_zero_top: Signal<In, Bit> = d(),
    /// DBX statistics: `two_ones` planes 0–31.
    pub dbx_two_ones: Signal<In, Bits<32>> = d(),
    /// DBX statistics: `two_ones` plane 32.
    pub dbx_two_ones_top: Signal<In, Bit> = d(),
    /// DBX statistics: `one_one` planes 0–31.
    pub dbx_one_one: Signal<In, Bits<32>> = d(),
    /// DBX statistics: `one_one` plane 32.
    pub dbx_one_one_top: Signal<In, Bit> = d(),
    /// DBX statistics: `verbatim` planes 0–31.
    pub dbx_verbatim: Signal<In, Bits<32>> = d(),
    /// DBX statistics: `verbatim` plane 32.
    pub dbx_verbatim_top: Signal<In, Bit> = d(),
    /// DBX statistics: zero-run lengths.
    pub dbx_zero_run: [Signal<In, Bits<7>>; RUN_PLANES] = arr(),
    /// DBX statistics: plane length L.
    pub dbx_plane_len: Signal<In, Bits<7>> = d(),
    /// DBX statistics: position-field width Q.
    pub dbx_pos_field_bits: Signal<In, Bits<3>> = d(),
    /// BX statistics: held values 0–31.
    pub bx_x_held: [Signal<In, Bits<32>>; 32] = arr(),
    /// BX statistics: held values 32–63.
    pub bx_x_lo_held: [Signal<In, Bits<17>>; 32] = arr(),
    /// BX statistics: held plane-32 bits.
    pub bx_x_top_held: [Signal<In, Bit>; 32] = arr(),
    /// BX statistics: `single_zero` planes 0–31.
    pub bx_single_zero: Signal<In, Bits<32>> = d(),
    /// BX statistics: `single_zero` plane 32.
    pub bx_single_zero_top: Signal<In, Bit> = d(),
    /// BX statistics: `run_start` planes 0–31.
    pub bx_run_start: Signal<In, Bits<32>> = d(),
    /// BX statistics: `run_start` plane 32.
    pub bx_run_start_top: Signal<In, Bit> = d(),
    /// BX statistics: `all_ones` planes 0–31.
    pub bx_all_ones: Signal<In, Bits<32>> = d(),
    /// BX statistics: `all_ones` plane 32.
    pub bx_all_ones_top: Signal<In, Bit> = d(),
    /// BX statistics: `dbp_zero` planes 0–31.
    pub bx_dbp_zero: Signal<In, Bits<32>> = d(),
    /// BX statistics: `dbp_zero` plane 32.
    pub bx_dbp_zero_top: Signal<In, Bit> = d(),
    /// BX statistics: `two_ones` planes 0–31.
    pub bx_two_ones: Signal<In, Bits<32>> = d(),
    /// BX statistics: `two_ones` plane 32.
    pub bx_two_ones_top: Signal<In, Bit> = d(),
    /// BX statistics: `one_one` planes 0–31.
    pub bx_one_one: Signal<In, Bits<32>> = d(),
    /// BX statistics: `one_one` plane 32.
    pub bx_one_one_top: Signal<In, Bit> = d(),
    /// BX statistics: `verbatim` planes 0–31.
    pub bx_verbatim: Signal<In, Bits<32>> = d(),
    /// BX statistics: `verbatim` plane 32.
    pub bx_verbatim_top: Signal<In, Bit> = d(),
    /// BX statistics: zero-run lengths.
    pub bx_zero_run: [Signal<In, Bits<7>>; RUN_PLANES] = arr(),
    /// BX statistics: plane length L.
    pub bx_plane_len: Signal<In, Bits<7>> = d(),
    /// BX statistics: position-field width Q.
    pub bx_pos_field_bits: Signal<In, Bits<3>> = d(),
    /// ZBX statistics: held values 0–31.
    pub zbx_x_held: [Signal<In, Bits<32>>; 32] = arr(),
    /// ZBX statistics: held values 32–63.
    pub zbx_x_lo_held: [Signal<In, Bits<17>>; 32] = arr(),
    /// ZBX statistics: held plane-32 bits.
    pub zbx_x_top_held: [Signal<In, Bit>; 32] = arr(),
    /// ZBX statistics: `single_zero` planes 0–31.
    pub zbx_single_zero: Signal<In, Bits<32>> = d(),
    /// ZBX statistics: `single_zero` plane 32.
    pub zbx_single_zero_top: Signal<In, Bit> = d(),
    /// ZBX statistics: `run_start` planes 0–31.
    pub zbx_run_start: Signal<In, Bits<32>> = d(),
    /// ZBX statistics: `run_start` plane 32.
    pub zbx_run_start_top: Signal<In, Bit> = d(),
    /// ZBX statistics: `all_ones` planes 0–31.
    pub zbx_all_ones: Signal<In, Bits<32>> = d(),
    /// ZBX statistics: `all_ones` plane 32.
    pub zbx_all_ones_top: Signal<In, Bit> = d(),
    /// ZBX statistics: `dbp_zero` planes 0–31.
    pub zbx_dbp_zero: Signal<In, Bits<32>> = d(),
    /// ZBX statistics: `dbp_zero` plane 32.
    pub zbx_dbp_zero_top: Signal<In, Bit> = d(),
    /// ZBX statistics: `two_ones` planes 0–31.
    pub zbx_two_ones: Signal<In, Bits<32>> = d(),
    /// ZBX statistics: `two_ones` plane 32.
    pub zbx_two_ones_top: Signal<In, Bit> = d(),
    /// ZBX statistics: `one_one` planes 0–31.
    pub zbx_one_one: Signal<In, Bits<32>> = d(),
    /// ZBX statistics: `one_one` plane 32.
    pub zbx_one_one_top: Signal<In, Bit> = d(),
    /// ZBX statistics: `verbatim` planes 0–31.
    pub zbx_verbatim: Signal<In, Bits<32>> = d(),
    /// ZBX statistics: `verbatim` plane 32.
    pub zbx_verbatim_top: Signal<In, Bit> = d(),
    /// ZBX statistics: zero-run lengths.
    pub zbx_zero_run: [Signal<In, Bits<7>>; RUN_PLANES] = arr(),
    /// ZBX statistics: plane length L.
    pub zbx_plane_len: Signal<In, Bits<7>> = d(),
    /// ZBX statistics: position-field width Q.
    pub zbx_pos_field_bits: Signal<In, Bits<3>> = d(),
    /// The queue holds a block for the coder.
    pub busy: Signal<Out, Bit> = d(),
    /// Group of the queue the coder takes this cycle (0–3).
    pub cycle: Signal<Out, Bits<2>> = d(),
    /// Queue slots 0–8 (the coder's group): plane word, values 0–31 or a literal's first word.
    pub slot_hi: [Signal<Out, Bits<32>>; GROUP_SLOTS] = arr(),
    /// Queue slots 0–8: plane word, values 32–63 or a literal's second word.
    pub slot_lo: [Signal<Out, Bits<32>>; GROUP_SLOTS] = arr(),
    /// Queue slots 0–8: plane class.
    pub slot_class: [Signal<Out, Bits<3>>; GROUP_SLOTS] = arr(),
    /// Queue slots 0–8: zero-run length k of a zero-run plane.
    pub slot_run: [Signal<Out, Bits<7>>; GROUP_SLOTS] = arr(),
    /// Queue slots 0–8: code length in bits (registered, so that the coder's offset sums start
    /// from flops).
    pub slot_len: [Signal<Out, Bits<7>>; GROUP_SLOTS] = arr(),
    /// Queue slots 0–8: literal slot.
    pub slot_lit: [Signal<Out, Bit>; GROUP_SLOTS] = arr(),
    /// The block's code geometry for the coder: plane length L.
    pub plane_len: Signal<Out, Bits<7>> = d(),
    /// 27 − Q.
    pub pos_shift: Signal<Out, Bits<5>> = d(),
    /// 30 − R.
    pub run_shift: Signal<Out, Bits<5>> = d(),
    /// Chosen tag.
    pub tag: Signal<Out, Bits<3>> = d(),
    /// Payload bits of the chosen code.
    pub len: Signal<Out, Bits<11>> = d(),
    /// The block's original words.
    pub words: [Signal<Out, Bits<32>>; 32] = arr(),
    /// Transfer id of the block.
    pub block_id: Signal<Out, Bits<8>> = d(),
    /// The block closes its transfer.
    pub block_last: Signal<Out, Bit> = d(),
    em_busy: DFF<Bit> = d(),
    /// Group of the queue the coder takes this cycle (0–3).
    em_cycle: DFF<Bits<2>> = d(),
    q_hi: [DFF<Bits<32>>; QUEUE_PLANES] = arr(),
    q_lo: [DFF<Bits<32>>; QUEUE_PLANES] = arr(),
    q_class: [DFF<Bits<3>>; QUEUE_PLANES] = arr(),
    q_run: [DFF<Bits<7>>; QUEUE_PLANES] = arr(),
    q_len: [DFF<Bits<7>>; QUEUE_PLANES] = arr(),
    q_lit: [DFF<Bit>; QUEUE_PLANES] = arr(),
    em_tag: DFF<Bits<3>> = d(),
    em_len: DFF<Bits<11>> = d(),
    em_plane_len: DFF<Bits<7>> = d(),
    em_pos_shift: DFF<Bits<5>> = d(),
    em_run_shift: DFF<Bits<5>> = d(),
    em_words: [DFF<Bits<32>>; 32] = arr(),
    em_id: DFF<Bits<8>> = d(),
    em_last: DFF<Bit> = d(),
    raw_bits: Constant<Bits<11>> = Constant::new(RAW_BITS.into()),
    tag_zvc: Constant<Bits<3>> = Constant::new(TAG_ZVC.into()),
    tag_dbx: Constant<Bits<3>> = Constant::new(TAG_DBX.into()),
    tag_bx: Constant<Bits<3>> = Constant::new(TAG_BX.into()),
    tag_zbx: Constant<Bits<3>> = Constant::new(TAG_ZBX.into()),
    tag_raw: Constant<Bits<3>> = Constant::new(TAG_RAW.into()),
    literal_bits: Constant<Bits<7>> = Constant::new(LITERAL_BITS.into()),
    class_single_zero: Constant<Bits<3>> = Constant::new(CLASS_SINGLE_ZERO.into()),
    class_zero_run: Constant<Bits<3>> = Constant::new(CLASS_ZERO_RUN.into()),
    class_all_ones: Constant<Bits<3>> = Constant::new(CLASS_ALL_ONES.into()),
    class_dbp_zero: Constant<Bits<3>> = Constant::new(CLASS_DBP_ZERO.into()),
    class_two_ones: Constant<Bits<3>> = Constant::new(CLASS_TWO_ONES.into()),
    class_one_one: Constant<Bits<3>> = Constant::new(CLASS_ONE_ONE.into()),
    class_verbatim: Constant<Bits<3>> = Constant::new(CLASS_VERBATIM.into()),
    /// The block's words and the ZVC payload words, from the BX and ZBX input flops.
    block_word: [Signal<Local, Bits<32>>; 32] = arr(),
    zvc_word: [Signal<Local, Bits<32>>; 32] = arr(),
    /// The block's words byte-reversed (raw's payload is the bytes in order, MSB-first).
    raw_word: [Signal<Local, Bits<32>>; 32] = arr(),
    /// No code wins: the block is stored raw.
    raw: Signal<Local, Bit> = d(),
    sym_lo_t: Signal<Local, Bits<17>> = d(),
    sym_a: Signal<Local, Bits<32>> = d(),
    sym_b: Signal<Local, Bits<32>> = d(),
    head_hi: Signal<Local, Bits<32>> = d(),
    head_lo: Signal<Local, Bits<32>> = d(),
    head_len: Signal<Local, Bits<7>> = d(),
    choice_tag: Signal<Local, Bits<3>> = d(),
    choice_len: Signal<Local, Bits<11>> = d(),
    sel_len: Signal<Local, Bits<7>> = d(),
    /// Each code's position-code and verbatim-code lengths and the coder's position shift,
    /// computed from the statistics' flops before the chosen code's are selected.
    pos_len_dbx: Signal<Local, Bits<7>> = d(),
    pos_len_bx: Signal<Local, Bits<7>> = d(),
    pos_len_zbx: Signal<Local, Bits<7>> = d(),
    verb_len_dbx: Signal<Local, Bits<7>> = d(),
    verb_len_bx: Signal<Local, Bits<7>> = d(),
    verb_len_zbx: Signal<Local, Bits<7>> = d(),
    pos_shift_dbx: Signal<Local, Bits<5>> = d(),
    pos_shift_bx: Signal<Local, Bits<5>> = d(),
    pos_shift_zbx: Signal<Local, Bits<5>> = d(),
    sel_pos_shift: Signal<Local, Bits<5>> = d(),
    sel_y: [Signal<Local, Bits<32>>; 32] = arr(),
    sel_y_lo: [Signal<Local, Bits<17>>; 32] = arr(),
    sel_y_top: [Signal<Local, Bit>; 32] = arr(),
    sel_run: [Signal<Local, Bits<7>>; RUN_PLANES] = arr(),
    sel_single: Signal<Local, Bits<32>> = d(),
    sel_start: Signal<Local, Bits<32>> = d(),
    sel_all_ones: Signal<Local, Bits<32>> = d(),
    sel_dbp_zero: Signal<Local, Bits<32>> = d(),
    sel_two: Signal<Local, Bits<32>> = d(),
    sel_one: Signal<Local, Bits<32>> = d(),
    sel_verbatim: Signal<Local, Bits<32>> = d(),
    sel_single_top: Signal<Local, Bit> = d(),
    sel_start_top: Signal<Local, Bit> = d(),
    sel_all_ones_top: Signal<Local, Bit> = d(),
    sel_dbp_zero_top: Signal<Local, Bit> = d(),
    sel_two_top: Signal<Local, Bit> = d(),
    sel_one_top: Signal<Local, Bit> = d(),
    sel_verbatim_top: Signal<Local, Bit> = d(),
    plane_hi: [Signal<Local, Bits<32>>; 33] = arr(),
    plane_lo: [Signal<Local, Bits<32>>; 33] = arr(),
    plane_class: [Signal<Local, Bits<3>>; 33] = arr(),
    plane_code_len: [Signal<Local, Bits<7>>; 33] = arr(),
    run_code_len: Signal<Local, Bits<7>> = d(),
    pos_code_len: Signal<Local, Bits<7>> = d(),
    verbatim_len: Signal<Local, Bits<7>> = d(),
    single_zero_bits: Constant<Bits<7>> = Constant::new(SINGLE_ZERO_BITS.into()),
    fixed_code_bits: Constant<Bits<7>> = Constant::new(FIXED_CODE_BITS.into()),
    position_prefix_bits: Constant<Bits<7>> = Constant::new(POSITION_PREFIX_BITS.into()),
    run_code_w32: Constant<Bits<7>> = Constant::new(RUN_CODE_W32_BITS.into()),
    run_code_w16: Constant<Bits<7>> = Constant::new(RUN_CODE_W16_BITS.into()),
}
}

impl Logic for ChoiceStage {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            em_busy,
            em_cycle,
            em_tag,
            em_len,
            em_plane_len,
            em_pos_shift,
            em_run_shift,
            em_id,
            em_last
        );
        for i in 0..32 {
            self.em_words[i].clock.next = self.clock.val();
            self.em_words[i].d.next = self.em_words[i].q.val();
        }
        for i in 0..36 {
            self.q_hi[i].clock.next = self.clock.val();
            self.q_hi[i].d.next = self.q_hi[i].q.val();
            self.q_lo[i].clock.next = self.clock.val();
            self.q_lo[i].d.next = self.q_lo[i].q.val();
            self.q_class[i].clock.next = self.clock.val();
            self.q_class[i].d.next = self.q_class[i].q.val();
            self.q_run[i].clock.next = self.clock.val();
            self.q_run[i].d.next = self.q_run[i].q.val();
            self.q_len[i].clock.next = self.clock.val();
            self.q_len[i].d.next = self.q_len[i].q.val();
            self.q_lit[i].clock.next = self.clock.val();
            self.q_lit[i].d.next = self.q_lit[i].q.val();
        }
        self.sym_lo_t.next = bits::<17>(0);
        self.sym_a.next = bits::<32>(0);
        self.sym_b.next = bits::<32>(0);
        // The block's words: the BX values are its symbols (16-bit symbols low half first).
        for k in 0..32 {
            self.block_word[k].next = self.bx_x_held[k].val();
        }
        if self.w16.val() {
            for k in 0..16 {
                self.block_word[k].next =
                    self.bx_x_held[2 * k].val() | (self.bx_x_held[2 * k + 1].val() << 16);
            }
            for k in 16..32 {
                self.sym_lo_t.next = self.bx_x_lo_held[2 * k - 32].val();
                self.sym_a.next = bit_cast::<32, 17>(self.sym_lo_t.val());
                self.sym_lo_t.next = self.bx_x_lo_held[2 * k - 31].val();
                self.sym_b.next = bit_cast::<32, 17>(self.sym_lo_t.val());
                self.block_word[k].next = self.sym_a.val() | (self.sym_b.val() << 16);
            }
        }
        // ZVC's payload words: the mask, then the compacted symbols (the ZBX values) back to back.
        self.zvc_word[0].next = self.mask_hi.val();
        for k in 1..32 {
            self.zvc_word[k].next = self.zbx_x_held[k - 1].val();
        }
        if self.w16.val() {
            self.zvc_word[1].next = self.mask_lo.val();
            for k in 2..18 {
                self.zvc_word[k].next =
                    (self.zbx_x_held[2 * k - 4].val() << 16) | self.zbx_x_held[2 * k - 3].val();
            }
            for k in 18..32 {
                self.sym_lo_t.next = self.zbx_x_lo_held[2 * k - 36].val();
                self.sym_a.next = bit_cast::<32, 17>(self.sym_lo_t.val());
                self.sym_lo_t.next = self.zbx_x_lo_held[2 * k - 35].val();
                self.sym_b.next = bit_cast::<32, 17>(self.sym_lo_t.val());
                self.zvc_word[k].next = (self.sym_a.val() << 16) | self.sym_b.val();
            }
        }

        for k in 0..32 {
            self.raw_word[k].next = ((self.block_word[k].val() & 0xFF) << 24)
                | ((self.block_word[k].val() & 0xFF00) << 8)
                | ((self.block_word[k].val() >> 8) & 0xFF00)
                | (self.block_word[k].val() >> 24);
        }
        self.raw.next = !(self.win_zvc.val() | self.win_dbx.val() | self.win_bx.val() | self.win_zbx.val());

        // ---- each code's geometry-dependent lengths (FORMAT.md §5.3), before the selection
        self.pos_len_dbx.next = self.position_prefix_bits.val() + bit_cast::<7, 3>(self.dbx_pos_field_bits.val());
        self.pos_len_bx.next = self.position_prefix_bits.val() + bit_cast::<7, 3>(self.bx_pos_field_bits.val());
        self.pos_len_zbx.next = self.position_prefix_bits.val() + bit_cast::<7, 3>(self.zbx_pos_field_bits.val());
        self.verb_len_dbx.next = bits::<7>(1) + self.dbx_plane_len.val();
        self.verb_len_bx.next = bits::<7>(1) + self.bx_plane_len.val();
        self.verb_len_zbx.next = bits::<7>(1) + self.zbx_plane_len.val();
        self.pos_shift_dbx.next = bits::<5>(27) - bit_cast::<5, 3>(self.dbx_pos_field_bits.val());
        self.pos_shift_bx.next = bits::<5>(27) - bit_cast::<5, 3>(self.bx_pos_field_bits.val());
        self.pos_shift_zbx.next = bits::<5>(27) - bit_cast::<5, 3>(self.zbx_pos_field_bits.val());
        // ---- the registered choice: tag and length
        self.choice_tag.next = self.tag_raw.val();
        self.choice_len.next = self.raw_bits.val();
        if self.win_zvc.val() {
            self.choice_tag.next = self.tag_zvc.val();
            self.choice_len.next = self.size_zvc.val();
        }
        if self.win_dbx.val() {
            self.choice_tag.next = self.tag_dbx.val();
            self.choice_len.next = self.size_dbx.val();
        }
        if self.win_bx.val() {
            self.choice_tag.next = self.tag_bx.val();
            self.choice_len.next = self.size_bx.val();
        }
        if self.win_zbx.val() {
            self.choice_tag.next = self.tag_zbx.val();
            self.choice_len.next = self.size_zbx.val();
        }

        // ---- stage 2: the chosen plane code's values, classes and zero runs
        for m in 0..32 {
            self.sel_y[m].next = self.bx_x_held[m].val();
            self.sel_y_lo[m].next = self.bx_x_lo_held[m].val();
            self.sel_y_top[m].next = self.bx_x_top_held[m].val();
        }
        for j in 0..33 {
            self.sel_run[j].next = self.bx_zero_run[j].val();
        }
        self.sel_single.next = self.bx_single_zero.val();
        self.sel_start.next = self.bx_run_start.val();
        self.sel_all_ones.next = self.bx_all_ones.val();
        self.sel_dbp_zero.next = self.bx_dbp_zero.val();
        self.sel_two.next = self.bx_two_ones.val();
        self.sel_one.next = self.bx_one_one.val();
        self.sel_verbatim.next = self.bx_verbatim.val();
        self.sel_single_top.next = self.bx_single_zero_top.val();
        self.sel_start_top.next = self.bx_run_start_top.val();
        self.sel_all_ones_top.next = self.bx_all_ones_top.val();
        self.sel_dbp_zero_top.next = self.bx_dbp_zero_top.val();
        self.sel_two_top.next = self.bx_two_ones_top.val();
        self.sel_one_top.next = self.bx_one_one_top.val();
        self.sel_verbatim_top.next = self.bx_verbatim_top.val();
        self.sel_len.next = self.bx_plane_len.val();
        self.pos_code_len.next = self.pos_len_bx.val();
        self.verbatim_len.next = self.verb_len_bx.val();
        self.sel_pos_shift.next = self.pos_shift_bx.val();
        if self.win_dbx.val() {
            for m in 0..32 {
                self.sel_y[m].next = self.dbx_x_held[m].val();
                self.sel_y_lo[m].next = self.dbx_x_lo_held[m].val();
                self.sel_y_top[m].next = self.dbx_x_top_held[m].val();
            }
            for j in 0..33 {
                self.sel_run[j].next = self.dbx_zero_run[j].val();
            }
            self.sel_single.next = self.dbx_single_zero.val();
            self.sel_start.next = self.dbx_run_start.val();
            self.sel_all_ones.next = self.dbx_all_ones.val();
            self.sel_dbp_zero.next = self.dbx_dbp_zero.val();
            self.sel_two.next = self.dbx_two_ones.val();
            self.sel_one.next = self.dbx_one_one.val();
            self.sel_verbatim.next = self.dbx_verbatim.val();
            self.sel_single_top.next = self.dbx_single_zero_top.val();
            self.sel_start_top.next = self.dbx_run_start_top.val();
            self.sel_all_ones_top.next = self.dbx_all_ones_top.val();
            self.sel_dbp_zero_top.next = self.dbx_dbp_zero_top.val();
            self.sel_two_top.next = self.dbx_two_ones_top.val();
            self.sel_one_top.next = self.dbx_one_one_top.val();
            self.sel_verbatim_top.next = self.dbx_verbatim_top.val();
            self.sel_len.next = self.dbx_plane_len.val();
            self.pos_code_len.next = self.pos_len_dbx.val();
            self.verbatim_len.next = self.verb_len_dbx.val();
            self.sel_pos_shift.next = self.pos_shift_dbx.val();
        }
        if self.win_zbx.val() {
            for m in 0..32 {
                self.sel_y[m].next = self.zbx_x_held[m].val();
                self.sel_y_lo[m].next = self.zbx_x_lo_held[m].val();
                self.sel_y_top[m].next = self.zbx_x_top_held[m].val();
            }
            for j in 0..33 {
                self.sel_run[j].next = self.zbx_zero_run[j].val();
            }
            self.sel_single.next = self.zbx_single_zero.val();
            self.sel_start.next = self.zbx_run_start.val();
            self.sel_all_ones.next = self.zbx_all_ones.val();
            self.sel_dbp_zero.next = self.zbx_dbp_zero.val();
            self.sel_two.next = self.zbx_two_ones.val();
            self.sel_one.next = self.zbx_one_one.val();
            self.sel_verbatim.next = self.zbx_verbatim.val();
            self.sel_single_top.next = self.zbx_single_zero_top.val();
            self.sel_start_top.next = self.zbx_run_start_top.val();
            self.sel_all_ones_top.next = self.zbx_all_ones_top.val();
            self.sel_dbp_zero_top.next = self.zbx_dbp_zero_top.val();
            self.sel_two_top.next = self.zbx_two_ones_top.val();
            self.sel_one_top.next = self.zbx_one_one_top.val();
            self.sel_verbatim_top.next = self.zbx_verbatim_top.val();
            self.sel_len.next = self.zbx_plane_len.val();
            self.pos_code_len.next = self.pos_len_zbx.val();
            self.verbatim_len.next = self.verb_len_zbx.val();
            self.sel_pos_shift.next = self.pos_shift_zbx.val();
        }
        // The chosen code's XORed values y = x ^ (x >> 1), plane 32 above bit 31 (the plane
        // statistics hand on their registered x, so that their outputs are flops).
        for m in 0..32 {
            self.sel_y[m].next = (self.sel_y[m].val() ^ (self.sel_y[m].val() >> 1))
                .replace_bit(31, self.sel_y[m].val().get_bit(31) ^ self.sel_y_top[m].val());
            self.sel_y_lo[m].next = self.sel_y_lo[m].val() ^ (self.sel_y_lo[m].val() >> 1);
        }
        // Plane class: the class masks are exclusive, so each class bit is an OR of masks.
        for j in 0..32 {
            self.plane_class[j].next = bits::<3>(0);
            if self.sel_single.val().get_bit(j) {
                self.plane_class[j].next = self.class_single_zero.val();
            }
            if self.sel_start.val().get_bit(j) {
                self.plane_class[j].next = self.plane_class[j].val() | self.class_zero_run.val();
            }
            if self.sel_all_ones.val().get_bit(j) {
                self.plane_class[j].next = self.plane_class[j].val() | self.class_all_ones.val();
            }
            if self.sel_dbp_zero.val().get_bit(j) {
                self.plane_class[j].next = self.plane_class[j].val() | self.class_dbp_zero.val();
            }
            if self.sel_two.val().get_bit(j) {
                self.plane_class[j].next = self.plane_class[j].val() | self.class_two_ones.val();
            }
            if self.sel_one.val().get_bit(j) {
                self.plane_class[j].next = self.plane_class[j].val() | self.class_one_one.val();
            }
            if self.sel_verbatim.val().get_bit(j) {
                self.plane_class[j].next = self.plane_class[j].val() | self.class_verbatim.val();
            }
        }
        self.plane_class[32].next = bits::<3>(0);
        if self.sel_single_top.val() {
            self.plane_class[32].next = self.class_single_zero.val();
        }
        if self.sel_start_top.val() {
            self.plane_class[32].next = self.plane_class[32].val() | self.class_zero_run.val();
        }
        if self.sel_all_ones_top.val() {
            self.plane_class[32].next = self.plane_class[32].val() | self.class_all_ones.val();
        }
        if self.sel_dbp_zero_top.val() {
            self.plane_class[32].next = self.plane_class[32].val() | self.class_dbp_zero.val();
        }
        if self.sel_two_top.val() {
            self.plane_class[32].next = self.plane_class[32].val() | self.class_two_ones.val();
        }
        if self.sel_one_top.val() {
            self.plane_class[32].next = self.plane_class[32].val() | self.class_one_one.val();
        }
        if self.sel_verbatim_top.val() {
            self.plane_class[32].next = self.plane_class[32].val() | self.class_verbatim.val();
        }
        // Code length per plane (FORMAT.md §5.3): the class masks are exclusive, so an OR of
        // the masked lengths.
        self.run_code_len.next = self.run_code_w32.val();
        if self.w16.val() {
            self.run_code_len.next = self.run_code_w16.val();
        }
        for j in 0..32 {
            self.plane_code_len[j].next = bits::<7>(0);
            if self.sel_single.val().get_bit(j) {
                self.plane_code_len[j].next = self.single_zero_bits.val();
            }
            if self.sel_start.val().get_bit(j) {
                self.plane_code_len[j].next = self.plane_code_len[j].val() | self.run_code_len.val();
            }
            if self.sel_all_ones.val().get_bit(j) | self.sel_dbp_zero.val().get_bit(j) {
                self.plane_code_len[j].next = self.plane_code_len[j].val() | self.fixed_code_bits.val();
            }
            if self.sel_two.val().get_bit(j) | self.sel_one.val().get_bit(j) {
                self.plane_code_len[j].next = self.plane_code_len[j].val() | self.pos_code_len.val();
            }
            if self.sel_verbatim.val().get_bit(j) {
                self.plane_code_len[j].next = self.plane_code_len[j].val() | self.verbatim_len.val();
            }
        }
        self.plane_code_len[32].next = bits::<7>(0);
        if self.sel_single_top.val() {
            self.plane_code_len[32].next = self.single_zero_bits.val();
        }
        if self.sel_start_top.val() {
            self.plane_code_len[32].next = self.plane_code_len[32].val() | self.run_code_len.val();
        }
        if self.sel_all_ones_top.val() | self.sel_dbp_zero_top.val() {
            self.plane_code_len[32].next = self.plane_code_len[32].val() | self.fixed_code_bits.val();
        }
        if self.sel_two_top.val() | self.sel_one_top.val() {
            self.plane_code_len[32].next = self.plane_code_len[32].val() | self.pos_code_len.val();
        }
        if self.sel_verbatim_top.val() {
            self.plane_code_len[32].next = self.plane_code_len[32].val() | self.verbatim_len.val();
        }
        // Transpose (wiring): plane j holds bit j of value m at bit 31 − m of `hi` (m < 32) or
        // of `lo` (m ≥ 32), first value leftmost. Evaluated only when the emitter loads.
        for j in 0..33 {
            self.plane_hi[j].next = bits::<32>(0);
            self.plane_lo[j].next = bits::<32>(0);
        }
        if self.load.val() {
            for j in 0..32 {
                for m in 0..32 {
                    self.plane_hi[j].next = self.plane_hi[j]
                        .val()
                        .replace_bit(31 - m, self.sel_y[m].val().get_bit(j));
                }
            }
            for j in 0..17 {
                for m in 0..32 {
                    self.plane_lo[j].next = self.plane_lo[j]
                        .val()
                        .replace_bit(31 - m, self.sel_y_lo[m].val().get_bit(j));
                }
            }
            for m in 0..32 {
                self.plane_hi[32].next = self.plane_hi[32].val().replace_bit(31 - m, self.sel_y_top[m].val());
            }
        }
        // Slot 0's header: the DBX base code or the ZBX mask (BX: none).
        self.head_hi.next = bits::<32>(0);
        self.head_lo.next = bits::<32>(0);
        self.head_len.next = bits::<7>(0);
        if self.win_dbx.val() {
            self.head_hi.next = self.base_hi.val();
            self.head_lo.next = self.base_lo.val();
            self.head_len.next = bit_cast::<7, 11>(self.base_len.val());
        }
        if self.win_zbx.val() {
            self.head_hi.next = self.mask_hi.val();
            self.head_lo.next = bits::<32>(0);
            self.head_len.next = bits::<7>(32);
            if self.w16.val() {
                self.head_lo.next = self.mask_lo.val();
                self.head_len.next = bits::<7>(64);
            }
        }

        // ---- emitter load: the queue, top plane first (a block leaves stage 2)
        if self.load.val() {
            self.em_busy.d.next = true;
            self.em_cycle.d.next = bits::<2>(0);
            self.em_tag.d.next = self.choice_tag.val();
            self.em_len.d.next = self.choice_len.val();
            self.em_plane_len.d.next = self.sel_len.val();
            self.em_pos_shift.d.next = self.sel_pos_shift.val();
            self.em_run_shift.d.next = bits::<5>(25);
            if self.w16.val() {
                self.em_run_shift.d.next = bits::<5>(26);
            }
            for k in 0..32 {
                self.em_words[k].d.next = self.block_word[k].val();
            }
            self.em_id.d.next = self.id.val();
            self.em_last.d.next = self.last.val();
            for i in 0..36 {
                self.q_hi[i].d.next = bits::<32>(0);
                self.q_lo[i].d.next = bits::<32>(0);
                self.q_class[i].d.next = bits::<3>(0);
                self.q_run[i].d.next = bits::<7>(0);
                self.q_len[i].d.next = bits::<7>(0);
                self.q_lit[i].d.next = false;
            }
            // One layout for every code and width: slot 0 the header, slot s = plane 33 − s
            // (slot 1 = plane 32). Planes a code or width does not have are empty (class none,
            // length 0, zero words: the statistics classify no plane above the symbol width), so
            // 16-bit symbols start at slot 16 or 17 and no slot chooses between layouts.
            self.q_hi[0].d.next = self.head_hi.val();
            self.q_lo[0].d.next = self.head_lo.val();
            self.q_len[0].d.next = self.head_len.val();
            self.q_lit[0].d.next = true;
            for i in 0..33 {
                self.q_hi[i + 1].d.next = self.plane_hi[32 - i].val();
                self.q_lo[i + 1].d.next = self.plane_lo[32 - i].val();
                self.q_class[i + 1].d.next = self.plane_class[32 - i].val();
                self.q_run[i + 1].d.next = self.sel_run[32 - i].val();
                self.q_len[i + 1].d.next = self.plane_code_len[32 - i].val();
            }
            // ZVC and raw: 16 literal slots of two payload words, the rest empty.
            if self.win_zvc.val() {
                for s in 0..16 {
                    self.q_hi[s].d.next = self.zvc_word[2 * s].val();
                    self.q_lo[s].d.next = self.zvc_word[2 * s + 1].val();
                    self.q_len[s].d.next = self.literal_bits.val();
                    self.q_lit[s].d.next = true;
                    self.q_class[s].d.next = bits::<3>(0);
                }
            }
            if self.raw.val() {
                for s in 0..16 {
                    self.q_hi[s].d.next = self.raw_word[2 * s].val();
                    self.q_lo[s].d.next = self.raw_word[2 * s + 1].val();
                    self.q_len[s].d.next = self.literal_bits.val();
                    self.q_lit[s].d.next = true;
                    self.q_class[s].d.next = bits::<3>(0);
                }
            }
            if self.win_zvc.val() | self.raw.val() {
                for s in 16..34 {
                    self.q_hi[s].d.next = bits::<32>(0);
                    self.q_lo[s].d.next = bits::<32>(0);
                    self.q_class[s].d.next = bits::<3>(0);
                    self.q_len[s].d.next = bits::<7>(0);
                }
            }
        } else if self.step.val() & self.em_busy.q.val() {
            // The coder took slots 0–8: the queue advances by a group.
            self.em_cycle.d.next = self.em_cycle.q.val() + 1;
            for i in 0..27 {
                self.q_hi[i].d.next = self.q_hi[i + 9].q.val();
                self.q_lo[i].d.next = self.q_lo[i + 9].q.val();
                self.q_class[i].d.next = self.q_class[i + 9].q.val();
                self.q_run[i].d.next = self.q_run[i + 9].q.val();
                self.q_len[i].d.next = self.q_len[i + 9].q.val();
                self.q_lit[i].d.next = self.q_lit[i + 9].q.val();
            }
            for i in 27..36 {
                self.q_len[i].d.next = bits::<7>(0);
                self.q_class[i].d.next = bits::<3>(0);
                self.q_lit[i].d.next = false;
            }
            if self.em_cycle.q.val() == 3 {
                self.em_busy.d.next = false;
            }
        }

        if self.reset.val() {
            self.em_busy.d.next = false;
        }
        self.busy.next = self.em_busy.q.val();
        self.cycle.next = self.em_cycle.q.val();
        for t in 0..9 {
            self.slot_hi[t].next = self.q_hi[t].q.val();
            self.slot_lo[t].next = self.q_lo[t].q.val();
            self.slot_class[t].next = self.q_class[t].q.val();
            self.slot_run[t].next = self.q_run[t].q.val();
            self.slot_len[t].next = self.q_len[t].q.val();
            self.slot_lit[t].next = self.q_lit[t].q.val();
        }
        self.plane_len.next = self.em_plane_len.q.val();
        self.pos_shift.next = self.em_pos_shift.q.val();
        self.run_shift.next = self.em_run_shift.q.val();
        self.tag.next = self.em_tag.q.val();
        self.len.next = self.em_len.q.val();
        for k in 0..32 {
            self.words[k].next = self.em_words[k].q.val();
        }
        self.block_id.next = self.em_id.q.val();
        self.block_last.next = self.em_last.q.val();
    }
}
