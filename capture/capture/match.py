"""Map the saved tensors of a training-batch (meta) trace to their captured counterparts by signature."""

from __future__ import annotations

import difflib

from .iteration import signature


def match_saved(train_trace: dict, capture_trace: dict) -> dict:
    """Align the two op sequences by op name and map saved activations through the alignment.

    A saved activation of `train_trace` produced by op `i`, slot `s` matches when op `i` aligns to
    capture op `j` and the capture trace has a saved activation produced by (`j`, `s`) with the same
    dtype. Returns {"map": {train signature: capture signature}, "unmatched": [train signatures],
    "unmatched_saved_bytes_share": fraction of the training trace's saved bytes left unmatched,
    "identical_op_sequence": bool}.
    """
    a = [o["name"] for o in train_trace["ops"]]
    b = [o["name"] for o in capture_trace["ops"]]
    op_map = {}
    for block in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            op_map[block.a + k] = block.b + k
    captured = {
        (t["producer"]["op"], t["producer"]["slot"]): t
        for t in capture_trace["tensors"] if t["kind"] == "saved_activation"
    }
    mapping, unmatched, total, lost = {}, [], 0, 0
    for t in train_trace["tensors"]:
        if t["kind"] != "saved_activation":
            continue
        total += t["bytes"]
        op, slot = t["producer"]["op"], t["producer"]["slot"]
        other = captured.get((op_map.get(op, -1), slot))
        if other is not None and other["dtype"] == t["dtype"]:
            mapping[signature(t["producer"])] = signature(other["producer"])
        else:
            unmatched.append(signature(t["producer"]))
            lost += t["bytes"]
    return {
        "map": mapping, "unmatched": unmatched,
        "unmatched_saved_bytes_share": round(lost / total, 6) if total else 0.0,
        "identical_op_sequence": a == b,
    }
