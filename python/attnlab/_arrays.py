"""Arrays from the notebook (torch tensors, numpy arrays, nested lists) as shapes and flat float lists.

Standard library only: a torch tensor or a numpy array is read through its own ``tolist()``, so neither
library is needed to import attnlab. Every check raises an ``AttnLabError`` whose message names the
function and the argument, before anything is displayed.
"""
import math

# A widget draws every value: past these sizes a cell output would be a picture of noise (and megabytes).
MAX_TOKENS = 64
MAX_DIM = 64
MAX_HEADS = 16
MAX_POSITIONS = 256


class AttnLabError(ValueError):
    """Bad input to an attnlab call: the message names the function and the argument."""


def _type_name(x):
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}" if t.__module__ not in ("builtins",) else t.__qualname__


def _shape_text(shape):
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


class Array:
    """A rectangular array read from the notebook: ``shape`` and the values in row-major order."""

    __slots__ = ("shape", "values", "dtype", "kind")

    def __init__(self, shape, values, dtype, kind):
        self.shape = tuple(shape)
        self.values = values
        self.dtype = dtype
        self.kind = kind  # 'torch', 'numpy' or 'list'

    @property
    def ndim(self):
        return len(self.shape)

    def shape_text(self):
        return _shape_text(self.shape)

    def take(self, index):
        """The sub-array at ``index`` of the first axis."""
        inner = 1
        for n in self.shape[1:]:
            inner *= n
        return Array(self.shape[1:], self.values[index * inner:(index + 1) * inner], self.dtype, self.kind)

    def rows(self):
        """A 2-D array as a list of rows."""
        r, c = self.shape
        return [self.values[i * c:(i + 1) * c] for i in range(r)]


def _flatten(nested, fn, arg):
    """Shape and flat values of a nested list; raggedness is an error naming ``arg``."""
    shape = []
    level = nested
    while isinstance(level, (list, tuple)):
        shape.append(len(level))
        if not level:
            break
        level = level[0]
    values = []

    def walk(node, depth, where):
        if depth == len(shape):
            if isinstance(node, (list, tuple)):
                raise AttnLabError(f"{fn}: {arg} is ragged: {where or 'the array'} has more nesting than its first element")
            values.append(node)
            return
        if not isinstance(node, (list, tuple)) or len(node) != shape[depth]:
            n = len(node) if isinstance(node, (list, tuple)) else "a number"
            raise AttnLabError(f"{fn}: {arg} is ragged: {where or 'the array'} has {n} entries where {shape[depth]} were expected")
        for i, child in enumerate(node):
            walk(child, depth + 1, f"{where}[{i}]")

    walk(nested, 0, "")
    return shape, values


def as_array(x, fn, arg):
    """Reads a torch tensor, a numpy array or nested lists of numbers; checks the values are finite."""
    if x is None:
        raise AttnLabError(f"{fn}: {arg} is missing")
    mod = type(x).__module__ or ""
    if mod.startswith("torch") and hasattr(x, "detach"):
        t = x.detach()
        if t.is_complex():
            raise AttnLabError(f"{fn}: {arg} is a complex tensor; attnlab takes real numbers")
        dtype = str(t.dtype).replace("torch.", "")
        shape = list(t.shape)
        values = t.cpu().reshape(-1).tolist()
        kind = "torch"
    elif hasattr(x, "tolist") and hasattr(x, "shape") and hasattr(x, "dtype"):
        dtype = str(x.dtype)
        if getattr(x.dtype, "kind", "f") not in "biuf":
            raise AttnLabError(f"{fn}: {arg} has dtype {dtype}; expected real numbers")
        shape = list(x.shape)
        values = x.reshape(-1).tolist()
        kind = "numpy"
    elif isinstance(x, (list, tuple)):
        shape, values = _flatten(x, fn, arg)
        dtype = "float64"
        kind = "list"
    else:
        raise AttnLabError(f"{fn}: {arg} is a {_type_name(x)}; expected a torch tensor, a numpy array or nested lists of numbers")
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise AttnLabError(f"{fn}: {arg} holds {v!r} (a {_type_name(v)}) at flat index {i}; expected numbers")
        f = float(v)
        if not math.isfinite(f):
            where = _index_text(shape, i)
            raise AttnLabError(f"{fn}: {arg}{where} is {f}; attnlab needs finite numbers (NaN or infinity in the notebook's array)")
        out.append(f)
    if any(n == 0 for n in shape):
        raise AttnLabError(f"{fn}: {arg} has shape {_shape_text(shape)}: no values")
    return Array(shape, out, dtype, kind)


def _index_text(shape, flat):
    idx = []
    for n in reversed(shape):
        idx.append(flat % n if n else 0)
        flat //= n if n else 1
    return "[" + ", ".join(str(i) for i in reversed(idx)) + "]"


def pick(a, fn, arg, want, names, batch, head, head_axis=True):
    """Reduces ``a`` to ``want`` dimensions with the batch (and head) index.

    ``names`` names the wanted axes, e.g. ("tq", "dk"). With one more axis than wanted the first axis is
    the batch (``batch=`` picks it); with two more, (batch, head) (``batch=`` and ``head=``).
    """
    want_text = _shape_text(names)
    extra = a.ndim - want
    if extra < 0 or extra > (2 if head_axis else 1):
        layouts = [want_text, _shape_text(("B",) + tuple(names)) + " with batch="]
        if head_axis:
            layouts.append(_shape_text(("B", "H") + tuple(names)) + " with batch= and head=")
        raise AttnLabError(f"{fn}: {arg} has shape {a.shape_text()} ({a.ndim}-D); expected {' or '.join(layouts)}")
    if extra >= 1:
        if batch is None:
            raise AttnLabError(
                f"{fn}: {arg} has shape {a.shape_text()} ({a.ndim}-D) where {want}-D {want_text} is needed: "
                f"pass batch= (0 to {a.shape[0] - 1}) to pick one sequence of the batch{' and head= to pick a head' if extra == 2 else ''}")
        _index(batch, a.shape[0], fn, "batch", f"{arg}'s first axis")
        a = a.take(batch)
    if extra == 2:
        if head is None:
            raise AttnLabError(f"{fn}: {arg} has a head axis ({a.shape[0]} heads): pass head= (0 to {a.shape[0] - 1})")
        _index(head, a.shape[0], fn, "head", f"{arg}'s head axis")
        a = a.take(head)
    return a


def _index(i, n, fn, arg, what):
    if isinstance(i, bool) or not isinstance(i, int):
        try:
            import operator
            i = operator.index(i)
        except TypeError:
            raise AttnLabError(f"{fn}: {arg} is {i!r}; expected an integer index into {what} (0 to {n - 1})") from None
    if not 0 <= i < n:
        raise AttnLabError(f"{fn}: {arg}={i} is out of range: {what} has {n} entries (0 to {n - 1})")
    return i


def check_size(n, limit, fn, what):
    if n > limit:
        raise AttnLabError(f"{fn}: {what} is {n}; a widget shows at most {limit} (slice the array first)")


def tokens_for(tokens, n, fn, arg="tokens"):
    """Row/column labels: the notebook's strings, or positions 0…n-1."""
    if tokens is None:
        return [str(i) for i in range(n)]
    if isinstance(tokens, str):
        tokens = tokens.split()
    try:
        tokens = [str(t) for t in tokens]
    except TypeError:
        raise AttnLabError(f"{fn}: {arg} is a {_type_name(tokens)}; expected a list of strings") from None
    if len(tokens) != n:
        raise AttnLabError(f"{fn}: {arg} has {len(tokens)} entries; expected {n} (one per position)")
    return tokens
