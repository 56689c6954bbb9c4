"""Adjustments that make a CPU (or meta) training iteration save what GPU training saves (paper §IV).

* Dropout: on CUDA, `torch.nn.functional.dropout` runs the fused kernel `aten::native_dropout`,
  whose backward keeps a 1-byte bool mask. On CPU it runs `bernoulli_` + `div_` + `mul` and keeps a
  4-byte float noise tensor instead. `fused_dropout()` routes dropout through `native_dropout` on
  every device.
* Attention: models are built with their non-fused ("eager") attention, which saves the softmax
  output; see `models.py` (`attn_implementation="eager"` for transformers, `fused_attn=False` for
  timm). `assert_no_fused_attention` checks a trace for fused attention kernels.
"""

from __future__ import annotations

import contextlib

import torch
import torch.nn.functional as F

_FUSED_ATTENTION_OPS = ("scaled_dot_product", "flash_attention", "efficient_attention")


def _native_dropout(input, p=0.5, training=True, inplace=False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or input.numel() == 0:
        return input  # what at::dropout returns on CUDA in these cases: no op at all
    out, _mask = torch.ops.aten.native_dropout(input, p, True)
    if inplace:
        return input.copy_(out)
    return out


@contextlib.contextmanager
def fused_dropout():
    """Within the block, `F.dropout` (and so `nn.Dropout`) uses `aten::native_dropout` (bool mask)."""
    original = F.dropout
    F.dropout = _native_dropout
    try:
        yield
    finally:
        F.dropout = original


def assert_no_fused_attention(op_names) -> None:
    """Raise if any op name is a fused attention kernel (whose softmax output is not saved)."""
    fused = sorted({n for n in op_names if any(k in n for k in _FUSED_ATTENTION_OPS)})
    if fused:
        raise AssertionError(f"fused attention ops in trace: {fused}")
