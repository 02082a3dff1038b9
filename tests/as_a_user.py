"""Run a block of a test as a user without root's file rights, in this process.

The suite runs as root, for whom a ``chmod`` stops nothing: a read-only store, an unreadable
doc or ``.git`` folder bite only a process without ``CAP_DAC_OVERRIDE``,
``CAP_DAC_READ_SEARCH`` and ``CAP_FOWNER``. ``setpriv`` gives a process that (what
:func:`command_as_a_user` starts), at the price of a Python start and often a model load
(~0.3-1 CPU-s a command). :func:`as_a_user` takes the three rights out of the calling
thread's effective set for the block and gives them back after (they stay in its permitted
set), so a command run in-process (``run_cli``, ``hook_here``) meets the permission bits as
such a process does. Linux keeps capabilities per thread: a thread the block starts (a hook's
worker, a store's lexical worker) inherits the reduced set; threads started before it keep
theirs, and none of kenning's outlives the command that started it. ``SECBIT_NOROOT`` for the
block keeps a program the block starts (git) from getting root's rights back at ``exec``: it
runs with no capability at all, which for the files of a test (root's own) is what the
permission bits give their owner, as under ``setpriv``; ``SECBIT_NO_SETUID_FIXUP`` makes
``access()`` answer by the thread's rights too.

Not root: nothing to drop, and the block runs as it is.
"""

from __future__ import annotations

import ctypes
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

#: The rights that let root read, search and write any file, and chmod what it does not own.
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER = 1, 2, 3
_DROPPED = (1 << CAP_DAC_OVERRIDE) | (1 << CAP_DAC_READ_SEARCH) | (1 << CAP_FOWNER)
_CAPABILITY_VERSION_3 = 0x20080522
_PR_GET_SECUREBITS, _PR_SET_SECUREBITS = 27, 28
_SECBIT_NOROOT, _SECBIT_NO_SETUID_FIXUP = 1 << 0, 1 << 2

#: For the block: no rights back at ``exec`` of a program as root (``NOROOT``), and
#: ``access()`` judged by the rights the thread has, not root's permitted ones (the kernel
#: otherwise checks a root caller with its permitted set: ``NO_SETUID_FIXUP``).
_BLOCK_SECUREBITS = _SECBIT_NOROOT | _SECBIT_NO_SETUID_FIXUP


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


_libc = ctypes.CDLL(None, use_errno=True)


def _checked(result: int, what: str) -> int:
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return result


def _capabilities() -> tuple[_Header, ctypes.Array[_Data]]:
    header, data = _Header(_CAPABILITY_VERSION_3, 0), (_Data * 2)()  # pid 0: this thread
    _checked(_libc.capget(ctypes.byref(header), data), "capget")
    return header, data


def _set_effective(low_word: int) -> None:
    header, data = _capabilities()
    data[0].effective = low_word
    _checked(_libc.capset(ctypes.byref(header), data), "capset")


@contextmanager
def as_a_user() -> Iterator[None]:
    """The block without root's file rights (see the module's docstring)."""
    if os.geteuid() != 0:
        yield
        return
    _, data = _capabilities()
    effective = data[0].effective
    securebits = _checked(_libc.prctl(_PR_GET_SECUREBITS, 0, 0, 0, 0), "prctl")
    _checked(_libc.prctl(_PR_SET_SECUREBITS, securebits | _BLOCK_SECUREBITS, 0, 0, 0), "prctl")
    try:
        _set_effective(effective & ~_DROPPED)
        try:
            yield
        finally:
            _set_effective(effective)
    finally:
        _checked(_libc.prctl(_PR_SET_SECUREBITS, securebits, 0, 0, 0), "prctl")


def command_as_a_user(*command: str) -> list[str]:
    """``command`` to run in a process of its own without root's file rights (``setpriv``),
    for a test where the process is the point (a hook as Claude Code runs it, the MCP
    server)."""
    if os.geteuid() != 0:
        return list(command)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot make a folder read-only")
    caps = "-dac_override,-dac_read_search,-fowner"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}", *command]
