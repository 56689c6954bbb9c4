//! Encode → decode returns the input, for arbitrary bytes, every element type and both symbol
//! widths: the chunk stream directly, and the container of a safetensors file holding them; the
//! fast encoders (`engine::fast`, sequential and chunk-parallel) write golden's bytes.
//! Byte 0: element type (low 4 bits, 15 safetensors dtypes) and whether to force the other width
//! (bit 4); the rest: the tensor's bytes (cut to whole elements).
#![no_main]

use engine::golden::{SymbolWidth, decode_stream, encode_stream};
use libfuzzer_sys::fuzz_target;
use safetensors::Dtype;
use safetensors::tensor::TensorView;

const DTYPES: [Dtype; 15] = [
    Dtype::BOOL, Dtype::U8, Dtype::I8, Dtype::F8_E5M2, Dtype::F8_E4M3, Dtype::I16, Dtype::U16, Dtype::F16,
    Dtype::BF16, Dtype::I32, Dtype::U32, Dtype::F32, Dtype::F64, Dtype::I64, Dtype::U64,
];

fuzz_target!(|data: &[u8]| {
    let [head, bytes @ ..] = data else { return };
    let dtype = DTYPES[usize::from(head & 15) % DTYPES.len()];
    let natural = SymbolWidth::for_dtype(&format!("{dtype:?}"));
    let forced = head & 16 != 0;
    let width = match (natural, forced) {
        (w, false) => w,
        (SymbolWidth::W16, true) => SymbolWidth::W32,
        (SymbolWidth::W32, true) => SymbolWidth::W16,
    };
    let bytes = &bytes[..bytes.len() / dtype.size() * dtype.size()];
    let stream = encode_stream(bytes, width);
    assert_eq!(engine::fast::encode_stream(bytes, width), stream, "fast::encode_stream");
    assert_eq!(engine::fast::par_encode_stream(bytes, width), stream, "fast::par_encode_stream");
    assert_eq!(decode_stream(&stream, bytes.len(), width).expect("own stream decodes"), bytes);
    let view = TensorView::new(dtype, vec![bytes.len() / dtype.size()], bytes).expect("whole elements");
    let file = safetensors::serialize([("t".to_string(), view)], &None).expect("serializes");
    let packed = engine::container::compress(&file, forced.then_some(width)).expect("own file compresses");
    assert_eq!(engine::container::decompress(&packed).expect("own container decodes"), file);
});
