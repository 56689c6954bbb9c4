//! Golden codec tests: round trips, size model == bit writer, chunk streams, malformed input.
//! (Shared test vectors are checked in `vectors.rs`.)

use engine::golden::block::{TAG_BITS, encode_block_with};
use engine::golden::chunk::{HEADER_BYTES, chunk_offsets, stream_bytes_for};
use engine::golden::{BLOCK_BYTES, CHUNK_BYTES, DecodeError, SymbolWidth, Tag, block_sizes, decode_block, decode_stream, encode_block, encode_stream};
use engine::synth::activation_block;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const WIDTHS: [SymbolWidth; 2] = [SymbolWidth::W16, SymbolWidth::W32];

/// Checks one block every way: each code's writer length equals the size model, each code
/// decodes back to the block, and the chosen code is the smallest with the lowest tag on ties.
fn check_block(block: &[u8; BLOCK_BYTES], width: SymbolWidth) {
    let sizes = block_sizes(block, width);
    for tag in Tag::ALL {
        let enc = encode_block_with(block, width, tag);
        assert_eq!(enc.payload_bits, sizes.get(tag), "{width:?} {tag:?} size model vs writer on {block:02x?}");
        assert_eq!(&decode_block(&enc, width).unwrap(), block, "{width:?} {tag:?} round trip");
    }
    let chosen = encode_block(block, width);
    let best = Tag::ALL.iter().map(|&t| sizes.get(t)).min().unwrap();
    assert_eq!(chosen.payload_bits, best);
    assert!(Tag::ALL.iter().all(|&t| sizes.get(t) > best || t >= chosen.tag), "tie-break to lowest tag");
}

#[test]
fn a_million_structured_blocks_per_width_round_trip_and_match_the_size_model() {
    for width in WIDTHS {
        let mut rng = ChaCha8Rng::seed_from_u64(0x5EED_0000 + width.bits() as u64);
        let mut by_tag = [0usize; 5];
        for _ in 0..1_000_000 {
            let block = activation_block(&mut rng, width);
            check_block(&block, width);
            by_tag[encode_block(&block, width).tag as usize] += 1;
        }
        // The generator must exercise every choice, or this test proves less than it claims.
        assert!(by_tag.iter().all(|&n| n > 1000), "{width:?}: chosen tags {by_tag:?}");
    }
}

fn structured_blocks(width: SymbolWidth) -> impl Strategy<Value = [u8; BLOCK_BYTES]> {
    any::<u64>().prop_map(move |seed| activation_block(&mut ChaCha8Rng::seed_from_u64(seed), width))
}

proptest! {
    #[test]
    fn arbitrary_bytes_round_trip(bytes in prop::collection::vec(any::<u8>(), BLOCK_BYTES), w16 in any::<bool>()) {
        let width = if w16 { SymbolWidth::W16 } else { SymbolWidth::W32 };
        check_block(&bytes.try_into().unwrap(), width);
    }

    #[test]
    fn structured_w16_blocks_round_trip(block in structured_blocks(SymbolWidth::W16)) {
        check_block(&block, SymbolWidth::W16);
    }

    #[test]
    fn structured_w32_blocks_round_trip(block in structured_blocks(SymbolWidth::W32)) {
        check_block(&block, SymbolWidth::W32);
    }

    #[test]
    fn streams_of_any_length_round_trip(seed in any::<u64>(), len in 0usize..3 * CHUNK_BYTES + 300, w16 in any::<bool>()) {
        let width = if w16 { SymbolWidth::W16 } else { SymbolWidth::W32 };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let data: Vec<u8> = (0..len.div_ceil(BLOCK_BYTES)).flat_map(|_| activation_block(&mut rng, width)).take(len).collect();
        let stream = encode_stream(&data, width);
        prop_assert_eq!(decode_stream(&stream, len, width).unwrap(), data.clone());
        // The size model predicts the stream length exactly.
        let bits = data.chunks(BLOCK_BYTES).map(|b| {
            let mut p = [0u8; BLOCK_BYTES];
            p[..b.len()].copy_from_slice(b);
            block_sizes(&p, width).choice().1
        });
        prop_assert_eq!(stream_bytes_for(len, bits, TAG_BITS), stream.len());
        // Every chunk is found by the prefix sum over headers.
        let offsets = chunk_offsets(&stream, len).unwrap();
        prop_assert_eq!(offsets.len(), len.div_ceil(CHUNK_BYTES));
    }

    #[test]
    fn corrupted_streams_never_panic(seed in any::<u64>(), flips in prop::collection::vec((any::<usize>(), 0u8..8), 1..4), cut in any::<usize>()) {
        let width = if seed % 2 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let len = rng.gen_range(1..2 * CHUNK_BYTES);
        let data: Vec<u8> = (0..len.div_ceil(BLOCK_BYTES)).flat_map(|_| activation_block(&mut rng, width)).take(len).collect();
        let mut stream = encode_stream(&data, width);
        for (at, bit) in flips {
            let i = at % stream.len();
            stream[i] ^= 1 << bit;
        }
        let cut = cut % (stream.len() + 1);
        // Any result is fine except a panic; a successful decode must have the right length.
        if let Ok(back) = decode_stream(&stream[..cut], len, width) {
            prop_assert_eq!(back.len(), len);
        }
    }
}

