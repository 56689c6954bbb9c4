"""Build the committed `data/` sample from full dumps: 4 KB chunks of every saved activation.

    python -m capture.sample [--dumps DIR] [--out data] [--budget-mb MIB] [MODEL ...]

For each model, every saved activation of `W` chunks (4,096 bytes each, the last one shorter when
the tensor's size is not a multiple) keeps `n` of them, `1 <= n <= W`: its extent is cut into `n`
equal strata of chunks and one chunk is drawn at random in each (seeded by model and signature,
so the offsets are the same in all iterations and in every run). `n` is proportional to the
tensor's bytes and, half of it, to how much its chunks differ in their share of zeros
(`allocate`, under a per-model byte budget, at least one chunk each), so that byte-weighted
ratios over the sample estimate those of the full tensors; a tensor of one chunk
(under 4 KB included) is kept whole, and every tensor is when the budget allows, its final partial
chunk included. The traces are stored
gzipped (`trace.json.gz`, `trace-train.json.gz`), the metadata copied; `sample.json` records
every offset. See docs/DUMP-FORMAT.md §3.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from .iteration import signature
from .pipeline import dumps_root

CHUNK_BYTES = 4096
SAMPLE_VERSION = 2
TRACE_FILES = ("trace.json", "trace-train.json")
# Bytes of each model's budget set aside for sample.json (a few offsets per tensor: 15-40 KB).
INDEX_RESERVE_BYTES = 64 * 1024
# Per-model budgets, MiB (traces, metadata and index included), chosen on the sample-check of
# the full dumps (docs/DUMP-FORMAT.md §3): DenseNet-121's concatenations repeat the same feature
# maps in many saved tensors, so their sampling errors add up instead of averaging out (its
# whole-model ratios were 1.2-2.3 % off at 6.4 MiB, 0.3-0.8 % at 9 MiB); EfficientNet-Lite0 was
# up to 1.7 % off at 6.4 MiB, 0.7 % at 7.5; the three models without ReLU zeros are within 0.6 %
# on less. Together 46.9 MB, under data/'s 48 MB (issue 13).
DEFAULT_BUDGET_MIB = 6.4
MODEL_BUDGET_MIB = {"densenet121": 10.0, "efficientnet_lite0": 7.5, "efficientnet_b0": 5.5, "vit_b16": 5.0, "minilm": 5.0}


def chunk_count(tensor_bytes: int) -> int:
    """Chunks of a tensor of `tensor_bytes` bytes, a shorter final one included (at least 1)."""
    return max(1, -(-tensor_bytes // CHUNK_BYTES))


def chunk_offsets(tensor_bytes: int, n: int, seed: str) -> list[int]:
    """`n` chunk offsets (bytes, increasing), one drawn uniformly in each of `n` equal strata of the
    tensor's chunks with a generator seeded by `seed`; every chunk when `n` reaches their count.

    Stratum `i` of `W` chunks is chunks `[floor(i W / n), floor((i + 1) W / n))`, so the strata
    tile the tensor and each holds at least one chunk.
    """
    w = chunk_count(tensor_bytes)
    n = max(1, min(n, w))
    if n == w:
        return [c * CHUNK_BYTES for c in range(w)]
    rng = random.Random(seed)
    return [rng.randrange(i * w // n, (i + 1) * w // n) * CHUNK_BYTES for i in range(n)]


def take_chunks(t: torch.Tensor, offsets: list[int]) -> torch.Tensor:
    """Concatenate the chunks at byte `offsets` of tensor `t` (same dtype, 1-D); the chunk at the
    tensor's end is as long as what is left of it."""
    flat = t.contiguous().reshape(-1)
    item = flat.element_size()
    nbytes = flat.numel() * item
    return torch.cat([flat[o // item: min(o + CHUNK_BYTES, nbytes) // item] for o in offsets])


def stored_bytes(tensor_bytes: int, n: int) -> int:
    """Bytes that `n` chunks of a tensor of `tensor_bytes` bytes take in the sample (at most the
    tensor: its final chunk may be shorter)."""
    return min(n * CHUNK_BYTES, tensor_bytes)


def zero_spread(t: torch.Tensor) -> float:
    """Standard deviation, over a tensor's whole chunks, of their fraction of nonzero elements
    (0 for a tensor of fewer than two chunks): how much its chunks differ in the quantity that
    drives ZVC's and much of PlaneZip's size (ReLU zeros, causal masks, dropout)."""
    flat = t.contiguous().reshape(-1)
    per = CHUNK_BYTES // flat.element_size()
    whole = flat.numel() // per
    if whole < 2:
        return 0.0
    nonzero = (flat[: whole * per].view(whole, per) != 0).sum(dim=1, dtype=torch.float64) / per
    return float(nonzero.std(unbiased=False))


def allocate(saved: list[dict], budget_bytes: int, spread: dict[str, float] | None = None) -> dict[str, int]:
    """Chunks per saved activation (by signature) for one iteration: `min(W, max(1, round(lam * w)))`
    with the largest `lam` whose stored bytes stay within `budget_bytes` (at least one chunk each,
    whatever the budget).

    The weight is `w = bytes * (s + s_mean)`, `s` the tensor's [`zero_spread`] and `s_mean` its
    byte-weighted mean over the model: a compromise between byte-proportional counts (the same
    sampling fraction everywhere) and Neyman allocation (counts proportional to bytes times the
    spread of the chunks, which minimises the variance of the estimated wire bytes). Without a
    spread, or when no tensor has one, `w = bytes`.
    """
    size = {signature(t["producer"]): t["bytes"] for t in saved}
    whole = {s: chunk_count(b) for s, b in size.items()}
    total = sum(size.values())
    mean = sum(size[s] * spread[s] for s in size) / total if spread and total else 0.0
    weight = {s: size[s] * (spread[s] + mean) if mean > 0 else float(size[s]) for s in size}

    def counts(lam: float) -> dict[str, int]:
        return {s: min(whole[s], max(1, round(lam * weight[s]))) for s in whole}

    def cost(c: dict[str, int]) -> int:
        return sum(stored_bytes(size[s], n) for s, n in c.items())

    # At hi every tensor with a weight is whole (the others keep their one chunk).
    lo, hi = 0.0, 2.0 * max((whole[s] / weight[s] for s in size if weight[s] > 0), default=1.0)
    if cost(counts(hi)) <= budget_bytes:
        return counts(hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        if cost(counts(mid)) <= budget_bytes:
            lo = mid
        else:
            hi = mid
    return counts(lo)


def write_gzip(src: Path, dst: Path) -> None:
    """`dst` = gzip of `src`, reproducible (no name, mtime 0), through a temporary file."""
    tmp = dst.with_name(dst.name + ".partial")
    with open(src, "rb") as f, open(tmp, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as g:
            shutil.copyfileobj(f, g)
    tmp.replace(dst)


def sample_model(dump: Path, out: Path, budget_bytes: int) -> dict:
    """Write the sample of one full dump directory `dump` into `out`; returns the sample index."""
    trace = json.loads((dump / "trace.json").read_text())
    saved = [t for t in trace["tensors"] if t["kind"] == "saved_activation"]
    iters = sorted(dump.glob("iter*.safetensors"), key=lambda p: int(p.stem[4:]))
    if not iters:
        raise FileNotFoundError(f"{dump}: no iter*.safetensors")
    out.mkdir(parents=True, exist_ok=True)
    for name in TRACE_FILES:
        (out / name).unlink(missing_ok=True)  # a version-1 sample's plain copy
        write_gzip(dump / name, out / f"{name}.gz")
    shutil.copyfile(dump / "metadata.json", out / "metadata.json")
    fixed = INDEX_RESERVE_BYTES + sum(
        (out / n).stat().st_size for n in ("trace.json.gz", "trace-train.json.gz", "metadata.json"))
    with safe_open(str(iters[0]), framework="pt") as f:
        spread = {signature(t["producer"]): zero_spread(f.get_tensor(signature(t["producer"]))) for t in saved}
    counts = allocate(saved, (budget_bytes - fixed) // len(iters), spread)
    index = {"format": "planezip-sample", "version": SAMPLE_VERSION, "model": trace["model"],
             "chunk_bytes": CHUNK_BYTES, "iterations": len(iters), "tensors": {}}
    for t in saved:
        sig = signature(t["producer"])
        index["tensors"][sig] = {"dtype": t["dtype"], "shape": t["shape"], "bytes": t["bytes"],
                                 "offsets": chunk_offsets(t["bytes"], counts[sig], f"{trace['model']}:{sig}")}
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
    p.add_argument("--budget-mb", type=float, default=None,
                   help="bytes per model incl. traces and index, MiB (default: MODEL_BUDGET_MIB, else "
                   f"{DEFAULT_BUDGET_MIB})")
    a = p.parse_args(argv)
    dumps = a.dumps or dumps_root()
    models = a.models or sorted(d.name for d in dumps.iterdir() if (d / "metadata.json").exists())
    for m in models:
        budget_mib = a.budget_mb if a.budget_mb is not None else MODEL_BUDGET_MIB.get(m, DEFAULT_BUDGET_MIB)
        idx = sample_model(dumps / m, a.out / m, int(budget_mib * 2**20))
        n = sum(len(e["offsets"]) for e in idx["tensors"].values())
        size = sum(f.stat().st_size for f in (a.out / m).iterdir())
        print(f"{m}: {len(idx['tensors'])} saved tensors, {n} chunks per iteration, {size / 2**20:.2f} MiB")


if __name__ == "__main__":
    main()
