"""CLI: `planezip-capture MODEL [--out DIR] [--batch B] [--iters 3] [--meta-batch TRAIN_BATCH] ...`

(the console script of the installed package; `python -m capture MODEL ...` from a source tree is
the same).

Captures one model (see `capture.workloads.MODELS`) into DIR, default `$PLANEZIP_CACHE/dumps/MODEL`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import torch

from .pipeline import capture_model, dumps_root
from .workloads import MODELS, TEST_MODELS

# Pretraining steps per model (see README.md for the reasons).
DEFAULT_STEPS = {"efficientnet_lite0": 30, "minilm": 30, "gpt2": 300}


def main(argv=None) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    p = argparse.ArgumentParser(prog="planezip-capture", description=__doc__)
    p.add_argument("model", choices=MODELS + TEST_MODELS)
    p.add_argument("--out", type=Path, help="dump directory (default $PLANEZIP_CACHE/dumps/MODEL)")
    p.add_argument("--batch", type=int, help="capture batch (default: the paper's small batch)")
    p.add_argument("--iters", type=int, default=3, help="captured consecutive iterations")
    p.add_argument("--meta-batch", type=int, help="batch of the meta-device trace (default: Table I)")
    p.add_argument("--steps", type=int, help="pretraining steps before capture (default 100; "
                   + ", ".join(f"{k} {v}" for k, v in DEFAULT_STEPS.items()) + ")")
    p.add_argument("--pretrain-batch", type=int, help="batch of the pretraining steps (default: capture batch)")
    p.add_argument("--pretrain-seq", type=int, help="sequence length of LM pretraining steps")
    p.add_argument("--pretrain-minutes", type=float, help="stop pretraining after this many minutes")
    p.add_argument("--target-val-drop", type=float, default=0.4,
                   help="LMs: stop pretraining once validation loss fell by this fraction (default 0.4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, help="torch intra-op threads")
    a = p.parse_args(argv)
    if a.threads:
        torch.set_num_threads(a.threads)
    out = a.out or dumps_root() / a.model
    steps = a.steps if a.steps is not None else DEFAULT_STEPS.get(a.model, 100)
    capture_model(a.model, out, steps=steps, iters=a.iters, batch=a.batch, meta_batch=a.meta_batch,
                  seed=a.seed, pretrain_seq=a.pretrain_seq, pretrain_batch=a.pretrain_batch,
                  pretrain_seconds=a.pretrain_minutes * 60 if a.pretrain_minutes else None,
                  target_val_drop=a.target_val_drop,
                  log=lambda s: print(s, flush=True))


if __name__ == "__main__":
    main()