fn relu_tensor(len: usize) -> Vec<u8> {
    (0..len / 4).flat_map(|i| (if i % 3 == 0 { 0.0f32 } else { 1.0 + i as f32 * 1e-3 }).to_le_bytes()).collect()
}

#[test]
fn incompressible_chunk_is_stored_raw_and_marked_by_its_length() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let data: Vec<u8> = (0..CHUNK_BYTES + 1000).map(|_| rng.r#gen()).collect();
    let stream = encode_stream(&data, SymbolWidth::W32);
    assert_eq!(u16::from_le_bytes([stream[0], stream[1]]) as usize, CHUNK_BYTES);
    assert_eq!(&stream[2..2 + CHUNK_BYTES], &data[..CHUNK_BYTES]);
    let second = 2 + CHUNK_BYTES;
    assert_eq!(u16::from_le_bytes([stream[second], stream[second + 1]]), 1000);
    assert_eq!(stream.len(), 2 * HEADER_BYTES + data.len());
    assert_eq!(decode_stream(&stream, data.len(), SymbolWidth::W32).unwrap(), data);
}

#[test]
fn empty_tensor_is_an_empty_stream() {
    assert!(encode_stream(&[], SymbolWidth::W32).is_empty());
    assert_eq!(decode_stream(&[], 0, SymbolWidth::W32).unwrap(), Vec::<u8>::new());
}

#[test]
fn malformed_streams_give_typed_errors() {
    let data = relu_tensor(2 * CHUNK_BYTES + 512);
    let width = SymbolWidth::W32;
    let stream = encode_stream(&data, width);
    assert!(stream.len() < data.len() / 2);

    // Truncated anywhere: an error, never a panic.
    for cut in 0..stream.len() {
        assert!(decode_stream(&stream[..cut], data.len(), width).is_err(), "cut at {cut}");
    }
    // Trailing garbage.
    let mut long = stream.clone();
    long.push(0);
    assert_eq!(decode_stream(&long, data.len(), width), Err(DecodeError::TrailingBytes { extra: 1 }));
    // Header larger than the chunk's raw size.
    let mut big = stream.clone();
    big[..2].copy_from_slice(&(CHUNK_BYTES as u16 + 1).to_le_bytes());
    assert!(matches!(decode_stream(&big, data.len(), width), Err(DecodeError::HeaderTooLarge { chunk: 0, .. })));
    // A reserved tag in the first block of the first chunk.
    let mut bad_tag = stream.clone();
    bad_tag[2] = (bad_tag[2] & 0x1F) | (0b111 << 5);
    match decode_stream(&bad_tag, data.len(), width) {
        Err(DecodeError::InChunk { chunk: 0, block: 0, source }) => assert_eq!(*source, DecodeError::ReservedTag { tag: 7 }),
        other => panic!("expected a reserved-tag error, got {other:?}"),
    }
    // Header claims one byte more than the blocks use: the blocks end before the body does.
    let body0 = u16::from_le_bytes([stream[0], stream[1]]) as usize;
    let mut padded = stream[..2 + body0].to_vec();
    padded[..2].copy_from_slice(&(body0 as u16 + 1).to_le_bytes());
    padded.push(0);
    padded.extend_from_slice(&stream[2 + body0..]);
    assert!(matches!(decode_stream(&padded, data.len(), width), Err(DecodeError::SizeMismatch { chunk: 0, .. })));
}
