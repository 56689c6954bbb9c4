//! The container reader (FORMAT.md §12): one test per rule a reader must check, and crafted
//! containers whose claimed sizes are absurd (they must fail fast, without allocating them).

use engine::container::{ContainerError, Index, VERSION, VERSION_1, compress, decompress, read_index};
use engine::golden::{DecodeError, SymbolWidth, decode_stream, encode_stream};
use safetensors::Dtype;
use safetensors::tensor::TensorView;

/// A safetensors file with an f32 ReLU-like tensor, a bf16 ramp and an empty tensor.
fn sample_file() -> Vec<u8> {
    let a: Vec<u8> = (0..1500u32).flat_map(|i| if i % 3 == 0 { 0f32 } else { i as f32 * 0.25 }.to_le_bytes()).collect();
    let b: Vec<u8> = (0..2100u16).flat_map(|i| (0x3F80 + (i % 97)).to_le_bytes()).collect();
    let views = vec![
        ("act".to_string(), TensorView::new(Dtype::F32, vec![3, 500], &a).unwrap()),
        ("ramp".to_string(), TensorView::new(Dtype::BF16, vec![2100], &b).unwrap()),
        ("empty".to_string(), TensorView::new(Dtype::F32, vec![0, 4], &[]).unwrap()),
    ];
    let meta = Some([("source".to_string(), "test".to_string())].into_iter().collect());
    safetensors::serialize(views, &meta).unwrap()
}

/// A container split into its parts: index, stored safetensors header, streams.
struct Parts {
    index: Index,
    header: Vec<u8>,
    streams: Vec<u8>,
}

fn split(container: &[u8]) -> Parts {
    let (index, at) = read_index(container).unwrap();
    let end = at + index.source_header_bytes;
    Parts { header: container[at..end].to_vec(), streams: container[end..].to_vec(), index }
}

fn assemble(p: &Parts) -> Vec<u8> {
    assemble_version(p, VERSION)
}

fn assemble_version(p: &Parts, version: u32) -> Vec<u8> {
    let json = serde_json::to_vec(&p.index).unwrap();
    let mut out = b"PLANEZIP".to_vec();
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(json.len() as u64).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&p.header);
    out.extend_from_slice(&p.streams);
    out
}

/// A stored safetensors header with the given JSON (8-byte length + JSON).
fn st_header(json: &str) -> Vec<u8> {
    let mut h = (json.len() as u64).to_le_bytes().to_vec();
    h.extend_from_slice(json.as_bytes());
    h
}

fn good() -> Parts {
    split(&compress(&sample_file(), None).unwrap())
}

#[test]
fn a_valid_container_round_trips_byte_for_byte_with_metadata_and_an_empty_tensor() {
    let file = sample_file();
    let c = compress(&file, None).unwrap();
    assert_eq!(decompress(&c).unwrap(), file);
    let p = split(&c);
    // Index order = data-offset order (safetensors writes f32 before bf16; the empty tensor's
    // range [6000, 6000) sorts before the ramp's [6000, 10200)).
    let names: Vec<_> = p.index.tensors.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["act", "empty", "ramp"]);
    assert_eq!(p.index.tensors[0].symbol_bits, 32);
    assert_eq!(p.index.tensors[2].symbol_bits, 16);
    // Reassembling the parts unchanged gives the same container (the tests below edit one part).
    assert_eq!(assemble(&p), c);
}

#[test]
fn the_preamble_is_checked() {
    let c = compress(&sample_file(), None).unwrap();
    assert!(matches!(decompress(&c[..19]), Err(ContainerError::Truncated { part: "preamble", .. })));
    let mut bad = c.clone();
    bad[0] = b'Q';
    assert!(matches!(decompress(&bad), Err(ContainerError::BadMagic)));
    for v in [0u32, 3, 0x0100_0002] {
        let mut other = c.clone();
        other[8..12].copy_from_slice(&v.to_le_bytes());
        assert!(matches!(decompress(&other), Err(ContainerError::UnsupportedVersion(x)) if x == v));
    }
}

