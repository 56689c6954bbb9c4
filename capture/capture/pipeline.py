"""Full capture of one model: pretrain, record three iterations with their saved tensors, record
the training-batch trace on the meta device, map the two, write the dump directory."""

from __future__ import annotations

import json
import time
from pathlib import Path

import torch
from safetensors.torch import save_file

from .gpu_faithful import assert_no_fused_attention
from .iteration import signature, trace_json, train_step
from .match import match_saved
from .pretrain import pretrain, weight_state
from .recorder import Recorder
from .workloads import build, param_count

DUMP_VERSION = 1
RELU_FAMILY = ("relu", "hardtanh", "threshold")  # ReLU, ReLU6 (hardtanh) outputs


def dumps_root() -> Path:
    """Where full dumps go: `$PLANEZIP_CACHE/dumps` (default `~/.cache/planezip/dumps`)."""
    from .data import cache_dir

    return cache_dir() / "dumps"


def saved_contents(rec: Recorder) -> dict[str, torch.Tensor]:
    """Saved activations of a recorded CPU iteration, keyed by signature, shaped as produced.

    Each is the whole storage that autograd saved (views resolved to their storage). Raises if a
    saved tensor was modified in place after it was saved.
    """
    out = {}
    for t in rec.saved_activations():
        ref, version = rec.saved_refs[t.id]
        if ref._version != version:
            raise RuntimeError(f"saved tensor {signature(t.producer)} modified after saving")
        flat = torch.empty(0, dtype=ref.dtype).set_(ref.untyped_storage())
        numel = 1
        for d in t.shape:
            numel *= d
        out[signature(t.producer)] = (flat.reshape(t.shape) if flat.numel() == numel else flat).clone()
    return out


def _zero_fraction(tensors: dict[str, torch.Tensor], trace: dict, op_types) -> float | None:
    """Fraction of exactly-zero elements over the saved outputs of ops of `op_types` (None if none)."""
    zeros = total = 0
    for t in trace["tensors"]:
        if t["kind"] == "saved_activation" and t["producer_op_type"] in op_types:
            x = tensors[signature(t["producer"])]
            zeros += int((x == 0).sum())
            total += x.numel()
    return round(zeros / total, 6) if total else None


def _saved_summary(trace: dict) -> dict:
    saved = [t for t in trace["tensors"] if t["kind"] == "saved_activation"]
    return {"ops": len(trace["ops"]), "saved_tensors": len(saved),
            "saved_bytes": sum(t["bytes"] for t in saved)}


def _hook_agreement(trace: dict) -> dict:
    """Compare the hook-confirmed saved set with "produced in forward, read in backward"."""
    ops = trace["ops"]
    read_set = {
        t["id"] for t in trace["tensors"]
        if t["producer"] is not None and ops[t["producer"]["op"]]["phase"] == "forward"
        and t["first_backward_use"] is not None and t["kind"] in ("activation", "saved_activation")
    }
    hook_set = {t["id"] for t in trace["tensors"] if t["kind"] == "saved_activation"}
    by_id = {t["id"]: t for t in trace["tensors"]}
    return {
        "read_in_backward_not_saved": sorted(signature(by_id[i]["producer"]) for i in read_set - hook_set),
        "saved_not_read_in_backward": sorted(signature(by_id[i]["producer"]) for i in hook_set - read_set),
    }


def capture_model(name: str, out: Path, steps: int, iters: int = 3, batch: int | None = None,
                  meta_batch: int | None = None, seed: int = 0, pretrain_seq: int | None = None,
                  pretrain_batch: int | None = None, pretrain_seconds: float | None = None,
                  target_val_drop: float | None = None, log=print) -> dict:
    """Capture `name` into directory `out`; returns the metadata written to `out/metadata.json`.

    Writes trace.json (capture batch, CPU), trace-train.json (training batch, meta device),
    iter{k}.safetensors (saved activations of iteration k, keyed `op{op}:{slot}`) and metadata.json.
    """
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    w = build(name, "cpu")
    batch = batch or w.capture_batch
    meta_batch = meta_batch or w.train_batch
    is_lm = "val_tokens" in w.extra
    curve = pretrain(w, steps, pretrain_batch or batch, gen, seq_len=pretrain_seq,
                     val_every=max(1, steps // 20) if is_lm else 0, max_seconds=pretrain_seconds,
                     target_val_drop=target_val_drop if is_lm else None, log=log)

    t0 = time.time()
    first, iterations = None, []
    for k in range(iters):
        rec = Recorder(keep_saved=True)
        loss = float(train_step(w, w.batch_fn(batch, gen), rec))
        trace = trace_json(rec, w, batch)
        assert_no_fused_attention(o["name"] for o in trace["ops"])
        tensors = saved_contents(rec)
        del rec
        if first is None:
            first = trace
            (out / "trace.json").write_text(json.dumps(trace))
            relu_zero = _zero_fraction(tensors, trace, RELU_FAMILY)
        elif [o["name"] for o in trace["ops"]] != [o["name"] for o in first["ops"]] or \
                sorted(tensors) != sorted(saved_contents_keys(first)):
            raise RuntimeError(f"{name}: iteration {k} op sequence or saved signatures differ from iteration 0")
        save_file(tensors, str(out / f"iter{k}.safetensors"), metadata={"iteration": str(k), "model": name})
        iterations.append({"iteration": k, "loss": round(loss, 5),
                           "saved_bytes": sum(t.numel() * t.element_size() for t in tensors.values())})
        log(f"{name}: captured iteration {k}: loss {loss:.4f}, {len(tensors)} saved tensors")
        del tensors
    capture_s = time.time() - t0

    t1 = time.time()
    wm = build(name, "meta")
    mgen = torch.Generator().manual_seed(seed)
    train_step(wm, wm.batch_fn(meta_batch, mgen))  # creates optimizer state: record a steady-state step
    mrec = Recorder()
    train_step(wm, wm.batch_fn(meta_batch, mgen), mrec)
    meta_trace = trace_json(mrec, wm, meta_batch)
    (out / "trace-train.json").write_text(json.dumps(meta_trace))
    meta_s = time.time() - t1
    matching = match_saved(meta_trace, first)

    meta = {
        "dump_version": DUMP_VERSION, "model": name, "params": param_count(w.model),
        "capture_batch": batch, "train_batch": meta_batch, "seq_len": w.seq_len,
        "data_stand_in": w.stand_in, "objective": w.objective, "optimizer": type(w.optimizer).__name__,
        "weights": weight_state(w), "pretrain": curve, "tokenizer": w.extra.get("tokenizer"),
        "iterations": iterations, "capture": _saved_summary(first), "train": _saved_summary(meta_trace),
        "relu_zero_fraction": relu_zero, "hook_agreement": _hook_agreement(first),
        "match": matching, "capture_seconds": round(capture_s, 1), "meta_trace_seconds": round(meta_s, 1),
        "torch": torch.__version__, "seed": seed,
    }
    (out / "metadata.json").write_text(json.dumps(meta, indent=1))
    log(f"{name}: done; unmatched saved bytes {matching['unmatched_saved_bytes_share']:.2%}")
    return meta


def saved_contents_keys(trace: dict) -> list[str]:
    """Signatures of the saved activations of a trace dict."""
    return [signature(t["producer"]) for t in trace["tensors"] if t["kind"] == "saved_activation"]
