//! Loading tensors from the files users give: `.safetensors` (any dtype) and `.npy`
//! (little-endian numeric types; `<V2` is read as bf16, the way bf16 arrays are saved by numpy).
//!
//! A file is memory-mapped so that its header is checked by the same parsers whatever its size
//! ([`open`]); a tensor's bytes are then read from the file in pieces ([`TensorFile::pieces`]), so
//! a tensor of many GB needs memory for one piece, not for the tensor. [`load`] reads every
//! tensor whole, for the commands that need them in memory.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Bytes of one piece of a tensor read from a file: a multiple of twice the chunk size (8192 B, so
/// chunk-wise measurements of the pieces, and of their bf16 conversions, add up exactly).
pub const PIECE_BYTES: usize = 16 << 20;

/// Where one tensor's bytes lie in its file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorEntry {
    /// Name: the safetensors key, or the file stem for `.npy`.
    pub name: String,
    /// safetensors dtype name (`"F32"`, `"BF16"`, `"F16"`, `"I64"`, …).
    pub dtype: String,
    /// Shape.
    pub shape: Vec<usize>,
    /// Offset of the first byte in the file.
    pub offset_bytes: u64,
    /// Length, bytes (checked against dtype and shape, and to lie inside the file).
    pub len_bytes: usize,
}

/// A tensor file whose header has been checked and whose tensors are located but not read.
pub struct TensorFile {
    path: PathBuf,
    file: std::fs::File,
    /// The tensors in file order.
    pub tensors: Vec<TensorEntry>,
}

