//! FORMAT.md rules that the codec tests do not cover on their own: §4.4's statement about ZBX
//! with one nonzero symbol, §7's zero padding, and §9 on corrupted streams — every tag bit of every
//! block flipped, every chunk header made larger or smaller, truncation at every byte — each of
//! which must be a typed error that names the chunk (and block), never a panic or a wrong tensor.

use engine::golden::block::TAG_BITS;
use engine::golden::chunk::HEADER_BYTES;
use engine::golden::{BLOCK_BYTES, CHUNK_BYTES, DecodeError, SymbolWidth, Tag, block_sizes, decode_stream, encode_block, encode_stream};
use engine::synth::activation_block;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A block whose only nonzero symbol is `value` at symbol index `at`.
fn single(value: u32, at: usize, width: SymbolWidth) -> [u8; BLOCK_BYTES] {
    let mut syms = vec![0u32; width.symbols()];
    syms[at] = value;
    let mut block = [0u8; BLOCK_BYTES];
    width.store(&syms, &mut block);
    block
}

#[test]
fn zbx_with_one_nonzero_symbol_is_never_chosen_but_can_beat_zvc() {
    // §4.4's example, figures derived by hand there.
    let s = block_sizes(&single(1, 5, SymbolWidth::W32), SymbolWidth::W32);
    assert_eq!((s.get(Tag::Zvc), s.get(Tag::Zbx), s.get(Tag::Bx)), (64, 44, 17));
    // Every 16-bit value (the sizes do not depend on the position: spot-check two).
    for v in 1..=0xFFFFu32 {
        for at in [0, 37] {
            let tag = encode_block(&single(v, at, SymbolWidth::W16), SymbolWidth::W16).tag;
            assert_ne!(tag, Tag::Zbx, "w16 value {v:#x} at {at}");
        }
    }
    // 32-bit values: every value with 7 or more runs of ones among structured patterns (the only
    // ones where ZBX can beat BX, §4.4), and random values.
    let mut rng = ChaCha8Rng::seed_from_u64(44);
    let mut beat_bx = 0;
    for i in 0..100_000u32 {
        let v = match i % 3 {
            0 => rng.r#gen::<u32>(),
            1 => 0x5555_5555 ^ (1u32 << (i % 32)) ^ rng.gen_range(0..16),
            _ => rng.r#gen::<u32>() | 1,
        };
        if v == 0 {
            continue;
        }
        let sizes = block_sizes(&single(v, (i % 32) as usize, SymbolWidth::W32), SymbolWidth::W32);
        beat_bx += (sizes.get(Tag::Zbx) < sizes.get(Tag::Bx)) as usize;
        assert_ne!(sizes.choice().0, Tag::Zbx, "w32 value {v:#x}");
    }
    // The samples must include values where ZBX beats BX, or the check above proves little.
    assert!(beat_bx > 1000, "only {beat_bx} samples where ZBX < BX");
}

#[test]
fn nonzero_padding_in_a_final_partial_block_is_rejected() {
    // 64 f32 ones = two blocks; read as a 200-byte tensor, block 1's bytes 72..128 are padding
    // and decode as 1.0 (`00 00 80 3f`), so the first nonzero padding byte is byte 74.
    let ones: Vec<u8> = (0..64).flat_map(|_| 1.0f32.to_le_bytes()).collect();
    let stream = encode_stream(&ones, SymbolWidth::W32);
    assert!(u16::from_le_bytes([stream[0], stream[1]]) < 200, "must stay a compressed chunk");
    match decode_stream(&stream, 200, SymbolWidth::W32) {
        Err(DecodeError::InChunk { chunk: 0, block: 1, source }) => assert_eq!(*source, DecodeError::PaddingNotZero { byte: 74 }),
        other => panic!("{other:?}"),
    }
    // The same tensor cut at 200 bytes and encoded properly decodes (its padding is zero).
    let stream = encode_stream(&ones[..200], SymbolWidth::W32);
    assert_eq!(decode_stream(&stream, 200, SymbolWidth::W32).unwrap(), &ones[..200]);
}

