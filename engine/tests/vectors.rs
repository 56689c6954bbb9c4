//! The shared test vectors and FORMAT.md's worked examples against the golden codec.

use engine::golden::block::{decode_block, plane_cases};
use engine::golden::block::planes::PlaneCase;
use engine::golden::{SymbolWidth, Tag, block_sizes, decode_stream, encode_stream};
use engine::vectors::{CORNER_BLOCKS, Vector, corner_blocks, parse_file, unhex};
use std::collections::HashSet;

fn repo_file(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn vectors(width: SymbolWidth) -> Vec<Vector> {
    parse_file(&repo_file(&format!("engine/tests/vectors/w{}.txt", width.bits()))).unwrap()
}

#[test]
fn every_stored_vector_matches_the_golden_encoder_and_decodes() {
    for width in [SymbolWidth::W16, SymbolWidth::W32] {
        let vs = vectors(width);
        assert!(vs.len() >= 1800, "{width:?}: only {} vectors", vs.len());
        for (i, v) in vs.iter().enumerate() {
            assert_eq!(v.width, width);
            assert_eq!(&Vector::of(v.input, width), v, "{width:?} vector {i}");
            assert_eq!(block_sizes(&v.input, width), v.sizes, "size model, vector {i}");
            assert_eq!(decode_block(&v.encoding, width).unwrap(), v.input, "decode, vector {i}");
        }
    }
}

#[test]
fn stored_vectors_are_the_generated_corner_set() {
    for width in [SymbolWidth::W16, SymbolWidth::W32] {
        let stored: Vec<_> = vectors(width).into_iter().map(|v| v.input).collect();
        let generated = corner_blocks(width);
        assert_eq!(generated.len(), CORNER_BLOCKS);
        assert_eq!(&stored[stored.len() - generated.len()..], &generated[..], "rerun `cargo run -p engine --example gen_vectors`");
    }
}

#[test]
fn vectors_cover_every_tag_and_every_prefix_code_case_in_each_plane_code() {
    for width in [SymbolWidth::W16, SymbolWidth::W32] {
        let vs = vectors(width);
        let tags: HashSet<Tag> = vs.iter().map(|v| v.encoding.tag).collect();
        assert_eq!(tags.len(), 5, "{width:?}: chosen tags {tags:?}");
        for code in [Tag::Dbx, Tag::Bx, Tag::Zbx] {
            let cases: HashSet<PlaneCase> = vs.iter().flat_map(|v| plane_cases(&v.input, width, code)).collect();
            for case in PlaneCase::ALL {
                assert!(cases.contains(&case), "{width:?} {code:?}: no vector codes a plane as {case:?}");
            }
        }
    }
}

/// FORMAT.md's worked examples carry machine-readable lines whose encodings were derived by hand
/// in the text; the golden encoder must reproduce them, and they head the vector files.
#[test]
fn format_md_worked_examples_match_the_encoder() {
    let doc = repo_file("docs/FORMAT.md");
    let examples: Vec<&str> = doc.lines().filter_map(|l| l.strip_prefix("vector: ")).collect();
    assert!(examples.len() >= 4, "FORMAT.md lost its worked examples");
    for line in &examples {
        let v = Vector::parse(line).unwrap();
        assert_eq!(&Vector::of(v.input, v.width).to_line(), line, "FORMAT.md example disagrees with the encoder");
        let file = repo_file(&format!("engine/tests/vectors/w{}.txt", v.width.bits()));
        assert!(file.lines().any(|l| l == *line), "example missing from the vector file");
    }
    let streams: Vec<&str> = doc.lines().filter_map(|l| l.strip_prefix("stream-vector: ")).collect();
    assert!(!streams.is_empty(), "FORMAT.md lost its stream example");
    for line in streams {
        let f: Vec<&str> = line.split_whitespace().collect();
        let width = SymbolWidth::from_bits(u32::from_str_radix(f[0], 16).unwrap()).unwrap();
        let (tensor, stream) = (unhex(f[1]).unwrap(), unhex(f[2]).unwrap());
        assert_eq!(encode_stream(&tensor, width), stream, "FORMAT.md stream example disagrees with the encoder");
        assert_eq!(decode_stream(&stream, tensor.len(), width).unwrap(), tensor);
    }
}
