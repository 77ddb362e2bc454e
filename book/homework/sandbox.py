"""One sandbox per submission: bubblewrap, resource limits, and the grading channel.

``homework.py grade`` calls :func:`open_submission` for each notebook. The
submission's code runs in a `bubblewrap <https://github.com/containers/bubblewrap>`_
sandbox (Debian/Ubuntu package ``bubblewrap``) with

* its own PID, network, IPC, UTS and user namespaces: no network, no view of
  any other process (the grader, the other submissions), and every process it
  starts dies when the sandbox is killed (``--die-with-parent``, PID 1 of the
  namespace gone);
* a read-only file system made of the operating system's ``/usr`` and the
  Python environment (the interpreter and the installed packages, without
  dtree and scikit-learn: ``sandbox_runner.py`` answers their imports with
  stubs, and the grader runs the few functions a homework allows), a private
  writable copy of its notebook in ``/home/student`` and a small ``/tmp``,
  both in-memory with a size limit; the repository, the reference
  solutions, the checks, the grader and the other submissions are not in it;
* limits: address space per process (memory), CPU time, file size, and the
  number of processes and threads (counted inside the sandbox's user
  namespace); where the grader may create a cgroup (root, cgroup v1 or v2),
  the memory and the number of processes of the whole sandbox are limited
  there too (root needs one: the kernel exempts root from the process limit).

The grader talks to the program inside (``sandbox_runner.py``) over two
pipes. Every read and write has a deadline, so a submission cannot stall the
grader;
:meth:`Submission.close` kills the sandbox and everything in it.
"""

import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import sandbox_runner as wire

HERE = Path(__file__).resolve().parent
RUNNER_SOURCE = (HERE / "sandbox_runner.py").read_text()

DEFAULT_MEMORY = 2 << 30  # bytes of address space per process (and, with a cgroup, of memory per sandbox)
DEFAULT_PROCESSES = 32  # processes and threads per sandbox
DEFAULT_DISK = 64 << 20  # bytes in each of /home/student and /tmp
WORK = "/home/student"
LIBRARIES = ("dtree", "sklearn")  # not in the sandbox: imports give stubs that ask the grader
MINIMUM_BWRAP = (0, 7)  # --size of a tmpfs


class SandboxUnavailable(RuntimeError):
    """bubblewrap is missing or cannot create namespaces on this machine."""


class SubmissionGone(Exception):
    """The sandbox ended, timed out, or broke the channel protocol."""


class SubmissionRaised(Exception):
    """The submission's code raised; the message names the exception."""


def bwrap_path():
    """The bubblewrap executable, or raise :class:`SandboxUnavailable` saying how to get it."""
    path = shutil.which("bwrap")
    if path is None:
        raise SandboxUnavailable(
            "homework grading runs each submission in a bubblewrap sandbox and bwrap is not installed: "
            "install it (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap)")
    return path


def check_available():
    """Start one empty sandbox; raise :class:`SandboxUnavailable` with bubblewrap's message if it fails.

    Also removes the cgroups of graders that were killed before they could.
    """
    found = subprocess.run([bwrap_path(), "--version"], capture_output=True, text=True).stdout.split()
    version = tuple(int(part) for part in found[-1].split(".")[:2]) if found else (0, 0)
    if version < MINIMUM_BWRAP:
        raise SandboxUnavailable(
            f"bubblewrap {'.'.join(map(str, MINIMUM_BWRAP))} or newer is needed (for --size); "
            f"this machine has {found[-1] if found else 'an unknown version'}")
    for stale in Path("/sys/fs/cgroup").glob("**/dtree-grade-*"):
        pid = stale.name.split("-")[2]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            _remove_cgroups([stale])
    _remove_cgroups(_cgroup(DEFAULT_MEMORY, DEFAULT_PROCESSES))  # as root: a cgroup can be made
    config_fd = _config_fd()
    try:
        args = command(None, None, None, None, config_fd=config_fd)
        result = subprocess.run(args[: args.index("-I") + 1] + ["-c", "pass"], capture_output=True, text=True,
                                timeout=60, pass_fds=() if config_fd is None else (config_fd,))
    finally:
        if config_fd is not None:
            os.close(config_fd)
    if result.returncode != 0:
        raise SandboxUnavailable(f"bubblewrap cannot start a sandbox here: {result.stderr.strip()}")


