//! The container file of `sim-harness compress` / `decompress` (FORMAT.md §12): a safetensors
//! file whose tensor bytes are replaced by PlaneZip chunk streams. The original safetensors header
//! is kept verbatim, so decompression returns a byte-identical file.

use crate::fast::{par_decode_stream as decode_stream, par_encode_stream as encode_stream};
use crate::golden::{DecodeError, SymbolWidth};
use safetensors::SafeTensors;
use serde::{Deserialize, Serialize};

/// Magic bytes at offset 0.
pub const MAGIC: &[u8; 8] = b"PLANEZIP";
/// Container version this code writes and reads.
pub const VERSION: u32 = 1;
/// Bytes before the index: magic, version, index length.
const PREAMBLE_BYTES: usize = 8 + 4 + 8;

/// One tensor's entry in the container index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorEntry {
    /// Tensor name as in the safetensors header.
    pub name: String,
    /// safetensors dtype name (`"F32"`, `"BF16"`, …).
    pub dtype: String,
    /// Tensor shape.
    pub shape: Vec<usize>,
    /// Symbol width (16 or 32) the stream was coded with.
    pub symbol_bits: u32,
    /// Uncompressed bytes of the tensor.
    pub raw_bytes: usize,
    /// Bytes of its chunk stream.
    pub stream_bytes: usize,
}

/// The container index (JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Index {
    /// Length of the verbatim safetensors header that follows the index.
    pub source_header_bytes: usize,
    /// Tensors in data-offset order.
    pub tensors: Vec<TensorEntry>,
}

/// Why a file could not be compressed or decompressed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContainerError {
    /// The input of `compress` is not a valid safetensors file.
    #[error("not a valid safetensors file: {0}")]
    NotSafetensors(String),
    /// The input of `decompress` does not start with the container magic.
    #[error("not a PlaneZip container (magic bytes missing)")]
    BadMagic,
    /// A container version this code does not read.
    #[error("container version {0} is not supported (this build reads version {VERSION})")]
    UnsupportedVersion(u32),
    /// The file ends before the part named.
    #[error("truncated container: {0}")]
    Truncated(&'static str),
    /// The index is not valid JSON of the expected shape, or disagrees with the header.
    #[error("bad container index: {0}")]
    BadIndex(String),
    /// A tensor's chunk stream is malformed.
    #[error("tensor {tensor:?}: {source}")]
    Stream {
        /// Tensor name.
        tensor: String,
        /// The decoder's error.
        #[source]
        source: DecodeError,
    },
}

/// Compresses a safetensors file. Each tensor is coded with the symbol width of its dtype, or
/// with `symbol_bits` for every tensor when given (the 32-bit-symbols ablation).
pub fn compress(file: &[u8], symbol_bits: Option<SymbolWidth>) -> Result<Vec<u8>, ContainerError> {
    let (header_len, metadata) = SafeTensors::read_metadata(file).map_err(|e| ContainerError::NotSafetensors(format!("{e:?}")))?;
    let data_start = 8 + header_len;
    let mut infos: Vec<_> = metadata.tensors().into_iter().collect();
    infos.sort_by_key(|(_, info)| info.data_offsets);
    let mut index = Index { source_header_bytes: data_start, tensors: Vec::with_capacity(infos.len()) };
    let mut streams = Vec::with_capacity(infos.len());
    for (name, info) in infos {
        let dtype = format!("{:?}", info.dtype);
        let width = symbol_bits.unwrap_or(SymbolWidth::for_dtype(&dtype));
        let (a, b) = info.data_offsets;
        let stream = encode_stream(&file[data_start + a..data_start + b], width);
        index.tensors.push(TensorEntry { name, dtype, shape: info.shape.clone(), symbol_bits: width.bits(), raw_bytes: b - a, stream_bytes: stream.len() });
        streams.push(stream);
    }
    let index_json = serde_json::to_vec(&index).expect("index serializes");
    let mut out = Vec::with_capacity(PREAMBLE_BYTES + index_json.len() + data_start + streams.iter().map(Vec::len).sum::<usize>());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(index_json.len() as u64).to_le_bytes());
    out.extend_from_slice(&index_json);
    out.extend_from_slice(&file[..data_start]);
    for s in streams {
        out.extend_from_slice(&s);
    }
    Ok(out)
}

