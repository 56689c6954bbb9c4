//! The fast paths (`engine::fast`) against the golden scalar spec: the size model block by block,
//! the encoder bit for bit, the decoder byte for byte and error for error, sequential and
//! parallel, on a million structured blocks per width, every distinct block of `data/`, whole
//! tensors of `data/`, proptests, and corrupt streams.

#[path = "support/real_blocks.rs"]
mod real_blocks;

use engine::fast;
use engine::golden::{self, BLOCK_BYTES, CHUNK_BLOCKS, CHUNK_BYTES, SymbolWidth, Tag};
use engine::synth::activation_block;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;

const WIDTHS: [SymbolWidth; 2] = [SymbolWidth::W16, SymbolWidth::W32];

/// Checks a run of whole blocks: sizes per block and the stream bit for bit on every path this
/// CPU has, its decoding.
fn check_blocks(data: &[u8], width: SymbolWidth) {
    let want: Vec<_> = data.chunks(BLOCK_BYTES).map(|block| {
        let mut padded = [0u8; BLOCK_BYTES];
        padded[..block.len()].copy_from_slice(block);
        golden::block_sizes(&padded, width)
    }).collect();
    for path in fast::Path::available() {
        let fast_sizes = fast::blocks_sizes_with(path, data, width);
        assert_eq!(fast_sizes.len(), want.len());
        for (i, (got, want)) in fast_sizes.iter().zip(&want).enumerate() {
            assert_eq!(got, want, "{path:?} {width:?} block {i}: {:02x?}", &data[i * BLOCK_BYTES..(data.len()).min((i + 1) * BLOCK_BYTES)]);
        }
    }
    let stream = golden::encode_stream(data, width);
    assert_eq!(fast::encode_stream(data, width), stream, "{width:?} stream bits");
    for path in fast::Path::available() {
        assert_eq!(fast::encode_stream_with(path, data, width), stream, "{path:?} {width:?} stream bits");
    }
    assert_eq!(fast::decode_stream(&stream, data.len(), width).as_deref(), Ok(data), "{width:?} decoded bytes");
    for path in fast::Path::available() {
        // The fast decoder itself, not its fallback to golden, must decode a valid stream.
        assert_eq!(fast::decode_fast_only_with(path, &stream, data.len(), width).as_deref(), Some(data), "{path:?} {width:?} decoded bytes");
    }
}

/// The paths `PLANEZIP_REQUIRE_PATHS` (comma-separated names, e.g. `avx2,avx512`) names must all
/// be available, so that a run on a machine known to have them cannot skip one silently; the
/// paths found are printed (`--nocapture`).
#[test]
fn required_simd_paths_are_available() {
    let found = fast::Path::available();
    println!("fast paths on this CPU: {:?}", found.iter().map(|p| p.name()).collect::<Vec<_>>());
    assert_eq!(found.first(), Some(&fast::Path::Portable));
    assert_eq!(fast::Path::detect(), *found.last().unwrap());
    for name in std::env::var("PLANEZIP_REQUIRE_PATHS").unwrap_or_default().split(',').filter(|n| !n.is_empty()) {
        let path = fast::Path::ALL.into_iter().find(|p| p.name() == name).unwrap_or_else(|| panic!("unknown path {name}"));
        assert!(found.contains(&path), "PLANEZIP_REQUIRE_PATHS names {name}, which this CPU lacks");
    }
}

#[test]
fn a_million_structured_blocks_per_width_match_golden() {
    for width in WIDTHS {
        let mut rng = ChaCha8Rng::seed_from_u64(0xFA57_0000 + width.bits() as u64);
        let mut by_tag = [0usize; 5];
        // 1,000,000 blocks in groups of 8 chunks, so the stream checks see whole chunks.
        let group_blocks = 8 * CHUNK_BLOCKS;
        let mut data = vec![0u8; group_blocks * BLOCK_BYTES];
        for _ in 0..1_000_000 / group_blocks + 1 {
            for block in data.chunks_exact_mut(BLOCK_BYTES) {
                block.copy_from_slice(&activation_block(&mut rng, width));
            }
            for s in fast::blocks_sizes(&data, width) {
                by_tag[s.choice().0 as usize] += 1;
            }
            check_blocks(&data, width);
        }
        // The generator must exercise every choice, or this test proves less than it claims.
        assert!(by_tag.iter().all(|&n| n > 1000), "{width:?}: chosen tags {by_tag:?}");
    }
}