#[test]
fn version_1_containers_are_still_read_and_version_2_requires_checksums() {
    let file = sample_file();
    let mut p = good();
    assert!(p.index.tensors.iter().all(|t| t.raw_crc32.is_some()));
    // Version 1: the same index without checksums.
    let with_crc = p.index.clone();
    p.index.tensors.iter_mut().for_each(|t| t.raw_crc32 = None);
    assert_eq!(decompress(&assemble_version(&p, VERSION_1)).unwrap(), file);
    // A version-2 index without a checksum, and a version-1 index with one, are malformed.
    assert!(matches!(decompress(&assemble_version(&p, VERSION)), Err(ContainerError::BadIndex(m)) if m.contains("lacks raw_crc32")));
    p.index = with_crc;
    assert!(matches!(decompress(&assemble_version(&p, VERSION_1)), Err(ContainerError::BadIndex(m)) if m.contains("unknown in version 1")));
}

#[test]
fn a_wrong_checksum_is_reported_with_both_values() {
    let mut p = good();
    let crc = p.index.tensors[2].raw_crc32.unwrap();
    p.index.tensors[2].raw_crc32 = Some(crc ^ 1);
    match decompress(&assemble(&p)) {
        Err(ContainerError::ChecksumMismatch { tensor, expected, actual }) => {
            assert_eq!((tensor.as_str(), expected, actual), ("ramp", crc ^ 1, crc));
        }
        other => panic!("{other:?}"),
    }
}

/// With the checksum, no single flipped bit anywhere in the tensor streams gives a wrong file back
/// as good: each flip is a stream error, a checksum mismatch where the stream still parses, or
/// (rarely) another encoding of the same bytes — e.g. `00001` (DBP zero) turned into `00000` (all
/// ones) on a plane that is all ones either way — which decodes to the original file.
#[test]
fn every_single_bit_flip_in_the_streams_is_caught() {
    let file = sample_file();
    let p = good();
    let (mut structural, mut by_checksum, mut same) = (0, 0, 0);
    for bit in 0..p.streams.len() * 8 {
        let mut q = Parts { index: p.index.clone(), header: p.header.clone(), streams: p.streams.clone() };
        q.streams[bit / 8] ^= 0x80 >> (bit % 8);
        match decompress(&assemble(&q)) {
            Err(ContainerError::Stream { .. }) => structural += 1,
            Err(ContainerError::ChecksumMismatch { .. }) => by_checksum += 1,
            Ok(back) if back == file => same += 1,
            other => panic!("bit {bit}: {:?}", other.map(|_| "a different file")),
        }
    }
    assert!(same * 100 < p.streams.len() * 8, "{same} flips decode to the same file");
    // Both kinds occur: the structural checks alone would miss the second.
    assert!(structural > 0 && by_checksum > 0, "{structural} structural, {by_checksum} by checksum");
}

