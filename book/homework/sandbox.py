"""One sandbox per submission: bubblewrap, resource limits, and the grading channel.

``homework.py grade`` calls :func:`open_submission` for each notebook. The
submission's code runs in a `bubblewrap <https://github.com/containers/bubblewrap>`_
sandbox (Debian/Ubuntu package ``bubblewrap``) with

* its own PID, network, IPC, UTS and user namespaces: no network, no view of
  any other process (the grader, the other submissions), and every process it
  starts dies when the sandbox is killed (``--die-with-parent``, PID 1 of the
  namespace gone);
* a file system made of the operating system's ``/usr`` and the Python
  environment (read-only: the interpreter, the installed packages and the
  ``dtree`` package), a private writable copy of its notebook in
  ``/home/student`` and a small ``/tmp``, both in-memory with a size limit;
  the repository, the reference solutions, the checks, the grader and the
  other submissions are not in it;
* limits: address space per process (memory), CPU time, file size, number of
  processes; where the grader may create a cgroup (root, cgroup v1 or v2),
  the memory and the number of processes of the whole sandbox are limited
  there too.

The grader talks to the program inside (``sandbox_runner.py``) over two
pipes. Every read has a deadline, so a submission cannot stall the grader;
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

DEFAULT_MEMORY = 2 << 30  # bytes of address space per process, and of memory per sandbox
DEFAULT_PROCESSES = 32  # processes and threads per sandbox
DEFAULT_DISK = 64 << 20  # bytes in each of /home/student and /tmp
WORK = "/home/student"


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
    """Start one empty sandbox; raise :class:`SandboxUnavailable` with bubblewrap's message if it fails."""
    _remove_cgroups(_cgroup(DEFAULT_MEMORY, DEFAULT_PROCESSES))  # as root: a cgroup can be made
    args = command(None, None, None, None)
    result = subprocess.run(args[: args.index(sys.executable)] + [sys.executable, "-I", "-c", "pass"],
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise SandboxUnavailable(f"bubblewrap cannot start a sandbox here: {result.stderr.strip()}")


def _python_paths():
    """The read-only folders the sandbox needs for Python: the environment, its base and dtree."""
    import dtree

    paths = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), Path(dtree.__file__).resolve().parent}
    # The venv's python may be a symlink to an interpreter elsewhere.
    paths.add(Path(os.path.realpath(sys.executable)).parent.parent)
    return sorted(str(path) for path in paths)


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


def _own_processes():
    """How many processes this user has now (RLIMIT_NPROC counts them all)."""
    uid = os.getuid()
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


