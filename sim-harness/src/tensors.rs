//! Loading tensors from the files users give: `.safetensors` (any dtype) and `.npy`
//! (little-endian numeric types; `<V2` is read as bf16, the way bf16 arrays are saved by numpy).

use std::path::{Path, PathBuf};

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

/// Reads every tensor of a `.safetensors` or `.npy` file.
pub fn load(path: &Path) -> Result<Vec<Tensor>, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io { path: path.to_path_buf(), source })?;
    match path.extension().and_then(|e| e.to_str()) {
        Some("safetensors") => from_safetensors(path, &bytes),
        Some("npy") => from_npy(path, &bytes).map(|t| vec![t]),
        _ => Err(malformed(path, "unknown file type: expected a .safetensors or .npy file")),
    }
}

/// Parses safetensors bytes (in file order of the data offsets).
pub fn from_safetensors(path: &Path, bytes: &[u8]) -> Result<Vec<Tensor>, LoadError> {
    let st = safetensors::SafeTensors::deserialize(bytes).map_err(|e| malformed(path, format!("not a valid safetensors file: {e:?}")))?;
    let mut tensors: Vec<_> = st.tensors();
    tensors.sort_by_key(|(_, v)| v.data().as_ptr() as usize);
    Ok(tensors
        .into_iter()
        .map(|(name, view)| Tensor { name, dtype: format!("{:?}", view.dtype()), shape: view.shape().to_vec(), bytes: view.data().to_vec() })
        .collect())
}

/// Parses `.npy` bytes.
pub fn from_npy(path: &Path, bytes: &[u8]) -> Result<Tensor, LoadError> {
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
    let shape: Vec<usize> = header.shape().iter().map(|&d| d as usize).collect();
    let elem = header.dtype().num_bytes().unwrap_or(0);
    let need = shape.iter().product::<usize>() * elem;
    if reader.len() != need {
        return Err(malformed(path, format!("data is {} bytes but shape {shape:?} of {dtype} needs {need}", reader.len())));
    }
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    Ok(Tensor { name, dtype: dtype.to_string(), shape, bytes: reader.to_vec() })
}