#[test]
fn an_absurd_index_length_is_truncation_not_an_allocation() {
    let mut c = compress(&sample_file(), None).unwrap();
    c[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    match decompress(&c) {
        Err(ContainerError::Truncated { part: "index", needed_bytes: u64::MAX, .. }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_index_is_strict_json() {
    let c = compress(&sample_file(), None).unwrap();
    let (_, at) = read_index(&c).unwrap();
    let json = String::from_utf8(c[20..at].to_vec()).unwrap();
    for edit in [json.replacen("\"tensors\"", "\"tensorz\"", 1), json.replacen("\"stream_bytes\"", "\"extra\":1,\"stream_bytes\"", 1), json.replacen("\"raw_bytes\":", "\"raw_bytes\":-", 1)] {
        let mut out = c[..12].to_vec();
        out.extend_from_slice(&(edit.len() as u64).to_le_bytes());
        out.extend_from_slice(edit.as_bytes());
        out.extend_from_slice(&c[at..]);
        assert!(matches!(decompress(&out), Err(ContainerError::BadIndex(_))), "{edit}");
    }
}

#[test]
fn an_absurd_source_header_length_is_truncation() {
    let mut p = good();
    p.index.source_header_bytes = usize::MAX;
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::Truncated { part: "safetensors header", .. })));
}

#[test]
fn an_absurd_raw_bytes_is_a_mismatch_with_the_stored_header() {
    let mut p = good();
    p.index.tensors[0].raw_bytes = usize::MAX / 2;
    match decompress(&assemble(&p)) {
        Err(ContainerError::IndexMismatch { tensor, field: "raw_bytes", .. }) => assert_eq!(tensor, "act"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_stream_decoder_rejects_an_absurd_raw_size_before_allocating() {
    let stream = encode_stream(&[1u8; 5000], SymbolWidth::W32);
    // 2^62 bytes would need 2^50 chunk headers: impossible in a stream of a few hundred bytes.
    assert!(stream.len() < 400, "{}", stream.len());
    for raw in [usize::MAX, 1 << 62, 1000 * 4096] {
        assert!(matches!(decode_stream(&stream, raw, SymbolWidth::W32), Err(DecodeError::StreamTruncated { .. })), "{raw}");
    }
    // A claim the headers could hold is decoded and fails where the stream runs out.
    assert!(decode_stream(&stream, 10 * 4096, SymbolWidth::W32).is_err());
}

#[test]
fn stream_lengths_must_fill_the_file_exactly() {
    let mut p = good();
    p.index.tensors[2].stream_bytes = usize::MAX;
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::Truncated { part: "tensor streams", .. })));
    let mut p = good();
    p.index.tensors[0].stream_bytes += 1;
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::Truncated { part: "tensor streams", .. })));
    let mut p = good();
    p.streams.push(0);
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::TrailingBytes { extra: 1 })));
    // Moving a byte from one stream to its neighbour keeps the total: the streams then fail to decode.
    let mut p = good();
    p.index.tensors[0].stream_bytes -= 1;
    p.index.tensors[2].stream_bytes += 1;
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::Stream { .. })));
}

#[test]
fn symbol_bits_must_be_16_or_32() {
    for bits in [0, 8, 24, 64] {
        let mut p = good();
        p.index.tensors[0].symbol_bits = bits;
        assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::BadSymbolBits { symbol_bits, .. }) if symbol_bits == bits));
    }
    // Either legal width decodes (w = 32 for a bf16 tensor is the ablation).
    let file = sample_file();
    assert_eq!(decompress(&compress(&file, Some(SymbolWidth::W32)).unwrap()).unwrap(), file);
}

#[test]
fn each_index_entry_matches_the_stored_header_by_name() {
    let mut p = good();
    p.index.tensors[2].dtype = "F16".into();
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::IndexMismatch { field: "dtype", .. })));
    let mut p = good();
    p.index.tensors[0].shape = vec![500, 3];
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::IndexMismatch { field: "shape", .. })));
    let mut p = good();
    p.index.tensors.swap(0, 2);
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::IndexMismatch { field: "position", .. })));
    let mut p = good();
    p.index.tensors[0].name = "other".into();
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::MissingTensor { missing_from: "stored header", .. })));
    let mut p = good();
    p.index.tensors.pop();
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::MissingTensor { missing_from: "index", .. })));
    let mut p = good();
    p.index.tensors[1].name = "act".into();
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::DuplicateName { place: "index", .. })));
}

/// Replaces the stored header with `json` (fixing `source_header_bytes`) and decompresses.
fn with_header(json: &str) -> Result<Vec<u8>, ContainerError> {
    let mut p = good();
    p.header = st_header(json);
    p.index.source_header_bytes = p.header.len();
    decompress(&assemble(&p))
}

const EMPTY: &str = r#""empty":{"dtype":"F32","shape":[0,4],"data_offsets":[6000,6000]}"#;
const ACT: &str = r#""act":{"dtype":"F32","shape":[3,500],"data_offsets":[0,6000]}"#;
const RAMP: &str = r#""ramp":{"dtype":"BF16","shape":[2100],"data_offsets":[6000,10200]}"#;

