//! `compress` and `decompress`: round-trip a user's safetensors file through the PlaneZip
//! container. Never overwrites the input; refuses an existing output unless `--force`.

use crate::cli::{CompressArgs, DecompressArgs, StoreDtype};
use crate::convert::f32_to_bf16_bytes;
use anyhow::{Context, Result, bail};
use safetensors::tensor::TensorView;
use std::path::Path;

/// Runs `compress`; returns (input file bytes, bytes compressed — after the `--dtype`
/// conversion, if any —, output bytes).
pub fn compress(args: &CompressArgs) -> Result<(usize, usize, usize)> {
    check_output(&args.input, &args.output, args.force)?;
    let input = std::fs::read(&args.input).with_context(|| format!("reading {}", args.input.display()))?;
    let input_len = input.len();
    let source = match args.dtype {
        Some(StoreDtype::Bf16) => to_bf16(&input).with_context(|| format!("{}: converting to bf16", args.input.display()))?,
        None => input,
    };
    let out = engine::container::compress(&source, args.symbol_bits.map(|b| b.width())).with_context(|| format!("{}", args.input.display()))?;
    write_new(&args.output, &out)?;
    Ok((input_len, source.len(), out.len()))
}

/// Runs `decompress`; returns (input bytes, output bytes).
pub fn decompress(args: &DecompressArgs) -> Result<(usize, usize)> {
    check_output(&args.input, &args.output, args.force)?;
    let input = std::fs::read(&args.input).with_context(|| format!("reading {}", args.input.display()))?;
    let out = engine::container::decompress(&input).with_context(|| format!("{}", args.input.display()))?;
    write_new(&args.output, &out)?;
    Ok((input.len(), out.len()))
}

/// Rewrites a safetensors file with every F32 tensor converted to BF16 (RNE), metadata kept.
/// Finite values match PyTorch's `.to(torch.bfloat16)` bit for bit; NaNs stay NaNs but keep their
/// sign and top payload bits (PyTorch writes one canonical NaN).
fn to_bf16(file: &[u8]) -> Result<Vec<u8>> {
    let st = safetensors::SafeTensors::deserialize(file).map_err(|e| anyhow::anyhow!("not a valid safetensors file: {e:?}"))?;
    let (_, meta) = safetensors::SafeTensors::read_metadata(file).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let converted: Vec<(String, safetensors::Dtype, Vec<usize>, Vec<u8>)> = st
        .tensors()
        .into_iter()
        .map(|(name, v)| match v.dtype() {
            safetensors::Dtype::F32 => (name, safetensors::Dtype::BF16, v.shape().to_vec(), f32_to_bf16_bytes(v.data())),
            d => (name, d, v.shape().to_vec(), v.data().to_vec()),
        })
        .collect();
    let views = converted
        .iter()
        .map(|(n, d, s, b)| Ok((n.clone(), TensorView::new(*d, s.clone(), b).map_err(|e| anyhow::anyhow!("{e:?}"))?)))
        .collect::<Result<Vec<_>>>()?;
    safetensors::serialize(views, meta.metadata()).map_err(|e| anyhow::anyhow!("{e:?}"))
}

fn check_output(input: &Path, output: &Path, force: bool) -> Result<()> {
    if let (Ok(a), Ok(b)) = (input.canonicalize(), output.canonicalize()) {
        if a == b {
            bail!("output {} is the input file; refusing to overwrite it", output.display());
        }
    }
    if output.exists() && !force {
        bail!("output {} exists; pass --force to replace it", output.display());
    }
    Ok(())
}

/// Writes through a temporary file in the same folder, then renames, so a failure never leaves
/// a half-written output.
fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("partial");
    let result = std::fs::write(&tmp, bytes)
        .with_context(|| format!("writing {}", tmp.display()))
        .and_then(|()| std::fs::rename(&tmp, path).with_context(|| format!("renaming {} to {}", tmp.display(), path.display())));
    if result.is_err() {
        // Best effort: the write or rename already failed, and that error is the one reported.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