/// A small mixed tensor: activation-like blocks, a random (raw) chunk, a partial last chunk.
fn mixed(width: SymbolWidth) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(9 + width.bits() as u64);
    let mut data: Vec<u8> = (0..32).flat_map(|_| activation_block(&mut rng, width)).collect();
    data.extend((0..CHUNK_BYTES).map(|_| rng.r#gen::<u8>()));
    data.extend((0..11).flat_map(|_| activation_block(&mut rng, width)).take(11 * BLOCK_BYTES - 77));
    data
}

/// (chunk, block, bit offset of the block's tag in the stream) of every block of compressed chunks.
fn tag_positions(data: &[u8], stream: &[u8], width: SymbolWidth) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (c, chunk) in data.chunks(CHUNK_BYTES).enumerate() {
        let header = u16::from_le_bytes([stream[offset], stream[offset + 1]]) as usize;
        if header < chunk.len() {
            let mut bit = (offset + HEADER_BYTES) * 8;
            for (b, block) in chunk.chunks(BLOCK_BYTES).enumerate() {
                let mut padded = [0u8; BLOCK_BYTES];
                padded[..block.len()].copy_from_slice(block);
                out.push((c, b, bit));
                bit += (TAG_BITS + encode_block(&padded, width).payload_bits) as usize;
            }
        }
        offset += HEADER_BYTES + header;
    }
    out
}

/// A flipped tag bit makes the decoder read the block with another code. Nearly always that is
/// an error naming the chunk (and a block at or after the flipped one); but the format has no
/// checksum, and a few flips decode to a stream of the right length — a wrong tensor the stream
/// decoder cannot see (the container's CRC-32 catches it, `engine/tests/container.rs`).
#[test]
fn flipped_tag_bits_are_errors_naming_their_chunk_or_decode_to_a_different_tensor() {
    let (mut flips, mut silent) = (0, 0);
    for width in [SymbolWidth::W16, SymbolWidth::W32] {
        let data = mixed(width);
        let stream = encode_stream(&data, width);
        let tags = tag_positions(&data, &stream, width);
        assert!(tags.len() >= 40, "{width:?}: only {} coded blocks", tags.len());
        for &(chunk, block, at) in &tags {
            for k in 0..TAG_BITS as usize {
                let mut bad = stream.clone();
                bad[(at + k) / 8] ^= 0x80 >> ((at + k) % 8);
                flips += 1;
                match decode_stream(&bad, data.len(), width) {
                    Err(DecodeError::InChunk { chunk: c, block: b, .. }) => assert!(c == chunk && b >= block, "chunk {c} block {b}"),
                    Err(DecodeError::SizeMismatch { chunk: c, .. }) => assert_eq!(c, chunk),
                    Err(other) => panic!("{width:?} chunk {chunk} block {block}: {other}"),
                    Ok(wrong) => {
                        assert_ne!(wrong, data, "a flipped tag cannot decode to the same tensor");
                        silent += 1;
                    }
                }
            }
        }
    }
    // Silent mis-decodes are rare; if they became common the decoder would have lost a check.
    assert!(silent * 50 < flips, "{silent} of {flips} tag flips decoded without error");
}

#[test]
fn every_chunk_header_made_larger_or_smaller_is_an_error() {
    for width in [SymbolWidth::W16, SymbolWidth::W32] {
        let data = mixed(width);
        let stream = encode_stream(&data, width);
        let mut offset = 0;
        let mut chunks = 0;
        while offset < stream.len() {
            let header = u16::from_le_bytes([stream[offset], stream[offset + 1]]) as usize;
            for other in [0, header.saturating_sub(1), header + 1, header + 8, 4096, 4097, 0xFFFF] {
                if other == header {
                    continue;
                }
                let mut bad = stream.clone();
                bad[offset..offset + 2].copy_from_slice(&(other as u16).to_le_bytes());
                let result = decode_stream(&bad, data.len(), width);
                assert!(result.is_err(), "{width:?} chunk {chunks}: header {header} -> {other} decoded");
            }
            offset += HEADER_BYTES + header;
            chunks += 1;
        }
        assert_eq!(chunks, 3);
    }
}

#[test]
fn truncation_at_every_byte_is_an_error() {
    for width in [SymbolWidth::W16, SymbolWidth::W32] {
        let data = mixed(width);
        let stream = encode_stream(&data, width);
        for cut in 0..stream.len() {
            match decode_stream(&stream[..cut], data.len(), width) {
                Err(DecodeError::StreamTruncated { .. } | DecodeError::InChunk { .. } | DecodeError::SizeMismatch { .. }) => {}
                other => panic!("{width:?} cut at {cut}: {other:?}"),
            }
        }
        assert_eq!(decode_stream(&stream, data.len(), width).unwrap(), data);
    }
}
