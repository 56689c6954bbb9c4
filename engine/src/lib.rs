//! PlaneZip engine model: the golden codec and (later) the synthesizable lanes beside it.
//!
//! * [`golden`] is the **executable specification** of `docs/FORMAT.md`: the four block codes
//!   (ZVC, DBX, BX, ZBX) plus raw, the per-block choice with its 3-bit tag, the 4 KB chunk stream,
//!   a bit-exact encoder and decoder, and a fast [`golden::size`] model that counts bits without
//!   writing them. Every other part of the project (HDL lanes, harness, planner ratios) checks
//!   against it.
//! * [`container`] is the file format of `sim-harness compress`: a safetensors file whose tensor
//!   bytes are replaced by PlaneZip chunk streams.
//! * [`tensor_files`] reads the tensors users give (`.safetensors`, `.npy`), piece by piece.
//! * [`hw`] (feature `hw`, on by default) is the synthesizable hardware in rust-hdl. The codec
//!   alone (`default-features = false`) builds without rust-hdl, as the fuzz crate does.
//!
//! Typical use:
//! ```
//! use engine::golden::{SymbolWidth, encode_stream, decode_stream};
//! let tensor: Vec<u8> = (0..1000u32).flat_map(|i| (i as f32 * 0.5).to_le_bytes()).collect();
//! let stream = encode_stream(&tensor, SymbolWidth::W32);
//! assert!(stream.len() < tensor.len());
//! assert_eq!(decode_stream(&stream, tensor.len(), SymbolWidth::W32).unwrap(), tensor);
//! ```
// `unsafe` only to call the AVX2 / AVX-512 builds of `fast` after run-time feature detection
// (`fast::size`, the AVX-512 kernels of `fast::x86`) and to map a tensor file
// (`tensor_files::open`), each `#[allow]`ed with its safety argument.
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod container;
pub mod fast;
pub mod golden;
#[cfg(feature = "hw")]
pub mod hw;
pub mod synth;
pub mod tensor_files;
pub mod vectors;