/// The safetensors files of `data/` (every iteration of every model).
fn data_files() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("data/ holds the captured samples")
        .flat_map(|model| std::fs::read_dir(model.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "safetensors"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "too few dumps in data/: {files:?}");
    files
}

#[test]
fn every_distinct_block_of_data_matches_golden() {
    let files = data_files();
    let paths: Vec<&std::path::Path> = files.iter().map(|p| p.as_path()).collect();
    for width in WIDTHS {
        let real = real_blocks::distinct_blocks(&paths, width, usize::MAX, usize::MAX);
        assert!(real.blocks.len() > 50_000, "{width:?}: only {} distinct blocks", real.blocks.len());
        let data: Vec<u8> = real.blocks.iter().flatten().copied().collect();
        check_blocks(&data, width);
        let tags: std::collections::HashSet<Tag> = fast::blocks_sizes(&data, width).iter().map(|s| s.choice().0).collect();
        // Real bf16 blocks never need raw; every code must occur.
        assert!(Tag::CODES.iter().all(|t| tags.contains(t)), "{width:?}: real data chose only {tags:?}");
    }
}

#[test]
fn whole_tensors_of_data_match_golden_sequential_and_parallel() {
    for file in data_files().iter().filter(|p| p.ends_with("iter1.safetensors")) {
        let bytes = std::fs::read(file).unwrap();
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        for (name, view) in st.tensors() {
            let width = SymbolWidth::for_dtype(&format!("{:?}", view.dtype()));
            let data = view.data();
            let stream = golden::encode_stream(data, width);
            assert_eq!(fast::par_encode_stream(data, width), stream, "{}: {name}", file.display());
            assert_eq!(fast::par_decode_stream(&stream, data.len(), width).as_deref(), Ok(data), "{}: {name}", file.display());
            let sizes: Vec<_> = data.chunks(BLOCK_BYTES).map(|b| {
                let mut p = [0u8; BLOCK_BYTES];
                p[..b.len()].copy_from_slice(b);
                golden::block_sizes(&p, width)
            }).collect();
            assert_eq!(fast::par_blocks_sizes(data, width), sizes, "{}: {name}", file.display());
        }
    }
}

fn structured(seed: u64, len: usize, width: SymbolWidth) -> Vec<u8> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..len.div_ceil(BLOCK_BYTES)).flat_map(|_| activation_block(&mut rng, width)).take(len).collect()
}

fn width_of(w16: bool) -> SymbolWidth {
    if w16 { SymbolWidth::W16 } else { SymbolWidth::W32 }
}

