"""Model table of the captured dumps next to the paper's Table I.

    python -m capture.report [--dumps DIR]     (DIR: full dumps or data/; default $PLANEZIP_CACHE/dumps)
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

from .pipeline import dumps_root

# Paper Table I: params (M), batch, saved tensors, saved GB (FP32, training batch), ops.
PAPER_TABLE_I = {
    "resnet50": ("25.6M", "128", 216, 11.0, 896),
    "densenet121": ("8.0M", "128", 494, 16.7, 3162),
    "efficientnet_b0": ("5.3M", "128", 314, 11.3, 1276),
    "vit_b16": ("86.6M", "64", 211, 9.0, 1910),
    "gpt2": ("124.4M", "8x1024", 275, 21.2, 2115),
}


def read_trace(d: Path, name: str) -> dict:
    """Trace `name` of dump directory `d`: plain JSON, or gzipped (`name.gz`) as data/ stores it."""
    plain = d / name
    return json.loads(plain.read_text() if plain.exists() else gzip.decompress((d / f"{name}.gz").read_bytes()))


def table(dumps: Path) -> str:
    """Markdown table: one row per dump directory holding metadata.json (GB = 1e9 bytes)."""
    rows = ["| model | params | train batch | ops (excl. views) | saved tensors | saved GB | paper (ops / saved / GB) "
            "| unmatched saved bytes | ReLU zero frac. | pretrain | capture s |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for d in sorted(p for p in dumps.iterdir() if (p / "metadata.json").exists()):
        m = json.loads((d / "metadata.json").read_text())
        ops = read_trace(d, "trace-train.json")["ops"]
        data_ops = sum(1 for o in ops if o["outputs"])
        tr = m["train"]
        batch = f"{m['train_batch']}x{m['seq_len']}" if m["seq_len"] else str(m["train_batch"])
        paper = PAPER_TABLE_I.get(m["model"])
        paper_s = f"{paper[4]} / {paper[2]} / {paper[3]}" if paper else "–"
        relu = "–" if m["relu_zero_fraction"] is None else f"{m['relu_zero_fraction']:.3f}"
        pre = m["pretrain"]
        pre_s = f"{pre['steps']} steps, loss {pre['train_loss'][0]:.2f}→{pre['train_loss'][-1]:.2f}"
        if pre.get("val_loss"):
            pre_s += f", val {pre['val_loss'][0][1]:.2f}→{pre['val_loss'][-1][1]:.2f}"
        rows.append(
            f"| {m['model']} | {m['params'] / 1e6:.1f}M | {batch} | {tr['ops']} ({data_ops}) | {tr['saved_tensors']} | "
            f"{tr['saved_bytes'] / 1e9:.1f} | {paper_s} | {m['match']['unmatched_saved_bytes_share']:.1%} | "
            f"{relu} | {pre_s} | {m['capture_seconds']:.0f} |")
    return "\n".join(rows)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m capture.report", description=__doc__)
    p.add_argument("--dumps", type=Path, default=None)
    a = p.parse_args(argv)
    print(table(a.dumps or dumps_root()))


if __name__ == "__main__":
    main()