#[test]
fn the_stored_header_is_checked() {
    // The rebuilt header itself is fine (no __metadata__, other key order).
    let file = with_header(&format!("{{{RAMP},{ACT},{EMPTY}}}")).unwrap();
    assert_eq!(safetensors::SafeTensors::deserialize(&file).unwrap().len(), 3);
    let cases = [
        // an end below its start (the old reader's underflow)
        format!(r#"{{{EMPTY},"act":{{"dtype":"F32","shape":[3,500],"data_offsets":[6000,0]}},{RAMP}}}"#),
        // a gap between tensors
        format!(r#"{{{EMPTY},"act":{{"dtype":"F32","shape":[3,500],"data_offsets":[4,6004]}},{RAMP}}}"#),
        // two nonempty tensors sharing an offset
        format!(r#"{{{EMPTY},{ACT},"ramp":{{"dtype":"BF16","shape":[3000],"data_offsets":[0,6000]}}}}"#),
        // shape × dtype size ≠ byte range, and an overflowing shape
        format!(r#"{{{EMPTY},"act":{{"dtype":"F32","shape":[3,501],"data_offsets":[0,6000]}},{RAMP}}}"#),
        format!(r#"{{{EMPTY},"act":{{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,6000]}},{RAMP}}}"#),
        // unknown dtype, unknown field, non-string metadata
        format!(r#"{{{EMPTY},"act":{{"dtype":"F24","shape":[3,500],"data_offsets":[0,6000]}},{RAMP}}}"#),
        format!(r#"{{{EMPTY},"act":{{"dtype":"F32","shape":[3,500],"data_offsets":[0,6000],"x":1}},{RAMP}}}"#),
        format!(r#"{{"__metadata__":{{"a":1}},{EMPTY},{ACT},{RAMP}}}"#),
        "[1,2]".to_string(),
    ];
    for json in &cases {
        assert!(matches!(with_header(json), Err(ContainerError::BadStoredHeader(_))), "{json}");
    }
    assert!(matches!(
        with_header(&format!("{{{EMPTY},{ACT},{ACT},{RAMP}}}")),
        Err(ContainerError::DuplicateName { place: "stored header", .. })
    ));
    // The 8-byte length field must span exactly the stored header.
    let mut p = good();
    p.header[0] ^= 1;
    assert!(matches!(decompress(&assemble(&p)), Err(ContainerError::BadStoredHeader(_))));
}

#[test]
fn empty_tensors_may_share_an_offset() {
    let a = [7u8; 8];
    let views = vec![
        ("e1".to_string(), TensorView::new(Dtype::F32, vec![0], &[]).unwrap()),
        ("e2".to_string(), TensorView::new(Dtype::BF16, vec![2, 0], &[]).unwrap()),
        ("x".to_string(), TensorView::new(Dtype::U8, vec![8], &a).unwrap()),
        ("e3".to_string(), TensorView::new(Dtype::I64, vec![0], &[]).unwrap()),
    ];
    let file = safetensors::serialize(views, &None).unwrap();
    let c = compress(&file, None).unwrap();
    assert_eq!(decompress(&c).unwrap(), file);
    // The index order is fixed: offsets, then name among equal ranges.
    let names: Vec<_> = split(&c).index.tensors.iter().map(|t| t.name.clone()).collect();
    assert_eq!(names, ["e1", "e2", "e3", "x"]);
}

#[test]
fn a_corrupt_stream_names_the_tensor_chunk_and_block() {
    let mut p = good();
    // The second tensor's stream starts after the first's; flip its first block's tag to 111.
    let at = p.index.tensors[..2].iter().map(|t| t.stream_bytes).sum::<usize>() + 2;
    p.streams[at] |= 0xE0;
    match decompress(&assemble(&p)) {
        Err(ContainerError::Stream { tensor, source: DecodeError::InChunk { chunk: 0, block: 0, source } }) => {
            assert_eq!(tensor, "ramp");
            assert_eq!(*source, DecodeError::ReservedTag { tag: 7 });
        }
        other => panic!("{other:?}"),
    }
    let msg = decompress(&assemble(&p)).unwrap_err().to_string();
    assert!(msg.contains("\"ramp\"") && msg.contains("chunk 0, block 0"), "{msg}");
}