proptest! {
    #[test]
    fn arbitrary_blocks_size_like_golden(bytes in prop::collection::vec(any::<u8>(), BLOCK_BYTES), w16 in any::<bool>()) {
        let block: [u8; BLOCK_BYTES] = bytes.try_into().unwrap();
        let width = width_of(w16);
        prop_assert_eq!(fast::block_sizes(&block, width), golden::block_sizes(&block, width));
        check_blocks(&block, width);
        // A batch of eight copies: every lane of the AVX2 / AVX-512 batches.
        check_blocks(&block.repeat(8), width);
    }

    #[test]
    fn sparse_blocks_size_like_golden(seed in any::<u64>(), w16 in any::<bool>(), zeros in 0u32..=100) {
        // Random symbols with a given share of zeros: ZBX's compacted planes of every length.
        let width = width_of(w16);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut block = [0u8; BLOCK_BYTES];
        let step = width.bits() as usize / 8;
        for sym in block.chunks_exact_mut(step) {
            if rng.gen_range(0..100) >= zeros {
                let v: u32 = if rng.r#gen() { rng.r#gen() } else { rng.gen_range(0..4) << rng.gen_range(0..width.bits()) };
                sym.copy_from_slice(&v.to_le_bytes()[..step]);
            }
        }
        prop_assert_eq!(fast::block_sizes(&block, width), golden::block_sizes(&block, width));
        check_blocks(&block, width);
    }

    #[test]
    fn batches_of_unrelated_blocks_size_like_golden(seed in any::<u64>(), w16 in any::<bool>(), blocks in 1usize..40) {
        // Independent random, sparse and structured blocks side by side: a lane of a batch must
        // not see its neighbours (and 1–39 blocks: full batches and every remainder).
        let width = width_of(w16);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut data = Vec::new();
        for _ in 0..blocks {
            let kind = rng.gen_range(0..3);
            let mut block = activation_block(&mut rng, width);
            match kind {
                0 => rng.fill(&mut block[..]),
                1 => block.iter_mut().for_each(|b| if rng.gen_range(0..4) != 0 { *b = 0 }),
                _ => {}
            }
            data.extend_from_slice(&block);
        }
        check_blocks(&data, width);
    }

    #[test]
    fn streams_of_any_length_match_golden(seed in any::<u64>(), len in 0usize..3 * CHUNK_BYTES + 300, w16 in any::<bool>()) {
        let width = width_of(w16);
        let data = structured(seed, len, width);
        let stream = golden::encode_stream(&data, width);
        prop_assert_eq!(&fast::encode_stream(&data, width), &stream);
        prop_assert_eq!(&fast::par_encode_stream(&data, width), &stream);
        // Into a reused buffer longer, then shorter, than the stream.
        let mut reused = vec![0xC3u8; stream.len() + 5];
        fast::par_encode_stream_into(&data, width, &mut reused);
        prop_assert_eq!(&reused, &stream);
        reused.truncate(stream.len() / 2);
        fast::par_encode_stream_into(&data, width, &mut reused);
        prop_assert_eq!(&reused, &stream);
        prop_assert_eq!(fast::decode_stream(&stream, len, width), Ok(data.clone()));
        prop_assert_eq!(fast::par_decode_stream(&stream, len, width), Ok(data.clone()));
        // Into a reused buffer holding another tensor's bytes: every byte is overwritten.
        let mut dst = vec![0xA5u8; len];
        prop_assert_eq!(fast::par_decode_into(&stream, &mut dst, width), Ok(()));
        prop_assert_eq!(&dst, &data);
        for path in fast::Path::available() {
            prop_assert_eq!(fast::decode_fast_only_with(path, &stream, len, width), Some(data.clone()));
            let mut dst = vec![0x5Au8; len];
            prop_assert_eq!(fast::decode_stream_into_with(path, &stream, &mut dst, width), Ok(()));
            prop_assert_eq!(&dst, &data);
            let mut encoded = vec![0xEE; 3];
            encoded.clear();
            fast::encode_stream_into_with(path, &data, width, &mut encoded);
            prop_assert_eq!(&encoded, &stream);
        }
    }

    #[test]
    fn corrupt_streams_give_golden_results(seed in any::<u64>(), flips in prop::collection::vec((any::<usize>(), 0u8..8), 1..4), cut in any::<usize>(), extra in 0usize..3) {
        let width = width_of(seed % 2 == 0);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let len = rng.gen_range(1..2 * CHUNK_BYTES);
        let data = structured(seed, len, width);
        let mut stream = golden::encode_stream(&data, width);
        for (at, bit) in flips {
            let i = at % stream.len();
            stream[i] ^= 1 << bit;
        }
        stream.extend(std::iter::repeat_n(0, extra));
        let cut = cut % (stream.len() + 1);
        let want = golden::decode_stream(&stream[..cut], len, width);
        prop_assert_eq!(&fast::decode_stream(&stream[..cut], len, width), &want);
        prop_assert_eq!(&fast::par_decode_stream(&stream[..cut], len, width), &want);
        let mut dst = vec![0u8; len];
        prop_assert_eq!(fast::par_decode_into(&stream[..cut], &mut dst, width), want.clone().map(|_| ()));
        for path in fast::Path::available() {
            prop_assert_eq!(&fast::decode_stream_with(path, &stream[..cut], len, width), &want);
            prop_assert_eq!(fast::decode_stream_into_with(path, &stream[..cut], &mut dst, width), want.clone().map(|_| ()));
            // The fast decoder faults exactly where golden errs.
            prop_assert_eq!(fast::decode_fast_only_with(path, &stream[..cut], len, width), want.clone().ok());
        }
    }
}

