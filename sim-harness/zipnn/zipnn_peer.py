"""The real ZipNN package on the `peers` tensors: ratio and one-core CPU-time speed.

Same inputs as `sim-harness peers` (BENCHMARKS.md): every F32 tensor of every
`DIR/*.safetensors` of each model directory given, as fp32 and as its bf16 round-to-nearest-even
conversion; each tensor coded in independent 4 KB chunks (PlaneZip's random-access granularity)
and whole. Ratio = raw bytes / compressed bytes of each model's tensors together, then the
geometric mean over the paper's five models and over all given. Speeds in GB (10^9 raw bytes)
per second of process CPU time (`time.process_time`), the package held to one thread
(`threads=1`). Two speeds per granularity: `compress_gbps` / `decompress_gbps` from one call per
model over its pieces concatenated, with the package's own chunking set to the granularity
(`compression_chunk` = 4 KB, or its default 256 KB for whole tensors), which is the package's
native speed; and `per_call_*_gbps` from one call per piece, as the ratio is measured, which
Python's per-call overhead dominates for pieces of a few KB. Every stream is decompressed and
compared with its input (exit 1 otherwise). zipnn 0.5.4's `compress` overwrites its input buffer
in place, so each call gets a fresh copy (not timed).

Run (from the repository root, in a venv with sim-harness/zipnn/requirements.txt):
    python sim-harness/zipnn/zipnn_peer.py data/resnet50 data/densenet121 data/efficientnet_b0 \
        data/vit_b16 data/gpt2 data/efficientnet_lite0 data/minilm > zipnn.json
then pass the file to `sim-harness peers ... --zipnn-json zipnn.json`.
"""

import importlib.metadata
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import zipnn
from safetensors.numpy import load_file

CHUNK_BYTES = 4096
# The package's default internal chunk (zipnn 0.5.4's `compression_chunk`), for whole tensors.
DEFAULT_COMPRESSION_CHUNK = 256 * 1024
# One thread: the table's speeds are per core.
THREADS = 1
DTYPES = {"bf16": "bfloat16", "fp32": "float32"}
PAPER_MODELS = ["resnet50", "densenet121", "efficientnet_b0", "vit_b16", "gpt2"]


def bf16_rne(f32: np.ndarray) -> bytes:
    """The bf16 round-to-nearest-even conversion (NaNs kept quiet), as little-endian bytes."""
    bits = f32.view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(f32)
    rounded[nan] = ((bits[nan] >> 16) | 0x40) & 0xFFFF
    return rounded.astype(np.uint16).tobytes()


def tensors(model_dir: Path):
    """fp32 bytes of every F32 tensor under `model_dir`."""
    for f in sorted(model_dir.glob("*.safetensors")):
        for name, arr in sorted(load_file(str(f)).items()):
            if arr.dtype == np.float32:
                yield np.ascontiguousarray(arr).reshape(-1)


def measure(codec, pieces):
    """(raw bytes, compressed bytes, compress CPU s, decompress CPU s) over `pieces`."""
    raw = comp = 0
    t_c = t_d = 0.0
    for piece in pieces:
        buf = bytearray(piece)  # fresh copy: compress overwrites its input
        t = time.process_time()
        stream = codec.compress(buf)
        t_c += time.process_time() - t
        t = time.process_time()
        back = codec.decompress(stream)
        t_d += time.process_time() - t
        if bytes(back) != piece:
            sys.exit(f"zipnn round trip failed on a {len(piece)}-byte piece")
        raw += len(piece)
        comp += len(stream)
    return raw, comp, t_c, t_d


def bulk(fmt, chunk, pieces):
    """(raw bytes, compress CPU s, decompress CPU s) of one call over `pieces` concatenated, the
    package chunking internally at `chunk` bytes."""
    codec = zipnn.ZipNN(bytearray_dtype=DTYPES[fmt], threads=THREADS, compression_chunk=chunk)
    whole = b"".join(pieces)
    raw, _, t_c, t_d = measure(codec, [whole])
    return raw, t_c, t_d


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def main():
    dirs = [Path(a) for a in sys.argv[1:]]
    if not dirs:
        sys.exit(__doc__)
    codecs = {fmt: zipnn.ZipNN(bytearray_dtype=dtype, threads=THREADS) for fmt, dtype in DTYPES.items()}
    out = {"package": f"zipnn {importlib.metadata.version('zipnn')}", "granularities": {}}
    for gran in ["4 KB chunk", "whole tensor"]:
        per_fmt = {}
        for fmt, codec in codecs.items():
            models = {}
            raw_all = t_c_all = t_d_all = 0.0
            bulk_raw = bulk_c = bulk_d = 0.0
            chunk = CHUNK_BYTES if gran == "4 KB chunk" else DEFAULT_COMPRESSION_CHUNK
            for d in dirs:
                data = [bf16_rne(t) if fmt == "bf16" else t.tobytes() for t in tensors(d)]
                if gran == "4 KB chunk":
                    data = [b[i:i + CHUNK_BYTES] for b in data for i in range(0, len(b), CHUNK_BYTES)]
                raw, comp, t_c, t_d = measure(codec, data)
                models[d.name] = raw / comp
                raw_all += raw
                t_c_all += t_c
                t_d_all += t_d
                raw, t_c, t_d = bulk(fmt, chunk, data)
                bulk_raw += raw
                bulk_c += t_c
                bulk_d += t_d
            per_fmt[fmt] = {
                "ratio_per_model": models,
                "geomean_paper": geomean([r for m, r in models.items() if m in PAPER_MODELS]),
                "geomean_all": geomean(list(models.values())),
                "compress_gbps": bulk_raw / bulk_c / 1e9,
                "decompress_gbps": bulk_raw / bulk_d / 1e9,
                "compression_chunk_bytes": chunk,
                "per_call_compress_gbps": raw_all / t_c_all / 1e9,
                "per_call_decompress_gbps": raw_all / t_d_all / 1e9,
            }
        out["granularities"][gran] = per_fmt
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
