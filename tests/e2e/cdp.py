#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small DevTools-protocol driver for the browser tests (tests/e2e/html-*.sh
and bench/html.sh): headless Chromium over --remote-debugging-pipe (fd 3
carries commands to it, fd 4 its answers and events, each message JSON
ended by a NUL byte), so nothing but Python's standard library is needed.

  cdp.py PAGE STEPS.json OUT.json [--shot FILE.png] [--size WxH] [--no-wait]

loads PAGE (a file), waits until window.hpmonReady is set (the page's time
to interactive), then runs STEPS in order, each one of
  {"eval": "JS expression"}          its value (returned by value)
  {"click": "CSS selector"}          a real mouse click at the element's centre
  {"type": ["CSS selector", "text"]} focus the input and type the text
  {"hover": "CSS selector"}          move the mouse over the element
  {"drag": ["CSS selector", f0, f1]} press the mouse at fraction f0 of the
                                     element's width (mid-height), move it
                                     to f1 in steps, release it there
and writes OUT: {"tti_ms", "results": [...], "console": [...errors and
warnings], "exceptions": [...], "requests": [URLs other than PAGE's],
"shot": {"width", "height", "colours", "nonbg"}}. The proxy is an address
that refuses every connection, so a request the page attempted could not
succeed; it is still reported, from the Network events.
"""
import json, os, struct, subprocess, sys, tempfile, time, zlib


class Browser:
    def __init__(self, width, height):
        self.tmp = tempfile.mkdtemp(prefix="cdp-")
        r1, w1 = os.pipe()  # to chromium (its fd 3)
        r2, w2 = os.pipe()  # from chromium (its fd 4)
        exe = os.environ.get("CHROMIUM", "chromium")
        args = [exe, "--headless=new", "--no-sandbox", "--disable-gpu",
                "--remote-debugging-pipe", "--user-data-dir=" + self.tmp,
                "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking",
                "--disable-component-update", "--disable-sync",
                "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--window-size=%d,%d" % (width, height), "about:blank"]

        def fds():
            os.dup2(r1, 3)
            os.dup2(w2, 4)
        self.p = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=fds,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(r1)
        os.close(w2)
        self.out, self.inp = w1, r2
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the browser did not answer in time")
            import select
            ready, _, _ = select.select([self.inp], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.inp, 1 << 20)
            if not chunk:
                raise EOFError("the browser closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=30):
        self.next_id += 1
        m = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = session
        os.write(self.out, json.dumps(m).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            r = self._read(deadline)
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError("%s: %s" % (method, r["error"]))
                return r.get("result", {})
            self.events.append(r)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        for i, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(i)
        while True:
            r = self._read(deadline)
            if r.get("method") == method:
                return r
            self.events.append(r)

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        subprocess.run(["rm", "-rf", self.tmp])


def png_pixels(data):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB/RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), "8-bit RGB or RGBA expected"
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def shot_stats(data):
    w, h, bpp, rows = png_pixels(data)
    colours, nonbg = set(), 0
    bg = rows[0][:3]
    for row in rows[::4]:
        for x in range(0, w * bpp, bpp * 4):
            px = row[x:x + 3]
            colours.add(px)
            nonbg += px != bg
    return {"width": w, "height": h, "colours": len(colours), "nonbg": nonbg}


def main():
    a = sys.argv[1:]
    shot, size, wait = None, "1280x900", True
    if "--no-wait" in a:  # a page without hpmon's code (an SVG): the load event is enough
        a.remove("--no-wait"); wait = False
    if "--shot" in a:
        i = a.index("--shot"); shot = a[i + 1]; del a[i:i + 2]
    if "--size" in a:
        i = a.index("--size"); size = a[i + 1]; del a[i:i + 2]
    page, steps, out = a
    width, height = (int(x) for x in size.split("x"))
    url = "file://" + os.path.abspath(page)
    steps = json.load(open(steps))
    b = Browser(width, height)
    res = {"results": [], "console": [], "exceptions": [], "requests": []}
    try:
        t = b.call("Target.createTarget", {"url": "about:blank"})
        s = b.call("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})["sessionId"]
        for d in ("Page", "Runtime", "Network", "Log"):
            b.call(d + ".enable", session=s)
        b.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
               "deviceScaleFactor": 1, "mobile": False}, session=s)
        b.call("Page.navigate", {"url": url}, session=s)
        b.wait_event("Page.loadEventFired", timeout=60)
        ev = lambda js: b.call("Runtime.evaluate", {"expression": js, "returnByValue": True,
                                                   "awaitPromise": True}, session=s)
        deadline = time.monotonic() + 60
        while wait:
            r = ev("window.hpmonReady")["result"]
            if r.get("type") == "number" or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        res["tti_ms"] = r.get("value") if wait else None

        def centre(sel):
            r = ev("(() => { const e = document.querySelector(%s); if (!e) return null;"
                   " e.scrollIntoView({block: 'center'});"
                   " const b = e.getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()"
                   % json.dumps(sel))["result"].get("value")
            if not r:
                raise RuntimeError("no element matches " + sel)
            return r

        def mouse(kind, xy, **kw):
            p = {"type": kind, "x": xy[0], "y": xy[1]}
            p.update(kw)
            b.call("Input.dispatchMouseEvent", p, session=s)

        for st in steps:
            if "eval" in st:
                r = ev(st["eval"])
                res["results"].append(r["result"].get("value"))
            elif "click" in st:
                xy = centre(st["click"])
                mouse("mouseMoved", xy)
                mouse("mousePressed", xy, button="left", clickCount=1)
                mouse("mouseReleased", xy, button="left", clickCount=1)
                res["results"].append(True)
            elif "drag" in st:
                sel, f0, f1 = st["drag"]
                box = ev("(() => { const e = document.querySelector(%s); if (!e) return null;"
                         " e.scrollIntoView({block: 'center'}); const b = e.getBoundingClientRect();"
                         " return [b.x, b.y, b.width, b.height]; })()" % json.dumps(sel))["result"].get("value")
                if not box:
                    raise RuntimeError("no element matches " + sel)
                y = box[1] + box[3] / 2
                at = lambda f: [box[0] + f * box[2], y]
                mouse("mouseMoved", at(f0))
                mouse("mousePressed", at(f0), button="left", clickCount=1)
                for k in range(1, 6):
                    mouse("mouseMoved", at(f0 + (f1 - f0) * k / 5), buttons=1)
                mouse("mouseReleased", at(f1), button="left", clickCount=1)
                res["results"].append(True)
            elif "hover" in st:
                mouse("mouseMoved", centre(st["hover"]))
                res["results"].append(True)
            elif "type" in st:
                centre(st["type"][0])
                ev("document.querySelector(%s).focus()" % json.dumps(st["type"][0]))
                b.call("Input.insertText", {"text": st["type"][1]}, session=s)
                res["results"].append(True)
        if shot:
            data = b.call("Page.captureScreenshot", {"format": "png"}, session=s)["data"]
            import base64
            png = base64.b64decode(data)
            with open(shot, "wb") as f:
                f.write(png)
            res["shot"] = shot_stats(png)
        # what came while the steps ran
        b.call("Runtime.evaluate", {"expression": "1"}, session=s)
        for e in b.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                res["console"].append(" ".join(str(x.get("value", x.get("description")))
                                               for x in p.get("args", [])))
            elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                res["console"].append(p["entry"].get("text"))
            elif m == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                res["exceptions"].append(d.get("exception", {}).get("description") or d.get("text"))
            elif m == "Network.requestWillBeSent":
                u = p["request"]["url"]
                if u != url:
                    res["requests"].append(u)
    finally:
        b.close()
    with open(out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
