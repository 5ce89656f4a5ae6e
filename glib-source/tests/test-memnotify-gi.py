#!/usr/bin/env python3
# memnotify-glib from Python through GObject introspection; speaks TAP.
# A FIFO stands in for the device. Run by glib-source/tests/python.sh.
# The checks are check() calls, not assert statements: those vanish under
# python3 -O (PYTHONOPTIMIZE). No wait is unbounded.
# SPDX-License-Identifier: LGPL-2.1-or-later

import errno
import os
import select
import subprocess
import sys
import tempfile
import time
import warnings

import gi

gi.require_version("GLib", "2.0")
gi.require_version("GObject", "2.0")
gi.require_version("Memnotify", "1.0")
from gi.repository import GLib, GObject, Memnotify  # noqa: E402

TESTS = []


def test(func):
    TESTS.append(func)
    return func


def check(condition, *context):
    """Fails the test (AssertionError with @context) unless @condition."""
    if not condition:
        raise AssertionError(*context)


def open_writer(path, timeout=10):
    """Opens the FIFO @path for writing once a reader has it open, waiting
    @timeout seconds at most (a blocking open waits for ever)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
            check(time.monotonic() < deadline, f"no reader opened {path} within {timeout} s")
            time.sleep(0.05)


def read_line(stream, timeout=10):
    """The next line of the pipe @stream, waiting @timeout seconds at most."""
    ready, _, _ = select.select([stream], [], [], timeout)
    check(ready, f"no line within {timeout} s")
    return stream.readline()


def iterate(context, until, limit=50):
    """Iterates @context (blocking at most 100 ms each) until until()."""
    for _ in range(limit):
        if until():
            return True
        GLib.usleep(100000) if not context.pending() else context.iteration(False)
    return until()


class Fifo:
    def __init__(self, tmp):
        self.path = os.path.join(tmp, "mem_notify")
        os.mkfifo(self.path)

    def source(self):
        """a source on the FIFO standing in for the device ($MEMNOTIFY_DEVICE)"""
        os.environ["MEMNOTIFY_DEVICE"] = self.path
        try:
            return Memnotify.source_new(Memnotify.Level.LOW, Memnotify.Flags.NO_PSI)
        finally:
            del os.environ["MEMNOTIFY_DEVICE"]

    def writer(self):
        return os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)


@test
def set_callback_passes_event_and_data(tmp):
    """source_set_callback: cb(event, level, bytes_hint, data) with the user data intact"""
    fifo = Fifo(tmp)
    context = GLib.MainContext()
    source = fifo.source()
    data = {"token": object()}
    got = []
    Memnotify.source_set_callback(source, lambda ev, lv, b, d: got.append((ev, lv, b, d)) or True,
                                  data)
    source.attach(context)
    fd = fifo.writer()
    os.write(fd, b"1\n")
    iterate(context, lambda: got)
    os.write(fd, b"0\n")
    iterate(context, lambda: len(got) >= 2)
    os.close(fd)
    source.destroy()
    check(len(got) == 2, got)
    check(got[0][:3] == (Memnotify.Event.PRESSURE, Memnotify.Level.LOW, 0), got)
    check(got[0][3] is data, got)
    check(got[1][:3] == (Memnotify.Event.PRESSURE_OVER, Memnotify.Level.NONE, 0), got)


@test
def closure_callback(tmp):
    """GObject.source_set_closure works (GSourceFuncs.closure_callback)"""
    fifo = Fifo(tmp)
    context = GLib.MainContext()
    source = fifo.source()
    got = []
    GObject.source_set_closure(source, lambda ev, lv, b: got.append((ev, lv, b)) or True)
    source.attach(context)
    fd = fifo.writer()
    os.write(fd, b"1\n")
    iterate(context, lambda: got)
    os.close(fd)
    source.destroy()
    check(got and got[0] == (Memnotify.Event.PRESSURE, Memnotify.Level.LOW, 0), got)


@test
def add_full_default_context(tmp):
    """Memnotify.add (add_full): priority, callback and data on the default context"""
    fifo = Fifo(tmp)
    os.environ["MEMNOTIFY_DEVICE"] = fifo.path
    got = []
    try:
        source_id = Memnotify.add(Memnotify.Level.LOW, Memnotify.Flags.NO_PSI, GLib.PRIORITY_HIGH,
                                  lambda ev, lv, b, d: got.append((ev, lv, d)) or True, "data")
    finally:
        del os.environ["MEMNOTIFY_DEVICE"]
    check(source_id > 0, source_id)
    fd = fifo.writer()
    os.write(fd, b"1\n")
    iterate(GLib.MainContext.default(), lambda: got)
    os.close(fd)
    GLib.source_remove(source_id)
    check(got == [(Memnotify.Event.PRESSURE, Memnotify.Level.LOW, "data")], got)


@test
def errors_are_gerrors(tmp):
    """a missing path raises GLib.Error MEMNOTIFY_ERROR_NO_DEVICE, not blamed on the kernel"""
    path = os.path.join(tmp, "nonexistent")
    os.environ["MEMNOTIFY_DEVICE"] = path
    try:
        Memnotify.source_new(Memnotify.Level.LOW, Memnotify.Flags.NO_PSI)
    except GLib.Error as error:
        check(error.matches(Memnotify.error_quark(), Memnotify.Error.NO_DEVICE), error)
        check(path in error.message and "CONFIG_MEM_NOTIFY" not in error.message, error.message)
    else:
        raise AssertionError("no error")
    finally:
        del os.environ["MEMNOTIFY_DEVICE"]


@test
def example_prints_events(tmp):
    """examples/memnotify-watch.py prints pressure and pressure-over lines"""
    fifo = Fifo(tmp)
    example = os.path.join(os.environ.get("top_srcdir", "."), "glib-source", "examples",
                           "memnotify-watch.py")
    proc = subprocess.Popen([sys.executable, example, "--device", fifo.path, "--count", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        fd = open_writer(fifo.path)             # once the example opened it
        os.write(fd, b"1\n")
        first = read_line(proc.stdout)
        os.write(fd, b"0\n")
        os.close(fd)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
        proc.wait()
    check(proc.returncode == 0, proc.returncode, err)
    check(first.endswith(" pressure level=low bytes_hint=0\n"), first)
    check(out.endswith(" pressure-over level=none bytes_hint=0\n"), out)


def main():
    gi.require_version("Gio", "2.0")
    from gi.repository import Gio  # noqa: F401  (errors_are_gerrors)
    print(f"1..{len(TESTS)}")
    failed = 0
    for n, func in enumerate(TESTS, 1):
        with tempfile.TemporaryDirectory(prefix="memnotify-gi-") as tmp, \
                warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                func(tmp)
            except Exception as error:  # noqa: BLE001 (report any failure)
                failed += 1
                print(f"not ok {n} - {func.__doc__}")
                for line in repr(error).splitlines():
                    print(f"# {line}")
            else:
                print(f"ok {n} - {func.__doc__}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