VENV_VIEW = "/opt/venv"  # where the sandbox sees the grader's virtual environment


def _python_layout():
    """``(binds, executable, hidden, config)``: how the sandbox sees this Python.

    The Python installation (``sys.base_prefix``, resolved) is bound where it
    is: its interpreter finds its libraries by that path. A virtual
    environment is not: its packages (``lib``) and its interpreter are bound
    under :data:`VENV_VIEW` with a ``pyvenv.cfg`` of the grader's making
    (``config``), so that no path of the host's environment, which lives in the
    repository or beside it, shows in the sandbox's ``sys.path``,
    ``sys.executable`` or environment, and the environment's ``bin`` (whose
    scripts name it) is not there at all. Every path is resolved first: an
    environment reached through a symbolic link works. ``binds`` is a list of
    ``(host path, sandbox path)``; ``hidden`` what the sandbox must not see of
    dtree and scikit-learn (see :func:`_hidden_libraries`).
    """
    base = Path(os.path.realpath(sys.base_prefix))
    prefix = Path(os.path.realpath(sys.prefix))
    interpreter = Path(os.path.realpath(sys.executable))
    binds = [(str(base), str(base))]
    if not interpreter.is_relative_to(base) and not interpreter.is_relative_to(prefix):
        # the interpreter of another installation (a copy inside the environment is bound alone, below)
        binds.append((str(interpreter.parent.parent), str(interpreter.parent.parent)))
    system = Path("/usr")  # bound as it is: its Python packages (Debian's) are searched too
    if prefix == base:  # no virtual environment
        return binds, str(interpreter), _hidden_libraries({base: base, system: system}), None
    view = Path(VENV_VIEW)
    binds.append((str(prefix / "lib"), str(view / "lib")))
    executable = view / "bin" / interpreter.name
    binds.append((str(interpreter), str(executable)))
    home = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    config = (f"home = {Path(home).parent}\ninclude-system-site-packages = false\n"
              f"version = {'.'.join(map(str, sys.version_info[:3]))}\n")
    return binds, str(executable), _hidden_libraries({prefix / "lib": view / "lib", base: base, system: system}), \
        config


def _memory_file(data, name):
    """A file descriptor of an in-memory file holding ``data`` (bytes), at offset 0."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _config_fd():
    """The ``pyvenv.cfg`` of :func:`_python_layout` as a file descriptor, or None (no environment)."""
    config = _python_layout()[3]
    return None if config is None else _memory_file(config.encode(), "pyvenv.cfg")


def _cgroup(memory, processes):
    """Create a cgroup limiting the sandbox's memory and processes; return its folders (maybe none)."""
    name = f"dtree-grade-{os.getpid()}-{time.monotonic_ns()}"
    made = []
    root = Path("/sys/fs/cgroup")
    try:
        if (root / "cgroup.controllers").exists():  # cgroup v2
            group = root / name
            group.mkdir()
            made.append(group)
            (group / "pids.max").write_text(str(processes))
            (group / "memory.max").write_text(str(memory))
            (group / "memory.swap.max").write_text("0")
        else:  # cgroup v1
            for controller, settings in (("pids", {"pids.max": processes}),
                                         ("memory", {"memory.limit_in_bytes": memory})):
                group = root / controller / name
                group.mkdir()
                made.append(group)
                for key, value in settings.items():
                    (group / key).write_text(str(value))
    except OSError:
        pass  # not allowed here: the rlimits still apply
    if os.getuid() == 0 and not any((group / "pids.max").exists() for group in made):
        _remove_cgroups(made)
        raise SandboxUnavailable(
            "grading as root needs a cgroup to limit the number of processes (the kernel does not apply "
            "RLIMIT_NPROC to root) and none could be created under /sys/fs/cgroup: grade as an unprivileged "
            "user (bubblewrap then uses a user namespace) or give the grader a writable cgroup")
    return made


