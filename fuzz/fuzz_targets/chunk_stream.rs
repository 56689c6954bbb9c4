//! The chunk-stream decoders never panic and never return a tensor of the wrong length, whatever
//! the stream and whatever raw size is claimed (FORMAT.md §7–9), and the fast decoders
//! (`engine::fast`, SWAR paths; sequential and chunk-parallel) return exactly golden's `Result`
//! (the same bytes, or the same typed error) on every input. Input: byte 0 = width (bit 0),
//! bytes 1–4 = claimed raw bytes (u32 LE, any value: absurd claims must fail fast), the rest =
//! the stream.
#![no_main]

use engine::golden::chunk::chunk_offsets;
use engine::golden::{SymbolWidth, decode_stream};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [head, a, b, c, d, stream @ ..] = data else { return };
    let width = if head & 1 == 0 { SymbolWidth::W16 } else { SymbolWidth::W32 };
    let raw_bytes = u32::from_le_bytes([*a, *b, *c, *d]) as usize;
    let _ = chunk_offsets(stream, raw_bytes);
    let golden = decode_stream(stream, raw_bytes, width);
    if let Ok(tensor) = &golden {
        assert_eq!(tensor.len(), raw_bytes);
    }
    assert_eq!(engine::fast::decode_stream(stream, raw_bytes, width), golden, "fast::decode_stream");
    assert_eq!(engine::fast::par_decode_stream(stream, raw_bytes, width), golden, "fast::par_decode_stream");
});
