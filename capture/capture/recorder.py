"""Record every ATen operator of one training iteration and the tensors it reads and writes.

A *tensor* in the trace is one version of one storage: a fresh op output starts a new tensor, an
in-place or `out=` write to an existing storage starts a new tensor on the same storage, and a view
(an output that aliases an input without writing it) is no new tensor at all: reads through the
view are reads of the storage's current tensor. This is the object-level view of memory the paper
uses ("for every tensor storage its producing operator, its size, and every read and write").

`Recorder` is a `TorchDispatchMode` (sees every ATen op below autograd, on any device, including
`meta`) and supplies the pack hook for `torch.autograd.graph.saved_tensors_hooks`, which marks the
tensors autograd saves for the backward pass.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten
from torch.utils.flop_counter import flop_registry

PHASES = ("forward", "backward", "optimizer")

DTYPE_NAMES = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.float64: "f64",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.uint8: "u8",
    torch.bool: "bool",
}

# Tensor kinds of DUMP-FORMAT.md section 1 that are assigned by marking storages from outside
# (`Recorder.mark`); `saved_activation` and `activation` are derived.
MARKED_KINDS = ("input", "parameter", "parameter_gradient", "optimizer_state")


def dtype_name(dtype: torch.dtype) -> str:
    """Trace name of a torch dtype (`torch.float32` -> `"f32"`); raises on dtypes the format lacks."""
    try:
        return DTYPE_NAMES[dtype]
    except KeyError:
        raise ValueError(f"dtype {dtype} has no name in the dump format") from None


def op_name(func) -> str:
    """Full ATen overload name, e.g. `aten::convolution.default`."""
    return f"{func._schema.name}.{func._overloadname}"


def op_type(func) -> str:
    """Short operator type: packet name without namespace and without the in-place `_` suffix."""
    name = func._schema.name.split("::", 1)[-1]
    return name[:-1] if name.endswith("_") and not name.endswith("__") else name


@dataclass
class OpRecord:
    """One ATen op as in DUMP-FORMAT.md section 1 (`bytes_*` in bytes, `flops` multiply-add = 2)."""

    id: int
    name: str
    op_type: str
    phase: str
    flops: int
    bytes_read: int
    bytes_written: int
    inputs: list[int]
    outputs: list[int]
    rng: bool
    replayable: bool


@dataclass
class TensorRecord:
    """One storage version as in DUMP-FORMAT.md section 1 (`bytes`: storage size in bytes)."""

    id: int
    bytes: int
    dtype: str
    shape: list[int]
    storage: "_StorageEntry"
    producer: tuple[int, int] | None = None
    producer_op_type: str | None = None
    last_forward_use: int | None = None
    first_backward_use: int | None = None
    saved: bool = False
    read_in_backward: bool = False


@dataclass
class _StorageEntry:
    """A live storage seen during recording and the tensor ids of its successive versions."""

    ref: StorageWeakRef
    versions: list[int] = field(default_factory=list)
    kind: str | None = None


class Recorder(TorchDispatchMode):
    """Dispatch mode that logs ops and tensors; use `pack_hook` with `saved_tensors_hooks`.

    With `keep_saved=True` it also keeps a reference to every saved tensor (for dumping contents;
    CPU runs only) in `saved_refs[tensor_id] = (tensor, version_at_pack)`.
    """

    def __init__(self, keep_saved: bool = False):
        super().__init__()
        self.ops: list[OpRecord] = []
        self.tensors: list[TensorRecord] = []
        self.phase = "forward"
        self.keep_saved = keep_saved
        self.saved_refs: dict[int, tuple[torch.Tensor, int]] = {}
        self._storages: dict[int, _StorageEntry] = {}

    # ---- storages and tensors -------------------------------------------------------------
    def _entry(self, t: torch.Tensor) -> _StorageEntry | None:
        """The live storage entry of `t`, or None if this storage has not been seen."""
        storage = t.untyped_storage()
        entry = self._storages.get(storage._cdata)
        if entry is None or entry.ref.expired():
            return None
        return entry

    def _new_tensor(self, t: torch.Tensor, entry: _StorageEntry | None) -> TensorRecord:
        storage = t.untyped_storage()
        if entry is None:
            entry = _StorageEntry(ref=StorageWeakRef(storage))
            self._storages[storage._cdata] = entry
        rec = TensorRecord(
            id=len(self.tensors),
            bytes=int(storage.nbytes()),
            dtype=dtype_name(t.dtype),
            shape=list(t.shape),
            storage=entry,
        )
        self.tensors.append(rec)
        entry.versions.append(rec.id)
        return rec

    def tensor_of(self, t: torch.Tensor) -> TensorRecord:
        """Current tensor record of `t`'s storage; registers an unseen storage without producer."""
        entry = self._entry(t)
        if entry is None:
            return self._new_tensor(t, None)
        return self.tensors[entry.versions[-1]]

    def mark(self, tensors, kind: str) -> None:
        """Mark the storages of `tensors` (all their versions) with `kind`, one of MARKED_KINDS."""
        if kind not in MARKED_KINDS:
            raise ValueError(f"unknown marked kind {kind!r}")
        for t in tensors:
            if isinstance(t, torch.Tensor):
                self.tensor_of(t).storage.kind = kind

    @contextlib.contextmanager
    def in_phase(self, phase: str):
        """Attribute the ops run inside the block to `phase` (forward, backward or optimizer)."""
        if phase not in PHASES:
            raise ValueError(f"unknown phase {phase!r}")
        if PHASES.index(phase) < PHASES.index(self.phase):
            raise ValueError(f"phase {phase} after {self.phase}: phases must be contiguous")
        self.phase = phase
        yield

    # ---- saved-tensor hooks -----------------------------------------------------------------
    def pack_hook(self, t: torch.Tensor) -> torch.Tensor:
        """Pack hook for `saved_tensors_hooks`: marks `t`'s current tensor as saved, returns `t`."""
        rec = self.tensor_of(t)
        rec.saved = True
        if self.keep_saved and rec.id not in self.saved_refs:
            self.saved_refs[rec.id] = (t, t._version)
        return t

    @staticmethod
    def unpack_hook(t: torch.Tensor) -> torch.Tensor:
        """Unpack hook for `saved_tensors_hooks`: the identity."""
        return t

    def saved_tensor_hooks(self):
        """`saved_tensors_hooks` context wired to this recorder."""
        return torch.autograd.graph.saved_tensors_hooks(self.pack_hook, self.unpack_hook)

    # ---- dispatch ---------------------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        flat_in = [a for a in tree_flatten((args, kwargs))[0] if isinstance(a, torch.Tensor)]
        written_args = _written_arguments(func, args, kwargs)
        in_records = []
        for t in flat_in:
            rec = self.tensor_of(t)
            if rec.id not in [r.id for r in in_records]:
                in_records.append(rec)
        out = func(*args, **kwargs)

        op_id = len(self.ops)
        flat_out = [o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor)]
        written_keys = {w.untyped_storage()._cdata: w for w in written_args}
        out_records: list[TensorRecord] = []
        bytes_written = 0
        done_keys = set()
        for o in flat_out + list(written_keys.values()):
            key = o.untyped_storage()._cdata
            if key in done_keys:
                continue
            entry = self._entry(o)
            if entry is not None and key not in written_keys:
                continue  # a view of a tensor already known: no new data
            done_keys.add(key)
            rec = self._new_tensor(o, entry)
            rec.producer = (op_id, len(out_records))
            rec.producer_op_type = op_type(func)
            out_records.append(rec)
            bytes_written += o.numel() * o.element_size()

        moves_data = bool(out_records)
        bytes_read = sum(t.numel() * t.element_size() for t in flat_in) if moves_data else 0
        for rec in in_records:
            if self.phase == "forward":
                rec.last_forward_use = op_id
            elif self.phase == "backward":
                if rec.first_backward_use is None:
                    rec.first_backward_use = op_id
                rec.read_in_backward = True
        rng = torch.Tag.nondeterministic_seeded in func.tags
        bitwise_nondet = torch.Tag.nondeterministic_bitwise in func.tags
        self.ops.append(
            OpRecord(
                id=op_id,
                name=op_name(func),
                op_type=op_type(func),
                phase=self.phase,
                flops=_flops(func, args, kwargs, out),
                bytes_read=int(bytes_read),
                bytes_written=int(bytes_written),
                inputs=[r.id for r in in_records],
                outputs=[r.id for r in out_records],
                rng=rng,
                replayable=not (rng or bitwise_nondet),
            )
        )
        return out

    # ---- results ----------------------------------------------------------------------------
    def kind(self, rec: TensorRecord) -> str:
        """Kind of a tensor (DUMP-FORMAT.md section 1) once the iteration is complete."""
        if rec.storage.kind is not None:
            return rec.storage.kind
        if rec.saved and rec.producer is not None and self.ops[rec.producer[0]].phase == "forward":
            return "saved_activation"
        return "activation"

    def saved_activations(self) -> list[TensorRecord]:
        """Tensors of kind `saved_activation`, in id order."""
        return [t for t in self.tensors if self.kind(t) == "saved_activation"]


def _written_arguments(func, args, kwargs) -> list[torch.Tensor]:
    """Tensor arguments that the op's schema declares as written (`Tensor(a!)`), in order."""
    written = []
    schema_args = func._schema.arguments
    for i, arg in enumerate(schema_args):
        if arg.alias_info is None or not arg.alias_info.is_write:
            continue
        if arg.kwarg_only or i >= len(args):
            value = kwargs.get(arg.name)
        else:
            value = args[i]
        for v in tree_flatten(value)[0]:
            if isinstance(v, torch.Tensor):
                written.append(v)
    return written


def _flops(func, args, kwargs, out) -> int:
    """FLOPs of one op from torch's flop counter registry (multiply-add = 2); 0 where none exists."""
    counter = flop_registry.get(func._overloadpacket)
    if counter is None:
        return 0
    return int(counter(*args, **kwargs, out_val=out))
