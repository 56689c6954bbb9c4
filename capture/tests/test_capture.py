"""Capture tool tests on two tiny models (a CNN on the real photos, a GPT-2 on real text): seconds."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from safetensors import safe_open

from capture.bf16 import f32_to_bf16_bits
from capture.iteration import signature, train_step
from capture.pipeline import capture_model
from capture.recorder import Recorder
import gzip

from capture.sample import CHUNK_BYTES, allocate, chunk_count, chunk_offsets, sample_model, stored_bytes
from capture.workloads import build


@pytest.fixture(scope="session")
def cnn_dump(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny_cnn")
    meta = capture_model("tiny_cnn", out, steps=2, log=lambda s: None)
    return out, meta


@pytest.fixture(scope="session")
def gpt_dump(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny_gpt")
    meta = capture_model("tiny_gpt", out, steps=2, log=lambda s: None)
    return out, meta


def _trace(dump, name="trace.json"):
    return json.loads((dump / name).read_text())


def _saved(trace):
    return [t for t in trace["tensors"] if t["kind"] == "saved_activation"]


def _load(path, key):
    with safe_open(str(path), framework="pt") as f:
        return f.get_tensor(key)


def test_relu_outputs_contain_zeros(cnn_dump):
    dump, meta = cnn_dump
    relu = [t for t in _saved(_trace(dump)) if t["producer_op_type"] == "relu"]
    assert len(relu) == 2
    for t in relu:
        x = _load(dump / "iter0.safetensors", signature(t["producer"]))
        assert list(x.shape) == t["shape"]
        assert (x == 0).any() and (x > 0).any() and not (x < 0).any()
    assert 0.05 < meta["relu_zero_fraction"] < 0.95


def test_every_saved_tensor_has_a_producer_and_a_backward_use(cnn_dump, gpt_dump):
    for dump, _ in (cnn_dump, gpt_dump):
        trace = _trace(dump)
        ops = trace["ops"]
        for t in _saved(trace):
            assert t["producer"] is not None and t["producer_op_type"]
            producer = ops[t["producer"]["op"]]
            assert producer["phase"] == "forward"
            assert producer["outputs"][t["producer"]["slot"]] == t["id"]
            assert t["first_backward_use"] is not None
            assert ops[t["first_backward_use"]]["phase"] == "backward"
            assert t["id"] in ops[t["first_backward_use"]]["inputs"]


def test_signatures_stable_across_three_iterations(cnn_dump, gpt_dump):
    for dump, meta in (cnn_dump, gpt_dump):
        keys = []
        for k in range(3):
            with safe_open(str(dump / f"iter{k}.safetensors"), framework="pt") as f:
                keys.append(sorted(f.keys()))
        assert keys[0] == keys[1] == keys[2]
        assert keys[0] == sorted(signature(t["producer"]) for t in _saved(_trace(dump)))
        # optimizer updates happen between iterations: contents differ
        sig = keys[0][0]
        assert not torch.equal(_load(dump / "iter0.safetensors", sig), _load(dump / "iter1.safetensors", sig))
        assert [i["iteration"] for i in meta["iterations"]] == [0, 1, 2]


def test_bf16_round_to_nearest_even_of_known_values():
    x = np.array([1.0, 1.00390625, 1.01171875, 1.0 + 2**-8 + 2**-20, -2.5, 0.0, np.inf], dtype=np.float32)
    # 1+2^-8 is a tie -> even (0x3F80); 1+3*2^-8 is a tie -> even (0x3F82); just above a tie rounds up
    assert f32_to_bf16_bits(x).tolist() == [0x3F80, 0x3F80, 0x3F82, 0x3F81, 0xC020, 0x0000, 0x7F80]
    ref = torch.from_numpy(x).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    assert f32_to_bf16_bits(x).tolist() == ref.tolist()
    assert np.isnan(torch.from_numpy(f32_to_bf16_bits(np.array([np.nan], np.float32)).astype(np.int16))
                    .view(torch.bfloat16).float().numpy()[0])


def test_dropout_saves_a_one_byte_mask_and_is_not_replayable(cnn_dump):
    dump, _ = cnn_dump
    trace = _trace(dump)
    drops = [o for o in trace["ops"] if o["op_type"] == "native_dropout"]
    assert len(drops) == 1 and drops[0]["rng"] and not drops[0]["replayable"]
    assert not [o for o in trace["ops"] if o["op_type"] == "bernoulli"]  # no CPU float-noise path
    mask = [t for t in _saved(trace) if t["producer"] == {"op": drops[0]["id"], "slot": 1}]
    assert len(mask) == 1 and mask[0]["dtype"] == "bool" and mask[0]["bytes"] == 2 * 16
    assert all(o["replayable"] for o in trace["ops"] if not o["rng"])


def test_attention_is_not_fused_and_saves_softmax(gpt_dump):
    dump, _ = gpt_dump
    trace = _trace(dump)
    assert not [o for o in trace["ops"] if "scaled_dot_product" in o["name"]]
    softmax = [t for t in _saved(trace) if t["producer_op_type"] == "_softmax"]
    assert len(softmax) == 2  # one per layer
    assert softmax[0]["shape"] == [2, 2, 32, 32]
    probs = _load(dump / "iter0.safetensors", signature(softmax[0]["producer"]))
    assert torch.allclose(probs.sum(-1), torch.ones(2, 2, 32), atol=1e-5)
    assert (probs[..., 0, 1:] == 0).all()  # causal mask: first query sees only itself


def test_parameters_gradients_and_optimizer_state_are_not_activations(gpt_dump):
    dump, _ = gpt_dump
    trace = _trace(dump)
    kinds = {k: [t for t in trace["tensors"] if t["kind"] == k] for k in
             ("parameter", "parameter_gradient", "optimizer_state", "input")}
    model = build("tiny_gpt", "meta").model
    n_params = len({id(p) for p in model.parameters()})
    assert len(kinds["parameter_gradient"]) == n_params
    assert all(t["producer"] is not None for t in kinds["parameter_gradient"])
    assert len(kinds["optimizer_state"]) >= 2 * n_params  # AdamW: exp_avg, exp_avg_sq (+ step)
    assert len(kinds["input"]) == 1 and kinds["input"][0]["dtype"] == "i64"
    phases = [o["phase"] for o in trace["ops"]]
    assert phases == sorted(phases, key=["forward", "backward", "optimizer"].index)
    assert {"forward", "backward", "optimizer"} == set(phases)


def test_meta_trace_matches_capture_at_training_batch(cnn_dump):
    dump, meta = cnn_dump
    cap, train = _trace(dump), _trace(dump, "trace-train.json")
    assert train["device"] == "meta" and train["batch"] == 4 and cap["batch"] == 2
    assert meta["match"]["identical_op_sequence"] and meta["match"]["unmatched_saved_bytes_share"] == 0
    by_sig = {signature(t["producer"]): t for t in _saved(cap)}
    for t in _saved(train):
        other = by_sig[meta["match"]["map"][signature(t["producer"])]]
        if t["shape"] and t["shape"][0] == 4:
            assert other["shape"] == [2] + t["shape"][1:]
    conv = next(o for o in train["ops"] if o["op_type"] == "convolution")
    assert conv["flops"] == 2 * 4 * 8 * 112 * 112 * 3 * 3 * 3


def test_recorder_views_and_inplace_writes():
    rec = Recorder()
    a = torch.ones(4, 4)
    with rec:
        b = a * 2          # fresh tensor
        c = b.t()          # view: no new tensor
        c.add_(1)          # in-place write through the view: new version of b's storage
        d = c.sum()
    names = [o.op_type for o in rec.ops]
    assert names == ["mul", "t", "add", "sum"]
    mul, t, add, s = rec.ops
    assert t.outputs == [] and t.bytes_read == 0
    assert len(add.outputs) == 1 and add.outputs[0] != mul.outputs[0]
    assert rec.tensors[add.outputs[0]].storage is rec.tensors[mul.outputs[0]].storage
    assert s.inputs == add.outputs and float(d) == 48.0


def test_sample_keeps_same_offsets_in_every_iteration(cnn_dump, tmp_path):
    dump, _ = cnn_dump
    index = sample_model(dump, tmp_path, budget_bytes=512 * 1024)
    assert index["chunk_bytes"] == CHUNK_BYTES and index["iterations"] == 3 and index["version"] == 2
    for name in ("trace.json", "trace-train.json"):
        assert gzip.decompress((tmp_path / f"{name}.gz").read_bytes()) == (dump / name).read_bytes()
        assert not (tmp_path / name).exists()
    for k in range(3):
        for sig, e in index["tensors"].items():
            full = _load(dump / f"iter{k}.safetensors", sig).reshape(-1)
            got = _load(tmp_path / f"iter{k}.safetensors", sig)
            item = full.element_size()
            want = torch.cat([full[o // item: min(o + CHUNK_BYTES, e["bytes"]) // item] for o in e["offsets"]])
            assert torch.equal(got, want), sig


def test_sample_offsets_one_per_stratum_covering_the_tensor():
    c = CHUNK_BYTES
    for nbytes, n in [(10 * c, 3), (10 * c + 100, 4), (7 * c, 7), (5 * c + 1, 9), (100, 5), (c, 1), (1000 * c, 37)]:
        offs = chunk_offsets(nbytes, n, "m:sig")
        w = chunk_count(nbytes)
        k = min(n, w)
        assert len(offs) == k and offs == sorted(set(offs))
        assert all(o % c == 0 and 0 <= o < nbytes for o in offs)
        # One chunk in each of k equal strata: together they span the whole tensor.
        assert all(i * w // k <= o // c < (i + 1) * w // k for i, o in enumerate(offs))
        assert chunk_offsets(nbytes, n, "m:sig") == offs  # the same in every run and iteration
    assert chunk_offsets(5 * c + 1, 9, "m:s") == [i * c for i in range(6)]  # whole, partial tail kept
    assert chunk_offsets(100, 5, "m:s") == [0]
    # Offsets are drawn, not pinned at the tensor's start (version 1's offset-0 bias).
    assert len({chunk_offsets(1000 * c, 10, f"m:{i}")[0] for i in range(20)}) > 1


def test_sample_allocation_is_byte_proportional_within_budget():
    c = CHUNK_BYTES
    sizes = [100, 3 * c, 50 * c, 1000 * c, 4000 * c + 7]
    saved = [{"producer": [i, 0], "bytes": b} for i, b in enumerate(sizes)]
    budget = 400 * c
    counts = allocate(saved, budget)
    got = [counts[signature(t["producer"])] for t in saved]
    used = sum(stored_bytes(b, n) for b, n in zip(sizes, got))
    assert used <= budget and all(1 <= n <= chunk_count(b) for n, b in zip(got, sizes))
    assert got[:2] == [1, 1] and used >= budget - 5 * c  # at least one chunk each, the budget spent
    assert abs(got[4] / got[3] - 4.0) < 0.05 and abs(got[2] - got[3] / 20) <= 1  # in proportion to bytes
    assert allocate(saved, 10**9) == {signature(t["producer"]): chunk_count(t["bytes"]) for t in saved}
    assert stored_bytes(100, 1) == 100 and stored_bytes(5 * c + 1, 6) == 5 * c + 1
    # With zero spreads: weight bytes * (spread + byte-weighted mean spread). Tensors 3 and 4 at
    # spreads 0.3 and 0 (mean 0.3 * 1000 / 5053 = 0.059): weights 1000c * 0.359 and 4000c * 0.059,
    # so tensor 3 now gets the larger share (0.359 / 0.237 of tensor 4's).
    spread = {signature(t["producer"]): 0.0 for t in saved} | {signature([3, 0]): 0.3}
    mixed = allocate(saved, budget, spread)
    assert sum(stored_bytes(b, mixed[signature([i, 0])]) for i, b in enumerate(sizes)) <= budget
    assert abs(mixed[signature([3, 0])] / mixed[signature([4, 0])] - 0.359 / 0.237) < 0.05
    assert allocate(saved, budget, {k: 0.0 for k in spread}) == counts  # no spread: bytes alone


def test_train_step_without_recorder_learns():
    w = build("tiny_cnn", "cpu")
    gen = torch.Generator().manual_seed(0)
    batch = w.batch_fn(4, gen)
    losses = [float(train_step(w, batch)) for _ in range(15)]
    assert losses[-1] < losses[0]
