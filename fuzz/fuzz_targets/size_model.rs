//! The golden size model equals the encoder's length for every code on arbitrary blocks, the
//! chosen code is the smallest (ties to the lowest tag), and every code decodes back; the fast
//! size model (`engine::fast`, SWAR) equals golden's, block by block and over the block as a
//! tensor, and the fast encoder writes golden's stream bytes.
//! Input: byte 0 = width (bit 0), then 128 block bytes (shorter inputs are zero-padded).
#![no_main]

use engine::golden::{BLOCK_BYTES, SymbolWidth, Tag, block_sizes, decode_block, encode_block, encode_block_with, encode_stream};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [head, rest @ ..] = data else { return };
    let width = if head & 1 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
    let mut block = [0u8; BLOCK_BYTES];
    let n = rest.len().min(BLOCK_BYTES);
    block[..n].copy_from_slice(&rest[..n]);
    let sizes = block_sizes(&block, width);
    for tag in Tag::ALL {
        let enc = encode_block_with(&block, width, tag);
        assert_eq!(enc.payload_bits, sizes.get(tag), "{tag:?}");
        assert_eq!(decode_block(&enc, width).expect("decodes"), block, "{tag:?}");
    }
    let chosen = encode_block(&block, width);
    assert_eq!((chosen.tag, chosen.payload_bits), sizes.choice());
    assert!(Tag::ALL.iter().all(|&t| sizes.get(t) > chosen.payload_bits || t >= chosen.tag));

    assert_eq!(engine::fast::block_sizes(&block, width), sizes, "fast::block_sizes");
    assert_eq!(engine::fast::blocks_sizes(&block, width), [sizes], "fast::blocks_sizes");
    // The input's own bytes as a (possibly partial) one-block tensor.
    let tensor = &rest[..n];
    assert_eq!(engine::fast::encode_stream(tensor, width), encode_stream(tensor, width), "fast::encode_stream");
});
