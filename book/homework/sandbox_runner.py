"""The side of homework grading that runs inside a submission's sandbox.

``homework.py grade`` starts one sandbox per submission (see ``sandbox.py``)
and runs this file in it with ``python -I -c <this source>``: no file of the
grader, the checks or the repository is visible in the sandbox. This program

1. reads its instructions (notebook path, answer names, allowed library
   functions) from the grading channel (the two file descriptors its command line names);
2. runs the submission's code cells in order, as a kernel would (IPython's
   ``InteractiveShell``, output discarded, a cell that raises does not stop
   the next ones; ``otter`` is replaced by a stub, so ``grader.check`` does
   nothing and otter's internals cannot be patched);
3. sends the grader the answers it found: plain data
   is sent as data, functions, classes and other objects as handles;
4. from then on, refuses calls from the submission's code into dtree and
   scikit-learn (a wrapper around a library's tree or a delegation to
   ``dtree.information`` fails its checks and is reported), apart from the
   homework's allowed functions, and serves the grader's requests: call a
   handle, read an attribute, index, take a length.

The checks themselves never enter the sandbox. They run in the grader's
process, on values that cross the channel as data (JSON with numbers,
strings, lists, dicts, NumPy arrays and pandas Series), so that nothing the
submission does to its own process can change what they compute or compare.

The codec (:func:`encode`, :func:`decode`) is shared with the grader, which
imports this file as a module.
"""

import base64
import fnmatch
import io
import json
import os
import sys
import traceback
import types

# Message size and nesting limits: a submission cannot make the grader read
# or decode an unbounded value.
MAX_MESSAGE_BYTES = 64 << 20
MAX_DEPTH = 64

# NumPy dtypes that cross the channel as raw bytes (kind codes: bool,
# signed and unsigned integers, floats, complex, times, byte and Unicode strings);
# other arrays (objects) go item by item.
_RAW_KINDS = "biufcmMSU"


class ChannelError(Exception):
    """The grading channel carried something that is not a valid message."""


# --------------------------------------------------------------------------
# The codec: Python values <-> JSON-compatible trees.


def encode(value, handles, depth=0):
    """A JSON-compatible tree for ``value``.

    ``handles(value)`` is called for a value that is not data (a function, a
    class, an object of the submission's own class); it returns an integer
    handle, sent as ``{"handle": n}``.
    """
    import numpy as np

    if depth > MAX_DEPTH:
        raise ChannelError("value nested too deeply")
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return {"v": value}
    if isinstance(value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if array.dtype.kind in _RAW_KINDS:
            data = base64.b64encode(np.ascontiguousarray(array).tobytes()).decode("ascii")
            tree = {"dtype": array.dtype.str, "shape": list(array.shape), "data": data}
        else:
            tree = {"shape": list(array.shape),
                    "items": [encode(item, handles, depth + 1) for item in array.ravel(order="C").tolist()]}
        return {"scalar" if isinstance(value, np.generic) else "ndarray": tree}
    if isinstance(value, bool):  # a subclass of bool: its truth value
        return {"v": bool(value)}
    if isinstance(value, int):
        return {"int": str(int(value))}
    if isinstance(value, float):
        return {"float": repr(float(value))}
    if isinstance(value, str):
        return {"v": str(value)}
    if isinstance(value, (list, tuple)):
        tag = "tuple" if isinstance(value, tuple) else "list"
        return {tag: [encode(item, handles, depth + 1) for item in value]}
    if isinstance(value, dict):
        return {"dict": [[encode(k, handles, depth + 1), encode(v, handles, depth + 1)] for k, v in value.items()]}
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, pandas.Series):
        return {"series": {"values": encode(value.to_numpy(), handles, depth + 1),
                           "index": encode(value.index.to_numpy(), handles, depth + 1),
                           "name": encode(value.name, handles, depth + 1),
                           "dtype": str(value.dtype)}}
    return {"handle": handles(value)}


