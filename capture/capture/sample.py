"""Build the committed `data/` sample from full dumps: 4 KB chunks of every saved activation.

    python -m capture.sample [--dumps DIR] [--out data] [--budget-mb 5] [MODEL ...]

For each model, every saved activation keeps `n` chunks of 4,096 bytes at evenly spaced,
4,096-byte-aligned offsets (the same offsets in all iterations), `n` proportional to its bytes
(at least 1) within a per-model byte budget; a tensor under 4,096 bytes is kept whole. The
traces and metadata are copied; `sample.json` records every offset. See docs/DUMP-FORMAT.md §3.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from .iteration import signature
from .pipeline import dumps_root

CHUNK_BYTES = 4096
SAMPLE_VERSION = 1


def chunk_offsets(tensor_bytes: int, n: int) -> list[int]:
    """`n` evenly spaced, `CHUNK_BYTES`-aligned byte offsets of whole chunks within a tensor.

    A tensor under one chunk yields [0] (kept whole); `n` is capped at the number of whole chunks.
    """
    whole = tensor_bytes // CHUNK_BYTES
    if whole == 0:
        return [0]
    n = max(1, min(n, whole))
    return [(i * whole // n) * CHUNK_BYTES for i in range(n)]


def take_chunks(t: torch.Tensor, offsets: list[int]) -> torch.Tensor:
    """Concatenate the chunks at byte `offsets` of tensor `t` (same dtype, 1-D)."""
    flat = t.contiguous().reshape(-1)
    item = flat.element_size()
    per = CHUNK_BYTES // item
    if flat.numel() * item < CHUNK_BYTES:
        return flat.clone()
    return torch.cat([flat[o // item: o // item + per] for o in offsets])


def allocate(saved: list[dict], budget_bytes: int) -> dict[str, int]:
    """Chunks per saved activation (by signature) for one iteration: byte-proportional, >= 1."""
    total = sum(t["bytes"] for t in saved) or 1
    spare = max(0, budget_bytes // CHUNK_BYTES - len(saved))  # after the one chunk each
    return {signature(t["producer"]): 1 + spare * t["bytes"] // total for t in saved}


def sample_model(dump: Path, out: Path, budget_bytes: int) -> dict:
    """Write the sample of one full dump directory `dump` into `out`; returns the sample index."""
    trace = json.loads((dump / "trace.json").read_text())
    saved = [t for t in trace["tensors"] if t["kind"] == "saved_activation"]
    iters = sorted(dump.glob("iter*.safetensors"), key=lambda p: int(p.stem[4:]))
    if not iters:
        raise FileNotFoundError(f"{dump}: no iter*.safetensors")
    out.mkdir(parents=True, exist_ok=True)
    for name in ("trace.json", "trace-train.json", "metadata.json"):
        shutil.copyfile(dump / name, out / name)
    fixed = sum((out / n).stat().st_size for n in ("trace.json", "trace-train.json", "metadata.json"))
    per_iter = max(CHUNK_BYTES * len(saved), (budget_bytes - fixed) // len(iters))
    counts = allocate(saved, per_iter)
    index = {"format": "planezip-sample", "version": SAMPLE_VERSION, "model": trace["model"],
             "chunk_bytes": CHUNK_BYTES, "iterations": len(iters), "tensors": {}}
    for t in saved:
        sig = signature(t["producer"])
        index["tensors"][sig] = {"dtype": t["dtype"], "shape": t["shape"], "bytes": t["bytes"],
                                 "offsets": chunk_offsets(t["bytes"], counts[sig])}
    for k, path in enumerate(iters):
        chunks = {}
        with safe_open(str(path), framework="pt") as f:
            for sig, entry in index["tensors"].items():
                chunks[sig] = take_chunks(f.get_tensor(sig), entry["offsets"])
        save_file(chunks, str(out / f"iter{k}.safetensors"), metadata={"iteration": str(k)})
    (out / "sample.json").write_text(json.dumps(index))
    return index


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m capture.sample", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="*", help="models to sample (default: every dump present)")
    p.add_argument("--dumps", type=Path, default=None, help="full dumps (default $PLANEZIP_CACHE/dumps)")
    p.add_argument("--out", type=Path, default=Path("data"))
    p.add_argument("--budget-mb", type=float, default=5.0, help="bytes per model incl. traces, MiB")
    a = p.parse_args(argv)
    dumps = a.dumps or dumps_root()
    models = a.models or sorted(d.name for d in dumps.iterdir() if (d / "metadata.json").exists())
    for m in models:
        idx = sample_model(dumps / m, a.out / m, int(a.budget_mb * 2**20))
        n = sum(len(e["offsets"]) for e in idx["tensors"].values())
        size = sum(f.stat().st_size for f in (a.out / m).iterdir())
        print(f"{m}: {len(idx['tensors'])} saved tensors, {n} chunks per iteration, {size / 2**20:.2f} MiB")


if __name__ == "__main__":
    main()