def _remove_cgroups(groups):
    for group in groups:
        for _ in range(50):
            try:
                pids = (group / "cgroup.procs").read_text().split()
            except OSError:
                break
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (OSError, ValueError):
                    pass
            time.sleep(0.02)
        try:
            group.rmdir()
        except OSError:
            pass


def _hidden_libraries(views):
    """What of LIBRARIES the sandbox must not see, as ``(folders, sites)`` of sandbox paths.

    ``views`` maps host folders to where the sandbox sees them. ``folders``
    are the libraries' package folders (shown empty). ``sites`` lists, for
    each site-packages folder that holds a library's installed files (its
    package, its metadata, an editable install's finder and ``.pth`` file,
    which name the repository's path), ``(sandbox folder, [(host entry,
    sandbox entry), ...])``: the folder is rebuilt in the sandbox from its
    other entries, so that those files are not there at all.
    """
    import importlib.metadata
    import importlib.util

    def seen(path):  # where the sandbox sees a host path, or None
        resolved = Path(os.path.realpath(path))
        for host, view in views.items():
            if resolved.is_relative_to(host):
                return view / resolved.relative_to(host)
        return None

    folders = set()
    for library in LIBRARIES:
        spec = importlib.util.find_spec(library)
        for location in (spec.submodule_search_locations or []) if spec else []:
            if seen(location) is not None:
                folders.add(str(seen(location)))
    # Every site folder the sandbox can see, not only those on the grader's
    # sys.path: a submission may add the base installation's to its own.
    sites = {Path(os.path.realpath(path)) for path in sys.path if os.path.isdir(path)}
    for host in views:
        for pattern in ("lib/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages",
                        "local/lib/python3*/dist-packages", "local/lib/python3*/site-packages"):
            sites.update(Path(os.path.realpath(path)) for path in host.glob(pattern))
    records = {}
    for distribution in importlib.metadata.distributions(path=sorted(map(str, sites))):
        name = (distribution.metadata["Name"] or "").lower().replace("-", "_")
        if name not in ("dtree", "scikit_learn"):
            continue
        site = Path(os.path.realpath(distribution.locate_file("")))
        for record in distribution.files or []:
            parts = Path(str(record)).parts
            if parts and parts[0] != "..":
                records.setdefault(site, set()).add(parts[0])
    rebuilt = []
    for site, names in sorted(records.items()):
        if seen(site) is None or not site.is_dir():
            continue
        entries = [(str(site / entry), str(seen(site) / entry)) for entry in sorted(os.listdir(site))
                   if entry not in names]
        rebuilt.append((str(seen(site)), entries))
        folders = {folder for folder in folders if not Path(folder).is_relative_to(seen(site))}
    return sorted(folders), rebuilt