#[test]
fn every_truncation_and_typed_error_matches_golden() {
    for width in WIDTHS {
        // ReLU-like data over three chunks: every cut, every single bit flip of the first chunk.
        let data: Vec<u8> = structured(11, 2 * CHUNK_BYTES + 700, width);
        let stream = golden::encode_stream(&data, width);
        for cut in 0..stream.len() {
            let want = golden::decode_stream(&stream[..cut], data.len(), width);
            assert!(want.is_err());
            assert_eq!(fast::decode_stream(&stream[..cut], data.len(), width), want, "cut at {cut}");
        }
        let first = 2 + u16::from_le_bytes([stream[0], stream[1]]) as usize;
        for bit in 0..first * 8 {
            let mut bad = stream.clone();
            bad[bit / 8] ^= 0x80 >> (bit % 8);
            let want = golden::decode_stream(&bad, data.len(), width);
            assert_eq!(fast::decode_stream(&bad, data.len(), width), want, "flip of bit {bit}");
            for path in fast::Path::available() {
                assert_eq!(fast::decode_fast_only_with(path, &bad, data.len(), width), want.clone().ok(), "{path:?} flip of bit {bit}");
            }
            assert_eq!(fast::par_decode_stream(&bad, data.len(), width), want, "flip of bit {bit}");
        }
        // A claimed size far beyond what the stream can hold is refused, not allocated.
        assert!(fast::decode_stream(&stream, usize::MAX / 2, width).is_err());
        assert!(fast::par_decode_stream(&stream, usize::MAX / 2, width).is_err());
    }
}

/// Fuzz finding (`fuzz/fuzz_targets/chunk_stream.rs`, 2026-12-01): an empty tensor (raw_bytes
/// = 0) with a 70-byte all-zero stream. Golden says `TrailingBytes { extra: 70 }`;
/// `par_decode_stream` had no chunk group to check the stream's end and returned `Ok([])`.
/// The literal input: byte 0 = width (0: w = 16), bytes 1–4 = raw bytes (0, LE), 70 zero bytes.
#[test]
fn fuzz_regression_empty_tensor_with_trailing_bytes_is_refused_by_par_decode() {
    let input = [0u8; 75];
    let width = if input[0] & 1 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
    let raw_bytes = u32::from_le_bytes([input[1], input[2], input[3], input[4]]) as usize;
    let stream = &input[5..];
    let want = Err(golden::DecodeError::TrailingBytes { extra: 70 });
    assert_eq!(golden::decode_stream(stream, raw_bytes, width), want);
    assert_eq!(fast::decode_stream(stream, raw_bytes, width), want);
    assert_eq!(fast::par_decode_stream(stream, raw_bytes, width), want);
    // The empty stream of an empty tensor still decodes, on every path.
    for width in WIDTHS {
        assert_eq!(fast::par_decode_stream(&[], 0, width), Ok(Vec::new()));
        assert_eq!(fast::decode_stream(&[], 0, width), Ok(Vec::new()));
    }
}