def decode(tree, resolve, depth=0):
    """The value that :func:`encode` made ``tree`` from; ``resolve(n)`` gives handle ``n``'s object.

    Raises :class:`ChannelError` on anything that is not a tree ``encode`` makes.
    """
    import numpy as np

    if depth > MAX_DEPTH:
        raise ChannelError("value nested too deeply")
    if not isinstance(tree, dict) or len(tree) != 1:
        raise ChannelError(f"not an encoded value: {str(tree)[:80]}")
    ((tag, body),) = tree.items()
    if tag == "v" and (body is None or type(body) in (bool, str)):
        return body
    if tag == "int" and isinstance(body, str) and len(body) <= 4300:
        return int(body)
    if tag == "float" and isinstance(body, str) and len(body) <= 32:
        return float(body)
    if tag in ("list", "tuple") and isinstance(body, list):
        items = [decode(item, resolve, depth + 1) for item in body]
        return tuple(items) if tag == "tuple" else items
    if tag == "dict" and isinstance(body, list):
        out = {}
        for pair in body:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise ChannelError("malformed dict entry")
            key = decode(pair[0], resolve, depth + 1)
            try:
                out[key] = decode(pair[1], resolve, depth + 1)
            except TypeError as error:  # an unhashable key
                raise ChannelError(str(error)) from None
        return out
    if tag in ("ndarray", "scalar") and isinstance(body, dict):
        shape = body.get("shape")
        if not (isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape)):
            raise ChannelError("malformed array shape")
        if "data" in body:
            try:
                dtype = np.dtype(body["dtype"])
            except (TypeError, ValueError):
                raise ChannelError("unknown array dtype") from None
            if dtype.kind not in _RAW_KINDS:
                raise ChannelError("array dtype not allowed")
            raw = base64.b64decode(body["data"], validate=True)
            if len(raw) != dtype.itemsize * int(np.prod(shape, dtype=np.int64)):
                raise ChannelError("array data does not match its shape")
            array = np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
        else:
            items = [decode(item, resolve, depth + 1) for item in body.get("items", [])]
            if len(items) != int(np.prod(shape, dtype=np.int64)):
                raise ChannelError("array items do not match the shape")
            array = np.empty(len(items), dtype=object)
            array[:] = items
            array = array.reshape(shape)
        return array[()] if tag == "scalar" else array
    if tag == "series" and isinstance(body, dict):
        import pandas

        values = decode(body.get("values"), resolve, depth + 1)
        index = decode(body.get("index"), resolve, depth + 1)
        series = pandas.Series(values, index=index, name=decode(body.get("name"), resolve, depth + 1))
        dtype = body.get("dtype")
        if dtype == "category" or (isinstance(dtype, str) and dtype in ("string", "boolean")):
            series = series.astype(dtype)
        return series
    if tag == "handle" and type(body) is int:
        return resolve(body)
    raise ChannelError(f"not an encoded value: {str(tree)[:80]}")


# --------------------------------------------------------------------------
# Reading and writing messages (one JSON document per line).


class Channel:
    """Newline-delimited JSON messages over two file descriptors."""

    def __init__(self, read_fd, write_fd):
        self._in = io.open(read_fd, "rb", buffering=0, closefd=False)
        self._out = io.open(write_fd, "wb", buffering=0, closefd=False)
        self._buffer = b""

    def send(self, message):
        data = json.dumps(message, allow_nan=False).encode() + b"\n"
        view = memoryview(data)
        while view:
            view = view[self._out.write(view):]

    def receive(self):
        while b"\n" not in self._buffer:
            chunk = self._in.read(1 << 20)
            if not chunk:
                raise EOFError("the grader closed the channel")
            self._buffer += chunk
            if len(self._buffer) > MAX_MESSAGE_BYTES:
                raise ChannelError("message too long")
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)


# --------------------------------------------------------------------------
# Refusing library calls from the submission during the checks.

# What the checks reported: library functions the submission's code called.
_refused = []


class LibraryCallRefused(RuntimeError):
    """Raised in the submission when graded code calls a library it must not use."""


def _library_guard(args, kwargs):
    """Body of every guarded library function: run it only for library callers."""
    stub = sys._getframe(1)
    original, name, _ = _guarded[id(stub.f_code)]
    caller = stub.f_back
    filename = caller.f_code.co_filename if caller is not None else ""
    if filename.startswith(_library_roots) or _allowed(name):
        return original(*args, **kwargs)
    if name not in _refused:
        _refused.append(name)
    raise LibraryCallRefused(f"graded code may not call {name}")


