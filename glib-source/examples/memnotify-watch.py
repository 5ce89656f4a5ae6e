#!/usr/bin/env python3
# memnotify-watch.py - print a line per memory pressure notification,
# from Python through GObject introspection (python3-gi).
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   memnotify-watch.py [--psi-fallback] [--device=PATH] [--count=N]
#
# Exit status: 0 after --count events or SIGINT, 1 if the source cannot
# be created or fails later, 2 on a usage error.

import argparse
import datetime
import signal
import sys

import gi

gi.require_version("GLib", "2.0")
gi.require_version("Memnotify", "0")
from gi.repository import GLib, Memnotify  # noqa: E402


def on_event(event, state):
    # memnotify_source_set_callback() passes the event, then the data.
    if event == Memnotify.Event.ERROR:
        error = Memnotify.source_get_error(state["source"])
        print(f"memnotify-watch.py: error: {error.message if error else 'unknown'}",
              file=sys.stderr)
        state["loop"].quit()
        return GLib.SOURCE_REMOVE
    stamp = datetime.datetime.now().astimezone().isoformat()
    print(f"{stamp} {Memnotify.event_to_string(event)} "
          f"{Memnotify.level_to_string(Memnotify.source_get_level(state['source']))}",
          flush=True)
    state["remaining"] -= 1
    if state["remaining"] == 0:
        state["done"] = True
        state["loop"].quit()
        return GLib.SOURCE_REMOVE
    return GLib.SOURCE_CONTINUE


def main():
    parser = argparse.ArgumentParser(description="Print memory pressure notifications.")
    parser.add_argument("--psi-fallback", action="store_true",
                        help="watch PSI if /dev/mem_notify does not exist")
    parser.add_argument("--device", metavar="PATH",
                        help="watch PATH instead of /dev/mem_notify (or $MEMNOTIFY_DEVICE)")
    parser.add_argument("--count", type=int, default=0, metavar="N",
                        help="exit after N events")
    args = parser.parse_args()
    if args.count < 0:
        parser.error("--count must not be negative")

    try:
        if args.device is not None:
            source = Memnotify.source_new_for_path(args.device)
        else:
            flags = Memnotify.Flags.NONE
            if args.psi_fallback:
                flags = Memnotify.Flags.ALLOW_PSI_FALLBACK | Memnotify.Flags.PSI_LEVELS
            source = Memnotify.source_new_with_flags(flags)
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
