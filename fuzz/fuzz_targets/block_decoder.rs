//! The block decoders never panic: any tag, any payload bits, either width (FORMAT.md §4–6, §9);
//! and the fast decoder (`engine::fast`, SWAR paths) agrees with golden on every input.
//! Input: byte 0 = width (bit 0) and tag (bits 1–3; 5–7 reserved, rejected by golden's block
//! decoder, still fed to the stream decoders), byte 1 = how many trailing bits of the payload to
//! ignore (bits 0–2) and how many bytes of the block lie past the tensor's end (bits 3–7, the
//! final partial block of FORMAT.md §7), the rest = the payload.
//!
//! The fast path has no block-level entry point, so tag + payload are also framed as a
//! one-chunk stream (2-byte header, body padded to whole bytes with zero bits) and decoded by
//! `fast::decode_stream`, `fast::par_decode_stream` and `golden::decode_stream`: all three must
//! return the same `Result` (bytes, or the same typed error).
#![no_main]

use engine::golden::bits::BitWriter;
use engine::golden::block::TAG_BITS;
use engine::golden::chunk::HEADER_BYTES;
use engine::golden::{BLOCK_BYTES, BlockEncoding, SymbolWidth, Tag, decode_block, decode_stream, encode_block_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [head, cut, payload @ ..] = data else { return };
    let width = if head & 1 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
    let tag_bits = u32::from(head >> 1 & 7);
    let payload_bits = (payload.len() * 8).saturating_sub(usize::from(cut % 8)) as u32;
    let golden_block = Tag::from_bits(tag_bits).ok().map(|tag| {
        let enc = BlockEncoding { tag, payload_bits, payload: payload.to_vec() };
        let decoded = decode_block(&enc, width);
        if let Ok(block) = &decoded {
            // A payload that decodes is a block; coding that block with the same code must
            // decode to it again (the encoder may choose other, canonical bits).
            let again = encode_block_with(block, width, tag);
            assert_eq!(&decode_block(&again, width).expect("canonical payload decodes"), block);
        }
        decoded
    });

    // The same bits as a one-chunk stream of one (possibly partial) block.
    let raw_bytes = BLOCK_BYTES - usize::from(cut >> 3);
    let mut w = BitWriter::new();
    w.put(tag_bits, TAG_BITS);
    for i in 0..payload_bits as usize {
        w.put(u32::from(payload[i / 8] >> (7 - i % 8) & 1), 1);
    }
    let body = w.into_bytes();
    let Ok(body_len) = u16::try_from(body.len()) else { return };
    let mut stream = Vec::with_capacity(HEADER_BYTES + body.len());
    stream.extend_from_slice(&body_len.to_le_bytes());
    stream.extend_from_slice(&body);
    let golden = decode_stream(&stream, raw_bytes, width);
    assert_eq!(engine::fast::decode_stream(&stream, raw_bytes, width), golden, "fast::decode_stream");
    assert_eq!(engine::fast::par_decode_stream(&stream, raw_bytes, width), golden, "fast::par_decode_stream");
    // Where the block decoder and the compressed chunk both succeed on the same bits, they
    // decode the same block (a body of raw_bytes bytes is a stored chunk, not a block).
    if let (Some(Ok(block)), Ok(tensor)) = (golden_block, &golden)
        && body.len() != raw_bytes
    {
        assert_eq!(tensor[..], block[..raw_bytes]);
    }
});