_guarded = {}  # id(stub code) -> (original function, qualified name, stub code)
_stub_codes = {}  # number of free variables -> template code
_library_roots = ()
_allowed_patterns = ()


def _allowed(name):
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in _allowed_patterns)


def _stub_code(n_free):
    """A code object ``(*args, **kwargs) -> _library_guard(args, kwargs)`` with ``n_free`` free variables."""
    if n_free not in _stub_codes:
        names = [f"_free{i}" for i in range(n_free)]
        source = "def _outer():\n" + "".join(f"    {name} = None\n" for name in names)
        source += "    def _stub(*args, **kwargs):\n"
        if names:
            source += f"        ({', '.join(names)},)\n"
        source += "        return __dtree_library_guard__(args, kwargs)\n    return _stub\n"
        namespace = {}
        exec(compile(source, "<guard>", "exec"), namespace)
        _stub_codes[n_free] = namespace["_outer"]().__code__
    return _stub_codes[n_free]


def _guard_function(function, name):
    code = function.__code__
    if id(code) in _guarded or not code.co_filename.startswith(_library_roots):
        return  # guarded already, or not the library's own code (e.g. re-exported from the standard library)
    original = types.FunctionType(code, function.__globals__, function.__name__, function.__defaults__,
                                  function.__closure__)
    original.__kwdefaults__ = function.__kwdefaults__
    # Equal code objects compare equal: the line number makes each stub distinct.
    stub = _stub_code(len(code.co_freevars)).replace(co_name=code.co_name, co_filename=f"<guarded {name}>",
                                                     co_firstlineno=len(_guarded) + 1)
    _guarded[id(stub)] = (original, name, stub)
    function.__globals__["__dtree_library_guard__"] = _library_guard
    function.__code__ = stub


def _guard_module(module):
    """Guard every Python function and method defined in ``module``."""
    prefix = module.__name__
    for attribute, value in list(vars(module).items()):
        if isinstance(value, types.FunctionType) and value.__module__ == prefix:
            _guard_function(value, f"{prefix}.{value.__qualname__}")
        elif isinstance(value, type) and value.__module__ == prefix:
            for member in list(vars(value).values()):
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if isinstance(member, property):
                    for accessor in (member.fget, member.fset, member.fdel):
                        if isinstance(accessor, types.FunctionType):
                            _guard_function(accessor, f"{prefix}.{accessor.__qualname__}")
                elif isinstance(member, types.FunctionType):
                    _guard_function(member, f"{prefix}.{member.__qualname__}")


def _is_library(name, libraries):
    return any(name == library or name.startswith(library + ".") for library in libraries)


class _GuardNewModules:
    """A meta path finder that guards library modules imported during the checks."""

    def __init__(self, libraries):
        self.libraries = libraries

    def find_spec(self, name, path=None, target=None):
        if not _is_library(name, self.libraries):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                loader = spec.loader

                class _Loader:
                    def create_module(self, spec, _loader=loader):
                        return _loader.create_module(spec)

                    def exec_module(self, module, _loader=loader):
                        _loader.exec_module(module)
                        _guard_module(module)

                spec.loader = _Loader()
                return spec
        return None


def guard_libraries(libraries, allowed):
    """Guard every loaded (and later imported) module of ``libraries``."""
    global _library_roots, _allowed_patterns
    import importlib.util

    roots = []
    for library in libraries:
        spec = importlib.util.find_spec(library)
        if spec is not None and spec.submodule_search_locations:
            roots.extend(os.path.join(location, "") for location in spec.submodule_search_locations)
    _library_roots = tuple(roots)
    _allowed_patterns = tuple(allowed)
    for name, module in list(sys.modules.items()):
        if isinstance(module, types.ModuleType) and _is_library(name, libraries):
            _guard_module(module)
    sys.meta_path.insert(0, _GuardNewModules(tuple(libraries)))


# --------------------------------------------------------------------------
# Running the notebook.

_tampering = []  # what the submission tried that a notebook has no reason to


class _OtterStub(types.ModuleType):
    """``otter`` as the submission sees it while graded: ``grader.check`` does nothing."""

    __path__ = []  # a package, so that imports of its submodules reach the finder below

    class Notebook:
        def __init__(self, *args, **kwargs):
            pass

        def __getattr__(self, name):
            return lambda *args, **kwargs: None


