"""Bring a model into training before capture: SGD/AdamW steps on the real stand-in data."""

from __future__ import annotations

import hashlib
import math
import time

import numpy as np
import torch

from .iteration import train_step
from .workloads import Workload, token_batch


def pretrain(w: Workload, steps: int, batch: int, gen: torch.Generator, seq_len: int | None = None,
             val_every: int = 0, max_seconds: float | None = None, target_val_drop: float | None = None,
             log=print) -> dict:
    """Run `steps` optimizer steps of `batch` samples; returns the loss curve.

    `seq_len` overrides the sequence length of language models (shorter sequences train faster
    on CPU). With `val_every > 0` and validation tokens in `w.extra["val_tokens"]`, the validation
    loss is measured every `val_every` steps and at the end. Linear warm-up over the first 10 % of
    the steps. Training stops early after `max_seconds`, or once the validation loss has fallen by
    `target_val_drop` (a fraction) of its first value. Returns {"steps" (run), "batch", "seq_len",
    "train_loss": [per step], "val_loss": [[step, loss], ...], "seconds", "stopped"}.
    """
    t0 = time.time()
    base_lrs = [g["lr"] for g in w.optimizer.param_groups]
    warmup = max(1, steps // 10)
    curve, val = [], []
    w.model.train()
    stopped = "steps"
    for step in range(steps):
        if max_seconds is not None and time.time() - t0 > max_seconds:
            stopped = "time limit"
            break
        scale = min(1.0, (step + 1) / warmup)
        for g, lr in zip(w.optimizer.param_groups, base_lrs):
            g["lr"] = lr * scale
        if val_every and step % val_every == 0:
            val.append([step, validation_loss(w, seq_len)])
            log(f"{w.name} step {step} validation loss {val[-1][1]:.4f}")
            if target_val_drop and val[-1][1] <= val[0][1] * (1.0 - target_val_drop):
                stopped = "validation target"
                break
        b = w.batch_fn(batch, gen, seq_len) if seq_len else w.batch_fn(batch, gen)
        loss = float(train_step(w, b))
        if not math.isfinite(loss):
            raise RuntimeError(f"{w.name}: loss diverged at step {step}")
        curve.append(round(loss, 5))
        if step % 10 == 0 or step == steps - 1:
            log(f"{w.name} step {step}/{steps} loss {loss:.4f} ({time.time() - t0:.0f} s)")
    if val_every and val[-1][0] != len(curve):
        val.append([len(curve), validation_loss(w, seq_len)])
        log(f"{w.name} validation loss {val[0][1]:.3f} -> {val[-1][1]:.3f}")
    return {"steps": len(curve), "batch": batch, "seq_len": seq_len, "train_loss": curve, "val_loss": val,
            "seconds": round(time.time() - t0, 1), "stopped": stopped}


@torch.no_grad()
def validation_loss(w: Workload, seq_len: int | None, windows: int = 16) -> float:
    """Mean LM loss over `windows` fixed windows of the validation tokens (model in eval mode)."""
    tokens = w.extra["val_tokens"]
    seq = seq_len or w.seq_len
    gen = torch.Generator().manual_seed(1234)
    w.model.eval()
    losses = []
    for _ in range(windows // 4):
        ids = token_batch(tokens, 4, seq, gen)
        losses.append(float(w.model(input_ids=ids, labels=ids, use_cache=False).loss))
    w.model.train()
    return round(float(np.mean(losses)), 5)


def weight_state(w: Workload) -> dict:
    """Fingerprint of the weights at capture: parameter count, global L2 norm, SHA-256 of the bytes."""
    h = hashlib.sha256()
    sq = 0.0
    for p in w.model.parameters():
        a = p.detach().contiguous().numpy()
        h.update(a.tobytes())
        sq += float((a.astype(np.float64) ** 2).sum())
    return {"description": w.weights, "l2_norm": round(math.sqrt(sq), 6), "sha256": h.hexdigest()}
