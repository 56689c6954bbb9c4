#!/usr/bin/env python3
"""Writes a synthetic .safetensors file of one f32 tensor `x` of ELEMENTS zeros, sparse: only the
header is written and the file is extended to its size, so an 8 GB tensor takes no disk space and
no time. For the scale measurement of `sim-harness ratios` in BENCHMARKS.md.

Usage: scripts/sparse-tensor.py OUT.safetensors ELEMENTS   (2147483648 elements = 8 GiB)
"""
import struct
import sys

path, elements = sys.argv[1], int(sys.argv[2])
data_bytes = elements * 4
header = '{"x":{"dtype":"F32","shape":[%d],"data_offsets":[0,%d]}}' % (elements, data_bytes)
header += " " * (-len(header) % 8)
with open(path, "wb") as f:
    f.write(struct.pack("<Q", len(header)))
    f.write(header.encode())
    f.truncate(8 + len(header) + data_bytes)