/// Opens a `.safetensors` or `.npy` file and checks its header (the data is not read).
pub fn open(path: &Path) -> Result<TensorFile, LoadError> {
    let io = |source| LoadError::Io { path: path.to_path_buf(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    // SAFETY: the map is read only by the header parsers below, within this call; a file changed
    // underneath by another process could give them wrong bytes, which they reject or
    // mis-locate (then `TensorFile::read` fails), but never unmapped memory.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
    let tensors = match path.extension().and_then(|e| e.to_str()) {
        Some("safetensors") => locate_safetensors(path, &map)?,
        Some("npy") => vec![locate_npy(path, &map)?],
        _ => return Err(malformed(path, "unknown file type: expected a .safetensors or .npy file")),
    };
    Ok(TensorFile { path: path.to_path_buf(), file, tensors })
}

impl TensorFile {
    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes `start..start + len` of tensor `t` (a [`TensorEntry`] of this file), read from the file.
    pub fn read(&self, t: &TensorEntry, start: usize, len: usize) -> Result<Vec<u8>, LoadError> {
        let end = start.checked_add(len).filter(|&e| e <= t.len_bytes);
        let Some(_) = end else {
            return Err(malformed(&self.path, format!("tensor {}: bytes {start}+{len} outside its {} bytes", t.name, t.len_bytes)));
        };
        let mut buf = vec![0u8; len];
        self.file
            .read_exact_at(&mut buf, t.offset_bytes + start as u64)
            .map_err(|e| malformed(&self.path, format!("tensor {}: reading {len} bytes at {}: {e} (file changed or truncated?)", t.name, t.offset_bytes + start as u64)))?;
        Ok(buf)
    }

    /// Tensor `t` as consecutive pieces of [`PIECE_BYTES`] (the last one shorter), read one at a
    /// time; an empty tensor has no piece.
    pub fn pieces<'a>(&'a self, t: &'a TensorEntry) -> impl Iterator<Item = Result<Vec<u8>, LoadError>> + 'a {
        (0..t.len_bytes).step_by(PIECE_BYTES).map(move |start| self.read(t, start, PIECE_BYTES.min(t.len_bytes - start)))
    }
}

/// One tensor read from a file, with its bytes in memory order.
#[derive(Clone, Debug)]
pub struct Tensor {
    /// Name: the safetensors key, or the file stem for `.npy`.
    pub name: String,
    /// safetensors dtype name (`"F32"`, `"BF16"`, `"F16"`, `"I64"`, …).
    pub dtype: String,
    /// Shape.
    pub shape: Vec<usize>,
    /// Raw little-endian bytes.
    pub bytes: Vec<u8>,
}

/// Why a tensor file could not be read; always names the file.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read at all.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The file's contents are not what its extension promises.
    #[error("{path}: {problem}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

fn malformed(path: &Path, problem: impl Into<String>) -> LoadError {
    LoadError::Malformed { path: path.to_path_buf(), problem: problem.into() }
}

/// Reads every tensor of a `.safetensors` or `.npy` file whole.
pub fn load(path: &Path) -> Result<Vec<Tensor>, LoadError> {
    let file = open(path)?;
    file.tensors
        .iter()
        .map(|t| Ok(Tensor { name: t.name.clone(), dtype: t.dtype.clone(), shape: t.shape.clone(), bytes: file.read(t, 0, t.len_bytes)? }))
        .collect()
}

/// The tensors `entries` located in `bytes`, with their bytes copied out.
fn copy_out(bytes: &[u8], entries: Vec<TensorEntry>) -> Vec<Tensor> {
    entries
        .into_iter()
        .map(|t| {
            let at = t.offset_bytes as usize;
            Tensor { bytes: bytes[at..at + t.len_bytes].to_vec(), name: t.name, dtype: t.dtype, shape: t.shape }
        })
        .collect()
}

/// Parses safetensors bytes (in file order of the data offsets).
pub fn from_safetensors(path: &Path, bytes: &[u8]) -> Result<Vec<Tensor>, LoadError> {
    Ok(copy_out(bytes, locate_safetensors(path, bytes)?))
}

/// Checks safetensors bytes and locates their tensors (in file order), touching no tensor data.
fn locate_safetensors(path: &Path, bytes: &[u8]) -> Result<Vec<TensorEntry>, LoadError> {
    let st = safetensors::SafeTensors::deserialize(bytes).map_err(|e| malformed(path, format!("not a valid safetensors file: {e:?}")))?;
    let mut tensors: Vec<_> = st.tensors();
    tensors.sort_by_key(|(_, v)| v.data().as_ptr() as usize);
    Ok(tensors
        .into_iter()
        .map(|(name, view)| TensorEntry {
            name,
            dtype: format!("{:?}", view.dtype()),
            shape: view.shape().to_vec(),
            offset_bytes: (view.data().as_ptr() as usize - bytes.as_ptr() as usize) as u64,
            len_bytes: view.data().len(),
        })
        .collect())
}

/// `.npy` magic (format 1.0–3.0): `\x93NUMPY`, then major and minor version bytes.
const NPY_MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Checks the `.npy` preamble before the parser sees it: the header length it claims (u16 in
/// version 1, u32 in versions 2 and 3) must fit in the file, since the parser allocates it.
fn check_npy_preamble(path: &Path, bytes: &[u8]) -> Result<(), LoadError> {
    if bytes.len() < NPY_MAGIC.len() + 2 || &bytes[..NPY_MAGIC.len()] != NPY_MAGIC {
        return Err(malformed(path, "not a valid .npy file: no \\x93NUMPY magic"));
    }
    let (len_bytes, claimed) = match bytes[NPY_MAGIC.len()] {
        1 => (2, bytes.get(8..10).map(|b| u16::from_le_bytes([b[0], b[1]]) as usize)),
        2 | 3 => (4, bytes.get(8..12).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)),
        v => return Err(malformed(path, format!("not a valid .npy file: format version {v} (1, 2 or 3 expected)"))),
    };
    let header_start = 8 + len_bytes;
    let header = claimed.and_then(|n| bytes.get(header_start..header_start + n));
    let Some(header) = header else {
        return Err(malformed(path, format!("not a valid .npy file: its header claims {} bytes, the file has {}", claimed.unwrap_or(0), bytes.len())));
    };
    // The header parser backtracks exponentially on deeply nested brackets (a fuzzer found a
    // 334-byte file that took over 10 s); a numpy header nests a dict, a tuple and, for structured
    // dtypes, a few lists and tuples.
    if bracket_depth(header) > MAX_NPY_HEADER_NESTING {
        return Err(malformed(path, format!("not a valid .npy file: its header nests brackets deeper than {MAX_NPY_HEADER_NESTING} levels")));
    }
    // The parser multiplies the dimensions unchecked: refuse a shape whose element count
    // overflows or exceeds the file's bytes (every element takes at least one byte).
    if let Some(dims) = npy_shape(header) {
        let elements = dims.iter().try_fold(1u64, |n, d| d.parse::<u64>().ok().and_then(|d| n.checked_mul(d)));
        if elements.is_none_or(|n| n > bytes.len() as u64) {
            return Err(malformed(path, format!("shape ({}) needs more than 2^64 bytes or more than the file's {}", dims.join(", "), bytes.len())));
        }
    }
    Ok(())
}

/// Deepest bracket nesting a `.npy` header may have (numpy writes 2; structured dtypes a few more).
const MAX_NPY_HEADER_NESTING: usize = 8;

/// Deepest nesting of `(`, `[` and `{` in `header`, brackets inside quotes included (an
/// over-estimate only matters for absurd headers).
fn bracket_depth(header: &[u8]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for &b in header {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The dimensions of the `'shape': (…)` entry of a `.npy` header dict, as written, or `None` if
/// there is no such entry of plain integers (the full parser then judges the header).
fn npy_shape(header: &[u8]) -> Option<Vec<&str>> {
    let text = std::str::from_utf8(header).ok()?;
    let after = text.find("'shape'").or_else(|| text.find("\"shape\""))? + "'shape'".len();
    let rest = text[after..].trim_start().strip_prefix(':')?.trim_start();
    let close = match rest.chars().next()? {
        '(' => ')',
        '[' => ']',
        _ => return None,
    };
    let inner = &rest[1..rest.find(close)?];
    let dims: Vec<&str> = inner.split(',').map(str::trim).filter(|d| !d.is_empty()).collect();
    dims.iter().all(|d| d.bytes().all(|b| b.is_ascii_digit())).then_some(dims)
}

/// Parses `.npy` bytes.
pub fn from_npy(path: &Path, bytes: &[u8]) -> Result<Tensor, LoadError> {
    let entry = locate_npy(path, bytes)?;
    Ok(copy_out(bytes, vec![entry]).remove(0))
}

/// Checks `.npy` bytes and locates the array's data, touching none of it.
fn locate_npy(path: &Path, bytes: &[u8]) -> Result<TensorEntry, LoadError> {
    check_npy_preamble(path, bytes)?;
    let mut reader = bytes;
    let header = npyz::NpyHeader::from_reader(&mut reader).map_err(|e| malformed(path, format!("not a valid .npy file: {e}")))?;
    let descr = header.dtype().descr();
    let dtype = match descr.trim_matches('\'') {
        "<f4" => "F32",
        "<f2" => "F16",
        "<V2" => "BF16",
        "<f8" => "F64",
        "<i8" => "I64",
        "<i4" => "I32",
        "<i2" => "I16",
        "|i1" => "I8",
        "|u1" => "U8",
        "|b1" => "BOOL",
        other => return Err(malformed(path, format!("unsupported .npy dtype {other} (little-endian numeric types only)"))),
    };
    if header.order() == npyz::Order::Fortran && header.shape().len() > 1 {
        return Err(malformed(path, "fortran_order arrays are not supported (save with C order)"));
    }
    let shape: Vec<usize> = header.shape().iter().map(|&d| usize::try_from(d)).collect::<Result<_, _>>()
        .map_err(|_| malformed(path, format!("shape {:?} does not fit this machine", header.shape())))?;
    let elem = header.dtype().num_bytes().unwrap_or(0);
    let need = shape.iter().try_fold(elem, |n, &d| n.checked_mul(d));
    if need != Some(reader.len()) {
        let need = need.map_or("more than 2^64".to_string(), |n| n.to_string());
        return Err(malformed(path, format!("data is {} bytes but shape {shape:?} of {dtype} needs {need}", reader.len())));
    }
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(TensorEntry { name, dtype: dtype.to_string(), shape, offset_bytes: (bytes.len() - reader.len()) as u64, len_bytes: reader.len() })
}
