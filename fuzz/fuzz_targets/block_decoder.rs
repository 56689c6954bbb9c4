//! The block decoder never panics: any tag, any payload bits, either width (FORMAT.md §4–6, §9).
//! Input: byte 0 = width (bit 0) and tag (bits 1–3; 5–7 reserved, rejected), byte 1 = how many
//! trailing bits of the payload to ignore, the rest = the payload.
#![no_main]

use engine::golden::{BLOCK_BYTES, BlockEncoding, SymbolWidth, Tag, decode_block, encode_block_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [head, cut, payload @ ..] = data else { return };
    let width = if head & 1 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
    let Ok(tag) = Tag::from_bits(u32::from(head >> 1 & 7)) else { return };
    let payload_bits = (payload.len() * 8).saturating_sub(usize::from(cut % 8)) as u32;
    let enc = BlockEncoding { tag, payload_bits, payload: payload.to_vec() };
    if let Ok(block) = decode_block(&enc, width) {
        // A payload that decodes is a block; coding that block with the same code must decode
        // to it again (the encoder may choose other, canonical bits).
        let again = encode_block_with(&block, width, tag);
        assert_eq!(decode_block(&again, width).expect("canonical payload decodes"), block);
        assert_eq!(block.len(), BLOCK_BYTES);
    }
});
