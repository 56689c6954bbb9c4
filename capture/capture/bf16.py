"""BF16 as the paper derives it from captured FP32: round-to-nearest-even of the upper 16 bits."""

from __future__ import annotations

import numpy as np


def f32_to_bf16_bits(x: np.ndarray) -> np.ndarray:
    """BF16 bit patterns (uint16) of float32 values by round-to-nearest-even; NaNs stay quiet NaNs.

    The reference conversion for the Rust side: bits + 0x7FFF + (bit 16 of bits), upper half.
    """
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x, dtype=np.float32))
    return np.where(nan, ((bits >> 16) | 0x40).astype(np.uint16), rounded)
