"""Run one training iteration (forward, backward, optimizer step) and turn a recording into trace.json."""

from __future__ import annotations

import torch

from .gpu_faithful import fused_dropout
from .recorder import Recorder
from .workloads import Workload

TRACE_FORMAT = "planezip-trace"
TRACE_VERSION = 1


def train_step(w: Workload, batch: dict, rec: Recorder | None = None) -> torch.Tensor:
    """One iteration on `batch`: forward + loss, backward, optimizer step, gradients set to None.

    With a recorder, every ATen op is logged with its phase; parameters and buffers, the input
    batch, parameter gradients and optimizer state are marked with their kinds. Returns the loss.
    """
    opt = w.optimizer
    with fused_dropout():
        if rec is None:
            loss = w.loss(batch)
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            return loss.detach()
        rec.mark(w.model.parameters(), "parameter")
        rec.mark(w.model.buffers(), "parameter")
        rec.mark(batch.values(), "input")
        rec.mark(_optimizer_state(opt), "optimizer_state")
        with rec, rec.saved_tensor_hooks():
            with rec.in_phase("forward"):
                loss = w.loss(batch)
            with rec.in_phase("backward"):
                loss.backward()
            rec.mark([p.grad for p in w.model.parameters() if p.grad is not None], "parameter_gradient")
            with rec.in_phase("optimizer"):
                opt.step()
        rec.mark(_optimizer_state(opt), "optimizer_state")
        opt.zero_grad(set_to_none=True)
        return loss.detach()


def _optimizer_state(opt: torch.optim.Optimizer) -> list[torch.Tensor]:
    return [v for state in opt.state.values() for v in state.values() if isinstance(v, torch.Tensor)]


def trace_json(rec: Recorder, w: Workload, batch: int) -> dict:
    """The recorded iteration as a DUMP-FORMAT.md section 1 trace (a JSON-ready dict)."""
    ops = [
        {
            "id": o.id, "name": o.name, "op_type": o.op_type, "phase": o.phase, "flops": o.flops,
            "bytes_read": o.bytes_read, "bytes_written": o.bytes_written, "inputs": o.inputs,
            "outputs": o.outputs, "rng": o.rng, "replayable": o.replayable,
        }
        for o in rec.ops
    ]
    tensors = [
        {
            "id": t.id, "bytes": t.bytes, "dtype": t.dtype, "shape": t.shape, "kind": rec.kind(t),
            "producer": None if t.producer is None else {"op": t.producer[0], "slot": t.producer[1]},
            "producer_op_type": t.producer_op_type, "last_forward_use": t.last_forward_use,
            "first_backward_use": t.first_backward_use,
        }
        for t in rec.tensors
    ]
    return {
        "format": TRACE_FORMAT, "version": TRACE_VERSION, "model": w.name, "batch": batch,
        "seq_len": w.seq_len, "device": w.device.type, "dtype": "f32", "ops": ops, "tensors": tensors,
    }


def signature(producer: dict | tuple) -> str:
    """Signature string `op{op}:{slot}` of a producer ({"op","slot"} dict or (op, slot) tuple)."""
    op, slot = (producer["op"], producer["slot"]) if isinstance(producer, dict) else producer
    return f"op{op}:{slot}"