/// Reads a container's index without decoding any stream.
pub fn read_index(container: &[u8]) -> Result<(Index, usize), ContainerError> {
    let pre = container.get(..PREAMBLE_BYTES).ok_or(ContainerError::Truncated("preamble"))?;
    if &pre[..8] != MAGIC {
        return Err(ContainerError::BadMagic);
    }
    let version = u32::from_le_bytes(pre[8..12].try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(ContainerError::UnsupportedVersion(version));
    }
    let index_len = usize::try_from(u64::from_le_bytes(pre[12..20].try_into().expect("8 bytes"))).map_err(|_| ContainerError::Truncated("index"))?;
    let index_end = PREAMBLE_BYTES.checked_add(index_len).ok_or(ContainerError::Truncated("index"))?;
    let json = container.get(PREAMBLE_BYTES..index_end).ok_or(ContainerError::Truncated("index"))?;
    let index: Index = serde_json::from_slice(json).map_err(|e| ContainerError::BadIndex(e.to_string()))?;
    Ok((index, index_end))
}

/// The tensors a stored safetensors header describes: `((start, end), name)` sorted by offset.
/// (`safetensors` itself only parses a header together with its data.)
fn header_tensors(header: &[u8]) -> Result<Vec<((usize, usize), String)>, ContainerError> {
    #[derive(Deserialize)]
    struct Entry {
        data_offsets: (usize, usize),
    }
    let bad = |m: &str| ContainerError::BadIndex(format!("stored safetensors header: {m}"));
    let len = u64::from_le_bytes(header.get(..8).ok_or_else(|| bad("shorter than 8 bytes"))?.try_into().expect("8 bytes"));
    if usize::try_from(len).ok().and_then(|l| l.checked_add(8)) != Some(header.len()) {
        return Err(bad("its length field disagrees with the index"));
    }
    let map: std::collections::BTreeMap<String, serde_json::Value> = serde_json::from_slice(&header[8..]).map_err(|e| bad(&e.to_string()))?;
    let mut out = Vec::with_capacity(map.len());
    for (name, value) in map.into_iter().filter(|(k, _)| k != "__metadata__") {
        let entry: Entry = serde_json::from_value(value).map_err(|e| bad(&format!("tensor {name:?}: {e}")))?;
        out.push((entry.data_offsets, name));
    }
    out.sort();
    Ok(out)
}

/// Decompresses a container into the original safetensors file, byte for byte.
pub fn decompress(container: &[u8]) -> Result<Vec<u8>, ContainerError> {
    let (index, mut offset) = read_index(container)?;
    let header_end = offset.checked_add(index.source_header_bytes).ok_or(ContainerError::Truncated("safetensors header"))?;
    let header = container.get(offset..header_end).ok_or(ContainerError::Truncated("safetensors header"))?;
    offset = header_end;
    // The stored header must describe exactly the tensors of the index.
    let expected = header_tensors(header)?;
    if expected.len() != index.tensors.len() {
        return Err(ContainerError::BadIndex(format!("header lists {} tensors, index {}", expected.len(), index.tensors.len())));
    }
    let mut out = Vec::with_capacity(header.len() + index.tensors.iter().map(|t| t.raw_bytes).sum::<usize>());
    out.extend_from_slice(header);
    for (entry, ((a, b), name)) in index.tensors.iter().zip(expected) {
        if entry.name != name || entry.raw_bytes != b - a || out.len() - header.len() != a {
            return Err(ContainerError::BadIndex(format!("tensor {:?} does not match the stored header", entry.name)));
        }
        let width = SymbolWidth::from_bits(entry.symbol_bits).ok_or_else(|| ContainerError::BadIndex(format!("tensor {:?}: symbol_bits {}", entry.name, entry.symbol_bits)))?;
        let end = offset.checked_add(entry.stream_bytes).ok_or(ContainerError::Truncated("tensor stream"))?;
        let stream = container.get(offset..end).ok_or(ContainerError::Truncated("tensor stream"))?;
        let bytes = decode_stream(stream, entry.raw_bytes, width).map_err(|source| ContainerError::Stream { tensor: entry.name.clone(), source })?;
        out.extend_from_slice(&bytes);
        offset = end;
    }
    if offset != container.len() {
        return Err(ContainerError::BadIndex(format!("{} bytes after the last stream", container.len() - offset)));
    }
    Ok(out)
}
