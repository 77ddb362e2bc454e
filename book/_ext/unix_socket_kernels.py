"""Jupyter kernels that talk over Unix domain sockets instead of TCP ports.

jupyter_client starts a kernel by finding five free TCP ports (it binds a
socket to port 0 for each and closes it), writing them to the kernel's
connection file and starting the kernel, which binds them.  Between the close
and the kernel's bind any other process may take one of those ports: another
kernel being started, or any outgoing connection, whose local port comes from
the same range.  The kernel then dies ("Address already in use"), or its
client talks to a socket that is not its kernel's and waits ("Kernel didn't
respond in 60 seconds").  This project starts many kernels at once: nbval on
two pytest-xdist workers beside the tests' own kernels (``make test``), the
book and the student edition built side by side, two JupyterLab servers in
``make browser-test``.  Measured on the 2-core development machine
(2026-11-29): 1 of 450 kernel starts in three concurrent processes died with
"Address already in use"; with Unix sockets, 0 of 450.  CI lost a
``make test`` to it (2026-11-28: nbval of ``part2/cart``, every cell
"Kernel didn't respond in 60 seconds").

With jupyter_client's ``ipc`` transport a kernel's five channels are socket
files, here in a directory that belongs to this process (made by
:func:`tempfile.mkdtemp`, removed at exit; a process that is killed leaves its
``jk-*`` directory behind), named after the kernel's id:
there is nothing to race for.  :func:`use_unix_sockets` makes every kernel
that this process starts through jupyter_client's local provisioner (nbval,
nbclient, MyST-NB) use them, unless the kernel's transport or ports were set
explicitly.  On systems without Unix domain sockets (Windows) it does nothing.

Used by ``book/conftest.py`` (nbval) and ``tests/conftest.py`` (the tests'
nbclient runs), and as a Sphinx extension by the book's build (MyST-NB
executes each notebook in the builder's process); a JupyterLab server is
given ``--KernelManager.transport=ipc`` on its command line
(``tests/browser/test_jupyterlab.py``).  ``tests/test_book_config.py`` starts
a kernel this way and checks that it answers over a socket file.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import tempfile

_PATCHED = "_dtree_book_unix_sockets"

# The longest path of a Unix socket, in bytes (sun_path: 108 on Linux, 104 on
# macOS and the BSDs, both with the terminating NUL).
_MAX_SOCKET_PATH = 103


def _socket_directory() -> str:
    """This process's directory for kernel socket files (made once)."""
    directory = getattr(_socket_directory, "path", None)
    if directory is None or not os.path.isdir(directory):
        # Short, so that "<dir>/<kernel id>-<n>" stays well inside the
        # 107-byte limit of a Unix socket's path.
        directory = tempfile.mkdtemp(prefix="jk-")
        atexit.register(shutil.rmtree, directory, True)
        _socket_directory.path = directory
    return directory


def use_unix_sockets() -> bool:
    """Start this process's Jupyter kernels on Unix domain sockets.

    Wraps ``jupyter_client.provisioning.LocalProvisioner.pre_launch``: a
    kernel manager whose transport is still the default ``"tcp"`` with no
    ports chosen gets ``transport = "ipc"`` and a socket path in this
    process's directory (its ``ip`` is replaced, set or not), unless that
    path would be too long for a Unix socket (a long ``TMPDIR``): then it
    keeps TCP.  Calling it again does nothing.

    Returns
    -------
    bool
        True if kernels now use Unix sockets; False where the system has none
        or jupyter_client is not installed.
    """
    if os.name != "posix" or not hasattr(socket, "AF_UNIX"):
        return False
    try:
        from jupyter_client.provisioning import LocalProvisioner
    except ImportError:
        return False
    if getattr(LocalProvisioner.pre_launch, _PATCHED, False):
        return True
    pre_launch = LocalProvisioner.pre_launch

    async def pre_launch_on_unix_sockets(self, **kwargs):
        km = self.parent
        ports = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
        if (km is not None and km.transport == "tcp" and not self.ports_cached
                and not any(getattr(km, port) for port in ports)):
            path = os.path.join(_socket_directory(), km.kernel_id[:12])
            if len(os.fsencode(path)) + 8 <= _MAX_SOCKET_PATH:     # "<path>-<n>"
                km.cache_ports = False  # the port cache binds TCP ports
                km.transport = "ipc"
                km.ip = path
        return await pre_launch(self, **kwargs)

    setattr(pre_launch_on_unix_sockets, _PATCHED, True)
    LocalProvisioner.pre_launch = pre_launch_on_unix_sockets
    return True


def setup(app):
    """Sphinx extension: the book's notebooks run on Unix-socket kernels."""
    use_unix_sockets()
    return {"parallel_read_safe": True, "parallel_write_safe": True}
