#!/usr/bin/env python3
# memnotify-watch.py - print a line per memory pressure notification,
# from Python through GObject introspection (python3-gi).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   memnotify-watch.py [--level=LEVEL] [--no-psi] [--device=PATH] [--count=N]
#
# Prints "TIME EVENT level=LEVEL bytes_hint=N" for each event.
#
# Exit status: 0 after --count events or SIGINT/SIGTERM, 1 if the source
# cannot be created or fails later, 2 on a usage error.

import argparse
import datetime
import signal
import os
import sys

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Memnotify", "1.0")
from gi.repository import GLib, Memnotify  # noqa: E402


def on_event(event, level, bytes_hint, state):
    # memnotify_source_set_callback() passes the event, the level, the
    # kernel's hint, then the data.
    if event == Memnotify.Event.ERROR:
        error = Memnotify.source_get_error(state["source"])
        print(f"memnotify-watch.py: error: {error.message if error else 'unknown'}",
              file=sys.stderr)
        state["loop"].quit()
        return GLib.SOURCE_REMOVE
    stamp = datetime.datetime.now().astimezone().isoformat()
    print(f"{stamp} {Memnotify.event_to_string(event)} "
          f"level={Memnotify.level_to_string(level)} bytes_hint={bytes_hint}", flush=True)
    state["remaining"] -= 1
    if state["remaining"] == 0:
        state["done"] = True
        state["loop"].quit()
        return GLib.SOURCE_REMOVE
    return GLib.SOURCE_CONTINUE


def main():
    parser = argparse.ArgumentParser(description="Print memory pressure notifications.")
    parser.add_argument("--level", choices=["low", "medium", "critical"], default="low",
                        help="hear of LEVEL and above (default: low)")
    parser.add_argument("--no-psi", action="store_true",
                        help="watch the device only, not PSI where there is no device")
    parser.add_argument("--device", metavar="PATH",
                        help="watch PATH instead of /dev/mem_notify (sets $MEMNOTIFY_DEVICE)")
    parser.add_argument("--count", type=int, default=0, metavar="N",
                        help="exit after N events")
    args = parser.parse_args()
    if args.count < 0:
        parser.error("--count must not be negative")

    if args.device is not None:
        os.environ["MEMNOTIFY_DEVICE"] = args.device
    level = getattr(Memnotify.Level, args.level.upper())
    flags = Memnotify.Flags.NO_PSI if args.no_psi else Memnotify.Flags.NONE
    try:
        source = Memnotify.source_new(level, flags)
    except GLib.Error as error:
        print(f"memnotify-watch.py: error: {error.message}", file=sys.stderr)
        return 1

    print(f"memnotify-watch.py: watching {Memnotify.source_get_path(source)} "
          f"(backend: {Memnotify.backend_to_string(Memnotify.source_get_backend(source))})",
          file=sys.stderr, flush=True)

    loop = GLib.MainLoop()
    state = {"loop": loop, "source": source, "remaining": args.count or -1, "done": False}
    Memnotify.source_set_callback(source, on_event, state)
    source.attach(None)

    def on_signal():
        state["done"] = True
        loop.quit()
        return GLib.SOURCE_CONTINUE

    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, on_signal)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, on_signal)
    loop.run()
    source.destroy()
    return 0 if state["done"] else 1


if __name__ == "__main__":
    sys.exit(main())
