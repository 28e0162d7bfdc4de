#!/usr/bin/python3
"""Keystroke to result in the running app, as a person types: the app under Xvfb with a window (not
headless: no --script), the sentence box clicked, then keys pressed and held as a hand holds them
(--hold seconds) with xdotool, each timed from the key press to the --report-results line that the
frame showing its result prints. Binaries given as label=PATH alternate key by key, so both see the
same machine. Needs Xvfb and xdotool (apt-get install xvfb xdotool). A benchmark, not a test.

usage: bench/typing_latency.py [--keys 8] [--hold 0.3] [--model DIR] before=/tmp/old/attnviz after=build/app/attnviz
       (--model: a checkpoint to type into, e.g. bench/make_gpt2_small.py's; default the coreference demo)
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import threading
import time


class App:
    """One app on its own X display, fresh settings, its stdout lines timestamped as they arrive."""

    def __init__(self, path, display, model):
        self.xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "1280x800x24"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        self.env = dict(os.environ, DISPLAY=display, XDG_CONFIG_HOME=tempfile.mkdtemp(),
                        XDG_CACHE_HOME=tempfile.mkdtemp(), XDG_STATE_HOME=tempfile.mkdtemp())
        extra = ["--model", model] if model else []
        self.proc = subprocess.Popen([path, "--report-results", "--size", "1280x800", *extra], env=self.env,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()
        time.sleep(3.0)  # opens (the coreference demo, or the model) and computes the sentence
        self.xdo("mousemove", "190", "125")  # the sentence box
        self.xdo("click", "1")
        time.sleep(0.3)
        self.xdo("key", "End")
        time.sleep(0.5)

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append((time.monotonic(), line.strip()))

    def xdo(self, *args):
        subprocess.run(["xdotool", *args], env=self.env, check=True)

    def keystroke_ms(self, key, hold):
        seen = len(self.lines)
        start = time.monotonic()
        self.xdo("keydown", key)
        time.sleep(hold)
        self.xdo("keyup", key)
        time.sleep(0.4)
        shown = [t for t, line in self.lines[seen:] if line.startswith("result")]
        return (shown[0] - start) * 1000.0 if shown else None

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        self.xvfb.terminate()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=8, help="keystrokes per binary (typing x, then deleting it)")
    ap.add_argument("--hold", type=float, default=0.3, help="seconds each key is held down")
    ap.add_argument("--model", default="", help="a checkpoint folder or model file to open")
    ap.add_argument("apps", nargs="+", help="label=PATH of an attnviz binary")
    o = ap.parse_args()
    print("load before:", open("/proc/loadavg").read().split()[:3])
    apps = {}
    for i, spec in enumerate(o.apps):
        label, path = spec.split("=", 1)
        apps[label] = App(path, ":%d" % (91 + i), o.model)
    times = {label: [] for label in apps}
    for k in range(o.keys):
        for label, app in apps.items():
            times[label].append(app.keystroke_ms("x" if k % 2 == 0 else "BackSpace", o.hold))
    for app in apps.values():
        app.close()
    print("keystroke (held %.1f s) -> frame showing its result, ms (Xvfb, Mesa llvmpipe)" % o.hold)
    for label, ms in times.items():
        got = [m for m in ms if m is not None]
        shown = " ".join("%.0f" % m if m is not None else "-" for m in ms)
        print("  %-8s median %6.1f  max %6.1f   [%s]" % (label, statistics.median(got) if got else float("nan"),
                                                          max(got) if got else float("nan"), shown))
    print("load after:", open("/proc/loadavg").read().split()[:3])


if __name__ == "__main__":
    main()