def command(notebook_fd, read_fd, write_fd, name, disk=DEFAULT_DISK, processes=DEFAULT_PROCESSES,
            config_fd=None):
    """The bubblewrap command line that runs ``sandbox_runner.py`` on notebook ``name``.

    ``config_fd`` holds the ``pyvenv.cfg`` of :func:`_python_layout` (where
    the grader runs in a virtual environment).
    """
    binds, executable, hidden, _ = _python_layout()
    args = [bwrap_path(), "--unshare-all", "--die-with-parent", "--new-session",
            "--uid", "1000", "--gid", "1000", "--hostname", "sandbox", "--clearenv",
            "--ro-bind", "/usr", "/usr"]
    for link in ("bin", "lib", "lib32", "lib64", "sbin"):
        if os.path.islink(f"/{link}"):
            args += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
        elif os.path.isdir(f"/{link}"):
            args += ["--ro-bind", f"/{link}", f"/{link}"]
    # The scratch folders first: the environment may live below /tmp (a CI
    # clone), and a bind made after the tmpfs shows through it.
    args += ["--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
             "--size", str(disk), "--tmpfs", "/tmp",
             "--size", str(disk), "--tmpfs", WORK]
    for host, view in binds:
        args += ["--ro-bind", host, view]
    if config_fd is not None:
        args += ["--file", str(config_fd), f"{VENV_VIEW}/pyvenv.cfg"]
    # dtree and scikit-learn are not in the sandbox (sandbox_runner gives stubs).
    folders, sites = hidden
    for folder in folders:
        args += ["--tmpfs", folder, "--remount-ro", folder]
    for folder, entries in sites:  # rebuilt from its other entries, then read-only
        args += ["--tmpfs", folder]
        for host, view in entries:
            args += ["--ro-bind", host, view]
        args += ["--remount-ro", folder]
    if notebook_fd is not None:
        args += ["--file", str(notebook_fd), f"{WORK}/{name}.ipynb"]
    args += ["--remount-ro", "/", "--chdir", WORK]
    environment = {"HOME": WORK, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
                   "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                   "MPLCONFIGDIR": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"}
    for key, value in environment.items():
        args += ["--setenv", key, value]
    return args + [executable, "-I", "-c", RUNNER_SOURCE, str(read_fd), str(write_fd), str(processes)]


class NotASubmission(Exception):
    """The submitted file is not a notebook that can be graded; the message says why."""


MAX_NOTEBOOK_BYTES = 128 << 20  # a submitted file larger than this is not read
MAX_CELLS = 20_000  # nor a notebook of more cells (an honest one has a few hundred)


def read_notebook(path, limit=DEFAULT_DISK):
    """The code of the notebook at ``path``, as the small notebook the sandbox runs (bytes).

    Only a regular file is opened, and never through a symbolic link
    (``O_NOFOLLOW``; a link to the master notebook or to a classmate's is
    refused), nor does opening wait (``O_NONBLOCK``: a FIFO is refused, not
    waited on). The notebook is read as Jupyter reads it (nbformat, older
    versions converted to version 4 by nbformat, as Jupyter converts them;
    no schema validation, which would cost minutes on a large file) and only
    the sources of its code cells go on: outputs, attachments and metadata
    never enter the sandbox, so a notebook carrying large outputs is graded
    like any other.

    Raises
    ------
    NotASubmission
        The path is a link, a FIFO, a device or a folder, the file is larger
        than :data:`MAX_NOTEBOOK_BYTES`, it is not a notebook or has more than
        :data:`MAX_CELLS` cells, or its code is larger than ``limit`` bytes.
    """
    import stat

    import nbformat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if os.path.islink(path):
            raise NotASubmission("the submission is a symbolic link, not a file") from None
        raise NotASubmission(f"the submission cannot be opened ({error.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotASubmission("the submission is not a regular file")
        if info.st_size > MAX_NOTEBOOK_BYTES:
            raise NotASubmission(f"the submission is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
        chunks, size = [], 0
        while size <= MAX_NOTEBOOK_BYTES:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > MAX_NOTEBOOK_BYTES:
        raise NotASubmission(f"the submission is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
    try:
        document = json.loads(b"".join(chunks).decode("utf-8-sig"))
        if not isinstance(document, dict):
            raise TypeError("not a JSON object")
        cells = document.get("cells", [])
        if document.get("nbformat", 4) < 4:  # Jupyter's own conversion (worksheets, "input")
            cells = nbformat.convert(nbformat.from_dict(document), 4).cells
        if not isinstance(cells, list) or len(cells) > MAX_CELLS:
            raise ValueError(f"not a list of at most {MAX_CELLS} cells")
        sources = []
        for cell in cells:
            if isinstance(cell, dict) and cell.get("cell_type") == "code":
                source = cell.get("source", "")
                if isinstance(source, list) and all(isinstance(line, str) for line in source):
                    source = "".join(source)
                if not isinstance(source, str):
                    raise TypeError("a code cell's source is not text")
                sources.append(source)
    except Exception as error:  # bad JSON, too deep, not a notebook: whatever the reader raises
        raise NotASubmission(f"the submission is not a notebook ({type(error).__name__})") from None
    code = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "source": source} for source in sources]}).encode()
    if len(code) > limit:
        raise NotASubmission(f"the submission's code is larger than {limit >> 20} MiB")
    return code


