"""Real training data available offline, standing in for the paper's datasets.

* Images (stand-in for the 1,000 ImageNet sample images): the real photographs that ship inside
  installed packages: scikit-image's `skimage.data`, scikit-learn's sample images and matplotlib's
  sample photo. Each photo is its own class (label = index in `PHOTO_NAMES`), as the ImageNet
  sample set has one image per class. Augmentation: random-resized-crop (scale 0.08-1, ratio 3/4-4/3)
  to 224 px + horizontal flip, ImageNet mean/std normalisation.
* Text (stand-in for WikiText-2): the reStructuredText sources of the Python 3.11 documentation
  (Debian package `python3.11-doc`, fetched with `apt-get download`, unpacked with `dpkg-deb -x`,
  not installed), ~11 MB of English prose and code, concatenated in sorted path order.
"""

from __future__ import annotations

import math
import os
import subprocess
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch
import torchvision.transforms.functional as TF

IMAGE_STAND_IN = (
    "21 real photographs shipped in installed packages (skimage.data, sklearn sample images, "
    "matplotlib grace_hopper.jpg), one class per photo, random-resized-crop 224 + flip; "
    "stands in for the 1,000 ImageNet sample images"
)
TEXT_STAND_IN = (
    "reST sources of the Python 3.11 docs (Debian python3.11-doc, ~11 MB), "
    "95/5 train/validation split by position; stands in for WikiText-2"
)

# skimage.data photos (colour and grey), sklearn sample images, matplotlib sample photo.
PHOTO_NAMES = (
    "skimage:astronaut", "skimage:chelsea", "skimage:coffee", "skimage:rocket",
    "skimage:hubble_deep_field", "skimage:immunohistochemistry", "skimage:retina",
    "skimage:stereo_motorcycle:0", "skimage:stereo_motorcycle:1", "skimage:camera",
    "skimage:coins", "skimage:moon", "skimage:page", "skimage:text", "skimage:clock",
    "skimage:brick", "skimage:grass", "skimage:gravel",
    "sklearn:china.jpg", "sklearn:flower.jpg", "matplotlib:grace_hopper.jpg",
)
IMAGE_SIZE = 224
_MEAN = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
_STD = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)


def cache_dir() -> Path:
    """Root of the capture cache: `$PLANEZIP_CACHE`, default `~/.cache/planezip`."""
    return Path(os.environ.get("PLANEZIP_CACHE", Path.home() / ".cache" / "planezip"))


def _load_photo(name: str) -> np.ndarray:
    source, _, rest = name.partition(":")
    if source == "skimage":
        import skimage.data

        attr, _, index = rest.partition(":")
        img = getattr(skimage.data, attr)()
        if index:
            img = img[int(index)]
    elif source == "sklearn":
        from sklearn.datasets import load_sample_image

        img = load_sample_image(rest)
    elif source == "matplotlib":
        import matplotlib.cbook
        import matplotlib.image

        with matplotlib.cbook.get_sample_data(rest) as f:
            img = matplotlib.image.imread(f, format="jpg")
    else:
        raise ValueError(f"unknown photo source in {name!r}")
    img = np.asarray(img)
    if img.ndim == 2:
        img = np.stack([img] * 3, axis=-1)
    return np.ascontiguousarray(img[..., :3]).astype(np.uint8)


@lru_cache(maxsize=1)
def photos() -> tuple[torch.Tensor, ...]:
    """All stand-in photos as uint8 CHW tensors, in `PHOTO_NAMES` order."""
    return tuple(torch.from_numpy(_load_photo(n)).permute(2, 0, 1).contiguous() for n in PHOTO_NAMES)


def _random_resized_crop(img: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """torchvision's RandomResizedCrop(224) sampling, driven by `gen`, plus a random flip."""
    _, h, w = img.shape
    area = h * w
    for _ in range(10):
        target = area * (0.08 + (1.0 - 0.08) * torch.rand((), generator=gen).item())
        log_r = math.log(3 / 4) + (math.log(4 / 3) - math.log(3 / 4)) * torch.rand((), generator=gen).item()
        ratio = math.exp(log_r)
        cw = int(round(math.sqrt(target * ratio)))
        ch = int(round(math.sqrt(target / ratio)))
        if 0 < cw <= w and 0 < ch <= h:
            top = int(torch.randint(0, h - ch + 1, (), generator=gen))
            left = int(torch.randint(0, w - cw + 1, (), generator=gen))
            break
    else:  # central crop fallback, as torchvision
        ch, cw = min(h, w), min(h, w)
        top, left = (h - ch) // 2, (w - cw) // 2
    crop = TF.resized_crop(img, top, left, ch, cw, [IMAGE_SIZE, IMAGE_SIZE], antialias=True)
    if torch.rand((), generator=gen).item() < 0.5:
        crop = TF.hflip(crop)
    return crop


def image_batch(batch: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of augmented photos: (images f32 [batch, 3, 224, 224] normalised, labels i64 [batch])."""
    imgs = photos()
    labels = torch.randint(0, len(imgs), (batch,), generator=gen)
    x = torch.stack([_random_resized_crop(imgs[int(i)], gen) for i in labels]).float() / 255.0
    return normalize(x), labels


def normalize(x: torch.Tensor) -> torch.Tensor:
    """ImageNet mean/std normalisation of f32 images in [0, 1], [N, 3, H, W]."""
    return (x - _MEAN) / _STD


def corpus_dir() -> Path:
    """Directory holding the unpacked python3.11-doc package (fetched on first use)."""
    return cache_dir() / "corpus"


def corpus_text() -> str:
    """The text stand-in: all `_sources/**/*.rst.txt` of python3.11-doc, concatenated, sorted by path.

    Fetches the .deb with `apt-get download` and unpacks it with `dpkg-deb -x` if absent.
    """
    root = corpus_dir()
    sources = root / "x" / "usr" / "share" / "doc" / "python3.11" / "html" / "_sources"
    if not sources.is_dir():
        root.mkdir(parents=True, exist_ok=True)
        subprocess.run(["apt-get", "download", "python3.11-doc"], cwd=root, check=True)
        deb = sorted(root.glob("python3.11-doc_*.deb"))[-1]
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root / "x")], check=True)
    files = sorted(sources.rglob("*.rst.txt"))
    return "\n\n".join(f.read_text(encoding="utf-8", errors="replace") for f in files)


def split_text(text: str, val_fraction: float = 0.05) -> tuple[str, str]:
    """(train, validation) split of the corpus by position: the last `val_fraction` is validation."""
    cut = int(len(text) * (1.0 - val_fraction))
    return text[:cut], text[cut:]