class _RefuseOtterInternals:
    """Imports of otter's submodules (its test runner) are refused and reported."""

    def find_spec(self, name, path=None, target=None):
        if name.startswith("otter."):
            message = f"imported {name}"
            if message not in _tampering:
                _tampering.append(message)
            raise ImportError(f"{name} is not available while grading")
        return None


def run_notebook(path):
    """Run the code cells of the notebook at ``path``; return the namespace."""
    from IPython.core.interactiveshell import InteractiveShell

    with open(path, encoding="utf-8") as handle:
        notebook = json.load(handle)
    cells = notebook.get("cells", []) if isinstance(notebook, dict) else []
    sources = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            sources.append("".join(source) if isinstance(source, list) else str(source))
    sys.modules["otter"] = _OtterStub("otter")
    sys.meta_path.insert(0, _RefuseOtterInternals())
    shell = InteractiveShell.instance()
    main_pid = os.getpid()
    for source in sources:
        shell.run_cell(source, store_history=False)
        if os.getpid() != main_pid:  # a copy made by os.fork in the cell
            os._exit(0)
    return shell.user_ns


# --------------------------------------------------------------------------
# Serving the grader.


class _Objects:
    """Handles for the objects the grader holds, and stubs for its callbacks."""

    def __init__(self, channel):
        self.channel = channel
        self.by_handle = {}
        self.by_id = {}

    def handle(self, value):
        key = id(value)
        if key not in self.by_id:
            number = len(self.by_handle) + 1
            self.by_handle[number] = value
            self.by_id[key] = number
        return self.by_id[key]

    def resolve(self, number):
        if number > 0:
            try:
                return self.by_handle[number]
            except KeyError:
                raise ChannelError(f"no object {number}") from None
        return self._callback(-number)

    def _callback(self, number):
        channel, objects = self.channel, self

        def callback(*args, **kwargs):
            channel.send({"callback": number, "args": objects.encode(list(args)),
                          "kwargs": objects.encode(kwargs)})
            return serve(channel, objects, until_reply=True)

        return callback

    def encode(self, value):
        return encode(value, self.handle)

    def decode(self, tree):
        return decode(tree, self.resolve)


def _answer(objects, operation, message):
    target = objects.resolve(message["target"])
    if operation == "call":
        args = objects.decode(message["args"])
        kwargs = objects.decode(message["kwargs"])
        return target(*args, **{str(key): value for key, value in kwargs.items()})
    if operation == "getattr":
        return getattr(target, str(message["name"]))
    if operation == "getitem":
        return target[objects.decode(message["key"])]
    if operation == "len":
        return len(target)
    if operation == "list":
        return list(target)
    raise ChannelError(f"unknown request {operation!r}")


def serve(channel, objects, until_reply=False):
    """Answer the grader's requests; with ``until_reply``, return the reply to our callback."""
    while True:
        message = channel.receive()
        if "reply" in message:
            if not until_reply:
                raise ChannelError("a reply nobody asked for")
            if "error" in message:
                raise RuntimeError(message["error"])
            return objects.decode(message["reply"])
        operation = message.get("op")
        if operation == "bye":
            os._exit(0)
        try:
            value = _answer(objects, operation, message)
            reply = {"value": objects.encode(value)}
        except ChannelError:
            raise
        except BaseException as error:  # the submission's exception, reported to the checks
            # The last lines of its traceback say where in the student's code.
            reply = {"raised": type(error).__name__, "message": traceback.format_exc()[-3000:]}
        reply["refused"] = list(_refused)
        channel.send(reply)


def main():
    channel = Channel(int(sys.argv[1]), int(sys.argv[2]))
    instructions = channel.receive()
    sys.stdin = io.StringIO()
    namespace = run_notebook(instructions["notebook"])
    sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
    objects = _Objects(channel)
    answers = {}
    for name in instructions["answers"]:
        if name in namespace:
            try:
                answers[name] = objects.encode(namespace[name])
            except Exception:
                answers[name] = {"handle": objects.handle(namespace[name])}
    guard_libraries(instructions["libraries"], instructions["allowed"])
    channel.send({"ready": answers, "tampering": list(_tampering)})
    serve(channel, objects)


if __name__ == "__main__":
    main()