def command(notebook_fd, read_fd, write_fd, name, disk=DEFAULT_DISK):
    """The bubblewrap command line that runs ``sandbox_runner.py`` on notebook ``name``."""
    venv_bin = str(Path(sys.executable).parent)
    args = [bwrap_path(), "--unshare-all", "--die-with-parent", "--new-session",
            "--uid", "1000", "--gid", "1000", "--hostname", "sandbox", "--clearenv",
            "--ro-bind", "/usr", "/usr"]
    for link in ("bin", "lib", "lib32", "lib64", "sbin"):
        if os.path.islink(f"/{link}"):
            args += ["--symlink", os.readlink(f"/{link}"), f"/{link}"]
        elif os.path.isdir(f"/{link}"):
            args += ["--ro-bind", f"/{link}", f"/{link}"]
    for path in _python_paths():
        args += ["--ro-bind", path, path]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(disk), "--tmpfs", "/tmp",
             "--size", str(disk), "--tmpfs", WORK]
    if notebook_fd is not None:
        args += ["--file", str(notebook_fd), f"{WORK}/{name}.ipynb"]
    args += ["--chdir", WORK]
    environment = {"HOME": WORK, "PATH": f"{venv_bin}:/usr/bin:/bin", "LANG": "C.UTF-8", "MPLBACKEND": "Agg",
                   "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                   "MPLCONFIGDIR": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"}
    for key, value in environment.items():
        args += ["--setenv", key, value]
    return args + [sys.executable, "-I", "-c", RUNNER_SOURCE, str(read_fd), str(write_fd)]


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
                 disk=DEFAULT_DISK):
        self.deadline = deadline
        self.refused = []
        self.tampering = []
        self.timed_out = False
        self.ended = None
        self._buffer = b""
        self._remotes = {}
        self._callbacks = []
        self._groups = _cgroup(memory, processes)
        cpu_seconds = max(1, int(deadline - time.monotonic()) + 1)
        nproc = _own_processes() + processes if os.getuid() != 0 else processes
        groups = self._groups

        def limit():  # in the child, before bwrap starts
            for key, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_CPU, cpu_seconds),
                               (resource.RLIMIT_FSIZE, disk), (resource.RLIMIT_NPROC, nproc),
                               (resource.RLIMIT_CORE, 0)):
                resource.setrlimit(key, (value, value))
            for group in groups:
                with open(group / "cgroup.procs", "w") as handle:
                    handle.write(str(os.getpid()))

        to_read, self._to_write = os.pipe()
        self._from_read, from_write = os.pipe()
        notebook_fd = os.open(notebook, os.O_RDONLY)
        try:
            self.process = subprocess.Popen(
                command(notebook_fd, to_read, from_write, name, disk), stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(notebook_fd, to_read, from_write),
                preexec_fn=limit, start_new_session=True)
        except BaseException:
            os.close(self._to_write)
            os.close(self._from_read)
            _remove_cgroups(self._groups)
            raise
        finally:
            for fd in (notebook_fd, to_read, from_write):
                os.close(fd)
        os.set_blocking(self._from_read, False)
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
                    data = data[os.write(self._to_write, data[: 1 << 16]):]
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
        except ValueError:
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
        last = (self._stderr.decode(errors="replace").strip().splitlines() or [""])[-1]
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
        except (wire.ChannelError, ValueError, TypeError, RecursionError) as error:
            self._tamper(f"the submission sent a malformed value ({error})")

    def start(self, notebook_name, answers, libraries, allowed):
        """Send the instructions; return ``{answer name: value or Remote}`` once the notebook has run."""
        self.send({"notebook": f"{WORK}/{notebook_name}.ipynb", "answers": list(answers),
                   "libraries": list(libraries), "allowed": list(allowed)})
        message = self.receive()
        if set(message) != {"ready", "tampering"} or not isinstance(message["ready"], dict):
            self._tamper("an unexpected message on the grading channel")
        for what in message["tampering"] if isinstance(message["tampering"], list) else []:
            if isinstance(what, str) and what[:200] not in self.tampering:
                self.tampering.append(what[:200])
        return {str(name): self.decode(tree) for name, tree in message["ready"].items() if name in answers}

    def request(self, message):
        """Send a request about a remote object and return its (decoded) answer."""
        self.send(message)
        while True:
            reply = self.receive()
            if "callback" in reply:
                self._serve_callback(reply)
                continue
            refused = reply.get("refused", [])
            for name in refused if isinstance(refused, list) else []:
                if isinstance(name, str) and name[:200] not in self.refused:
                    self.refused.append(name[:200])
            if "value" in reply:
                return self.decode(reply["value"])
            if "raised" in reply:
                raise SubmissionRaised(f"{str(reply['raised'])[:100]}: {str(reply.get('message', ''))[-3000:]}")
            self._tamper("an unexpected message on the grading channel")

    def _serve_callback(self, message):
        number = message.get("callback")
        if not (type(number) is int and 1 <= number <= len(self._callbacks)):
            self._tamper("a request for a callback the grader never sent")
        args = self.decode(message.get("args"))
        kwargs = self.decode(message.get("kwargs"))
        if not (isinstance(args, list) and isinstance(kwargs, dict)):
            self._tamper("a malformed callback request")
        try:
            value = self._callbacks[number - 1](*args, **kwargs)
            self.send({"reply": self.encode(value)})
        except SubmissionGone:
            raise
        except Exception as error:
            self.send({"reply": None, "error": f"{type(error).__name__}: {error}"})

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
        return self._ask("call", args=submission.encode(list(args)), kwargs=submission.encode(kwargs))

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