class Submission:
    """A running sandbox and the grader's end of its channel.

    Parameters
    ----------
    notebook : path
        The submitted notebook (opened read-only; the sandbox gets a copy).
    name : str
        The homework's name: the copy is ``/home/student/<name>.ipynb``.
    deadline : float
        ``time.monotonic()`` value after which the sandbox is killed.
    memory, processes, disk : int
        Limits (bytes per process and per sandbox, processes, bytes per
        in-memory folder).
    """

    def __init__(self, notebook, name, deadline, memory=DEFAULT_MEMORY, processes=DEFAULT_PROCESSES,
                 disk=DEFAULT_DISK, allowed=()):
        self.deadline = deadline
        self.memory = memory
        self.allowed = tuple(allowed)
        self.refused = []
        self.tampering = []
        self.timed_out = False
        self.ended = None
        self._buffer = b""
        self._remotes = {}
        self._callbacks = []
        # The notebook is read (a regular file only) and reduced to its code
        # before any sandbox or cgroup exists.
        code = read_notebook(notebook, disk)
        self._groups = _cgroup(memory, processes)
        cpu_seconds = max(1, int(deadline - time.monotonic()) + 1)
        groups = self._groups

        def limit():  # in the child, before bwrap starts (the runner sets RLIMIT_NPROC itself)
            for key, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu_seconds),
                               (resource.RLIMIT_FSIZE, disk), (resource.RLIMIT_CORE, 0)):
                resource.setrlimit(key, (value, value))
            for group in groups:
                with open(group / "cgroup.procs", "w") as handle:
                    handle.write(str(os.getpid()))

        to_read, self._to_write = os.pipe()
        self._from_read, from_write = os.pipe()
        notebook_fd = _memory_file(code, "notebook")
        config_fd = _config_fd()
        passed = tuple(fd for fd in (notebook_fd, to_read, from_write, config_fd) if fd is not None)
        try:
            self.process = subprocess.Popen(
                command(notebook_fd, to_read, from_write, name, disk, processes, config_fd=config_fd),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=passed,
                preexec_fn=limit, start_new_session=True)
        except BaseException:
            os.close(self._to_write)
            os.close(self._from_read)
            _remove_cgroups(self._groups)
            raise
        finally:
            for fd in passed:
                os.close(fd)
        os.set_blocking(self._from_read, False)
        os.set_blocking(self._to_write, False)  # a full pipe never blocks the grader
        os.set_blocking(self.process.stderr.fileno(), False)
        self._stderr = b""

    # -- the channel ---------------------------------------------------------

    def _fail(self, reason):
        if self.ended is None:
            self.ended = reason
        self.close()
        raise SubmissionGone(reason)

    def send(self, message):
        if self.ended is not None:
            raise SubmissionGone(self.ended)
        data = memoryview(json.dumps(message, allow_nan=False).encode() + b"\n")
        try:
            while data:
                timeout = self.deadline - time.monotonic()
                if timeout <= 0:
                    self.timed_out = True
                    self._fail("timeout")
                _, ready, _ = select.select([], [self._to_write], [], timeout)
                if ready:
                    try:
                        data = data[os.write(self._to_write, data[: 1 << 16]):]
                    except BlockingIOError:
                        continue  # less room than select promised: wait again
        except OSError:  # a broken pipe: the sandbox ended
            self._fail(self._why_ended())

    def receive(self):
        """The next message from the sandbox (a dict), by the deadline."""
        if self.ended is not None:
            raise SubmissionGone(self.ended)
        while b"\n" not in self._buffer:
            timeout = self.deadline - time.monotonic()
            if timeout <= 0:
                self.timed_out = True
                self._fail("timeout")
            ready, _, _ = select.select([self._from_read, self.process.stderr], [], [], timeout)
            if self.process.stderr in ready:
                chunk = os.read(self.process.stderr.fileno(), 1 << 16)
                self._stderr = (self._stderr + chunk)[-4096:]
            if self._from_read in ready:
                chunk = os.read(self._from_read, 1 << 20)
                if not chunk:
                    self._fail(self._why_ended())
                self._buffer += chunk
                if len(self._buffer) > wire.MAX_MESSAGE_BYTES:
                    self._tamper("a message longer than the channel allows")
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            message = json.loads(line)
        except Exception:  # not JSON, or nested beyond the parser's recursion
            self._tamper("the grading channel carried something that is not a message")
        if not isinstance(message, dict):
            self._tamper("the grading channel carried something that is not a message")
        return message

    def _tamper(self, what):
        if what not in self.tampering:
            self.tampering.append(what)
        self._fail(f"tampering: {what}")

    def _why_ended(self):
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        try:
            self._stderr += os.read(self.process.stderr.fileno(), 1 << 16)
        except OSError:
            pass
        last = _printable((self._stderr.decode(errors="replace").strip().splitlines() or [""])[-1])[:300]
        if code is not None and code < 0:
            how = f"killed by signal {-code}"
        else:
            how = f"exit status {code}"
        return f"error: the submission's process ended ({how}){': ' + last if last else ''}"

    # -- values ----------------------------------------------------------------

    def _handle(self, value):
        if isinstance(value, Remote) and value._submission is self:
            return value._number
        if callable(value):
            self._callbacks.append(value)
            return -len(self._callbacks)
        raise TypeError(f"a {type(value).__name__} cannot be sent to a submission")

    def _resolve(self, number):
        if number <= 0:
            raise wire.ChannelError("the submission sent a callback handle")
        if number not in self._remotes:
            self._remotes[number] = Remote(self, number)
        return self._remotes[number]

    def encode(self, value):
        return wire.encode(value, self._handle)

    def decode(self, tree):
        try:
            return wire.decode(tree, self._resolve)
        except SubmissionGone:
            raise
        except Exception as error:  # whatever a malformed value makes NumPy or pandas raise
            self._tamper(f"the submission sent a malformed value ({_printable(str(error))[:100]})")

    def start(self, notebook_name, answers, libraries, allowed):
        """Send the instructions; return ``{answer name: value or Remote}`` once the notebook has run."""
        self.send({"notebook": f"{WORK}/{notebook_name}.ipynb", "answers": list(answers),
                   "libraries": list(libraries), "allowed": list(allowed)})
        message = self.receive()
        while "library" in message:  # the notebook calls an allowed library function
            self._serve_library(message)
            message = self.receive()
        if set(message) != {"ready", "tampering"} or not isinstance(message["ready"], dict):
            self._tamper("an unexpected message on the grading channel")
        for what in message["tampering"][:5] if isinstance(message["tampering"], list) else []:
            if isinstance(what, str) and _printable(what)[:200] not in self.tampering:
                self.tampering.append(_printable(what)[:200])
        return {str(name): self.decode(tree) for name, tree in message["ready"].items() if name in answers}

    def request(self, message, after=None):
        """Send a request about a remote object and return its (decoded) answer.

        ``after`` (a dict) receives the encoded states of a call's arguments
        that can change in place (arrays, lists, dicts, tuples, Series, data
        frames) after the call: ``{"args": {index: tree}, "kwargs": {name: tree}}``.
        """
        self.send(message)
        while True:
            reply = self.receive()
            if "callback" in reply:
                self._serve_callback(reply)
                continue
            if "library" in reply:
                self._serve_library(reply)
                continue
            refused = reply.get("refused", [])
            for name in refused[:20] if isinstance(refused, list) else []:
                if isinstance(name, str) and _printable(name)[:200] not in self.refused:
                    self.refused.append(_printable(name)[:200])
            if "value" in reply:
                states = reply.get("after", {})
                if after is not None and isinstance(states, dict):
                    for key in ("args", "kwargs"):  # the encoded states, compared with the arguments sent
                        part = states.get(key, {})
                        after[key] = {str(k): v for k, v in part.items()} if isinstance(part, dict) else {}
                return self.decode(reply["value"])
            if "raised" in reply:
                raise SubmissionRaised(f"{str(reply['raised'])[:100]}: {str(reply.get('message', ''))[-3000:]}")
            self._tamper("an unexpected message on the grading channel")

    def _serve_library(self, message):
        """Run an allowed dtree or scikit-learn function for the submission (it has only stubs).

        Only the exact public names of the homework's list are served, and
        only on arguments that are data: a name that is not listed (a module,
        a private name, an attribute reached through a module) is tampering,
        and an argument that is an object of the submission's is refused.
        """
        import importlib

        name = message.get("library")
        if not (isinstance(name, str) and name in self.allowed):
            self._tamper("a library call the homework does not allow came through the channel")
        module, _, attribute = name.rpartition(".")
        target = getattr(importlib.import_module(module), attribute, None)
        self._reply_to_call(target, message, "library call", data_only=True)

    def _reply_to_call(self, function, message, what, data_only=False):
        """Call ``function`` (grader side) with the message's arguments and send the reply."""
        handles = []
        if data_only:  # an object of the submission's would run its code inside the library call
            resolve = self._resolve
            self._resolve = lambda number: handles.append(number) or resolve(number)
        try:
            args = self.decode(message.get("args"))
            kwargs = self.decode(message.get("kwargs"))
        finally:
            self.__dict__.pop("_resolve", None)
        if not (isinstance(args, list) and isinstance(kwargs, dict)):
            self._tamper(f"a malformed {what}")
        kwargs = {str(key): item for key, item in kwargs.items()}
        if data_only:  # a library call: in a child process with the sandbox's limits
            if handles:
                self.send({"reply": None, "error": f"TypeError: {message.get('library')} takes data (numbers, "
                           "strings, lists, arrays, Series, data frames), not objects"})
            elif function is None:
                self.send({"reply": None, "error": f"AttributeError: no such function: {message.get('library')}"})
            else:
                self.send(self._call_in_child(function, args, kwargs))
            return
        try:
            value = function(*args, **kwargs)
            self.send({"reply": self.encode(value)})
        except SubmissionGone:
            raise
        except Exception as error:
            self.send({"reply": None, "error": f"{type(error).__name__}: {error}"})

    def _call_in_child(self, function, args, kwargs):
        """``function(*args, **kwargs)`` run in a forked child of the grader; the reply message.

        A library call runs on the submission's arguments, so it is limited
        as the sandbox is: the child may use :attr:`memory` bytes of address
        space more than the grader has, and must answer by the submission's
        deadline (else it is killed and the submission times out); a result
        that is not data, or larger than a message, is an error for the
        submission. A call such as ``contingency_table`` of 60,000 distinct
        values (a 29 GB table) thus fails in the child, never in the grader.
        """
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: compute, encode, write, exit (never return into the grader)
            try:
                os.close(read_fd)
                with open("/proc/self/statm") as handle:
                    used = int(handle.read().split()[0]) * resource.getpagesize()
                limit = used + self.memory
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
                try:
                    reply = {"reply": wire.encode(function(*args, **kwargs), _not_data)}
                except _NotData:
                    reply = {"reply": None, "error": "TypeError: the library returned a value that is not data"}
                except BaseException as error:  # MemoryError included
                    reply = {"reply": None, "error": f"{type(error).__name__}: {str(error)[:300]}"}
                data = json.dumps(reply, allow_nan=False).encode()
                if len(data) > wire.MAX_MESSAGE_BYTES:
                    data = json.dumps({"reply": None, "error": "ValueError: the library's result is larger "
                                       "than a message may be"}).encode()
                view = memoryview(data)
                while view:
                    view = view[os.write(write_fd, view):]
            finally:
                os._exit(0)
        os.close(write_fd)
        chunks = []  # the child caps its reply at a message's size
        try:
            while True:
                timeout = self.deadline - time.monotonic()
                if timeout <= 0:
                    self.timed_out = True
                    self._fail("timeout")
                ready, _, _ = select.select([read_fd], [], [], timeout)
                if ready:
                    chunk = os.read(read_fd, 1 << 20)
                    if not chunk:
                        break
                    chunks.append(chunk)
        finally:
            os.close(read_fd)
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            os.waitpid(pid, 0)
        try:
            reply = json.loads(b"".join(chunks))
        except ValueError:  # the child died before it answered (killed for its memory, say)
            reply = {"reply": None, "error": "MemoryError: the library call ran out of the memory allowed"}
        return reply

    def _serve_callback(self, message):
        number = message.get("callback")
        if not (type(number) is int and 1 <= number <= len(self._callbacks)):
            self._tamper("a request for a callback the grader never sent")
        self._reply_to_call(self._callbacks[number - 1], message, "callback request")

    def close(self):
        """Kill the sandbox and everything in it; remove its cgroup. Safe to call twice."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - bwrap ignores nothing but SIGKILL
            pass
        _remove_cgroups(self._groups)
        self._groups = []
        for fd in (self._to_write, self._from_read):
            try:
                os.close(fd)
            except OSError:
                pass
        self._to_write = self._from_read = -1
        if self.process.stderr is not None:
            self.process.stderr.close()


class Remote:
    """An object that lives in a submission's sandbox: a function, a class, an instance."""

    def __init__(self, submission, number):
        object.__setattr__(self, "_submission", submission)
        object.__setattr__(self, "_number", number)

    def _ask(self, operation, **fields):
        submission = self._submission
        return submission.request({"op": operation, "target": self._number, **fields})

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return self._ask("getattr", name=name)

    def __setattr__(self, name, value):
        raise AttributeError("a submission's object cannot be changed by the checks")

    def __call__(self, *args, **kwargs):
        submission = self._submission
        after = {}
        value = submission.request({"op": "call", "target": self._number, "args": submission.encode(list(args)),
                                    "kwargs": submission.encode(kwargs)}, after)
        # The submission worked on copies of the arguments; a check keeps its
        # own. An answer that changed a copy in place is told so, and the
        # check fails: nothing of the submission's flows back into a check's data.
        changed = [f"argument {int(key) + 1}" for key, state in after.get("args", {}).items()
                   if key.isdigit() and int(key) < len(args) and _changed(args[int(key)], state)]
        changed += [f"argument {key!r}" for key, state in after.get("kwargs", {}).items()
                    if key in kwargs and _changed(kwargs[key], state)]
        if changed:
            raise SubmissionRaised(f"ArgumentChanged: the answer changed its {', '.join(changed)} in place; "
                                   "answers must leave their arguments as they got them")
        return value

    def __getitem__(self, key):
        return self._ask("getitem", key=self._submission.encode(key))

    def __len__(self):
        value = self._ask("len")
        if type(value) is not int:
            raise TypeError("len() of a submission's object is not an int")
        return value

    def __iter__(self):
        value = self._ask("list")
        if not isinstance(value, list):
            raise TypeError("a submission's object did not iterate to a list")
        return iter(value)

    def __repr__(self):
        return f"<submission object {self._number}>"


class _NotData(Exception):
    pass


def _not_data(value):
    raise _NotData


def _not_resolved(number):
    raise _NotData


def _changed(original, state):
    """Whether the encoded ``state`` of an argument after a call differs from the ``original`` sent.

    ``state`` is compared with the encoding of what the submission received,
    the original after one trip through the channel (encoded, sent as JSON,
    decoded), so that what the codec does not carry is no difference.
    Arguments that are not plain data (they hold functions or objects) are
    not compared.
    """
    try:
        received = wire.decode(json.loads(json.dumps(wire.encode(original, _not_data))), _not_resolved)
        return wire.encode(received, _not_data) != state
    except (_NotData, wire.ChannelError):
        return False


def _printable(text):
    """``text`` with control characters (escape sequences, newlines) replaced by spaces."""
    return "".join(ch if ch.isprintable() else " " for ch in text)
