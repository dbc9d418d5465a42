#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon serve's limits (docs/hpmon-serve.md, HTTP). The request target
# must be /metrics exactly: with a query it is 400, percent-encoded or
# with more after it 404 (a raw NUL byte after it too, which the library
# cuts the target at), each counted as rejected. Under a slow-request
# attack (slowloris: connections that send one byte of their headers every
# 3 s, which an idle timeout never ends), on 127.0.0.1 only:
#   - 32 such connections from one address (127.0.0.2) hold 4 slots, the
#     bound per address: the others are closed at once, and a scrape from
#     127.0.0.1 succeeds while the 4 are still open;
#   - 64 from 16 addresses (127.0.0.10-25) hold every slot: a scrape
#     waits, and succeeds once the deadline has closed them;
#   - every connection that held a slot is closed when its request has
#     had 10 s, its deadline, however it trickles: not before, and within
#     a bound of it (generous, for a loaded machine).
# The attack is bounded in connections and time, and stops by itself.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve-lib.sh"

DEADLINE=10   # hpmon serve's deadline per request (serve-http.c)
PER_ADDRESS=4
MAX_CONN=64

start_serve -e task-clock

# -- the request target, exactly
code() { curl -s --max-time 30 -o /dev/null -w '%{http_code}' "$@"; }
expect_eq "GET /metrics" 200 "$(code "$SERVE_URL/metrics")"
expect_eq "HEAD /metrics" 200 "$(code -I "$SERVE_URL/metrics")"
expect_eq "GET /metrics?x=1" 400 "$(code "$SERVE_URL/metrics?x=1")"
expect_eq "GET /metrics?" 400 "$(code "$SERVE_URL/metrics?")"
expect_eq "GET /metrics%00" 404 "$(code "$SERVE_URL/metrics%00")"
expect_eq "GET /%6detrics" 404 "$(code "$SERVE_URL/%6detrics")"
expect_eq "GET /metrics%3Fx" 404 "$(code "$SERVE_URL/metrics%3Fx")"
expect_eq "GET /metrics/" 404 "$(code "$SERVE_URL/metrics/")"
# a raw NUL byte in the request line, which curl cannot send: the library
# cuts the target there ("/metrics\0x" read as "/metrics"), so it is told
# apart from the line as sent
raw() {
	python3 - "${SERVE_URL#http://}" "$1" <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=30)
s.sendall(sys.argv[2].encode().replace(b"NUL", b"\0") + b" HTTP/1.1\r\nHost: x\r\n"
          b"Connection: close\r\n\r\n")
reply = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    reply += b
print(reply.split(b" ", 2)[1].decode() if reply.startswith(b"HTTP/") else "none")
PY
}
expect_eq "GET /metrics (a raw request)" 200 "$(raw "GET /metrics")"
expect_eq "GET /metricsNULx, a raw NUL byte" 404 "$(raw "GET /metricsNULx")"
expect_eq "GET /metricsNUL, a raw NUL byte last" 404 "$(raw "GET /metricsNUL")"
expect_eq "HEAD /metricsNULx, a raw NUL byte" 404 "$(raw "HEAD /metricsNULx")"
curl -s --max-time 30 "$SERVE_URL/metrics?x=1" >"$E2E_TMP/400" || true
expect_grep "why a query is refused" "takes no query" "$E2E_TMP/400"
curl -sS --max-time 30 -o "$E2E_TMP/m" "$SERVE_URL/metrics" || fail "cannot scrape"
expect_eq "the refusals counted" "hpmon_rejected_requests_total 10" \
	"$(grep '^hpmon_rejected_requests_total' "$E2E_TMP/m")"

# -- slowloris
python3 - "${SERVE_URL#http://}" "$DEADLINE" "$PER_ADDRESS" "$MAX_CONN" >"$E2E_TMP/slow.json" <<'PY' ||
import json, socket, subprocess, sys, time

hostport, deadline, per_addr, max_conn = sys.argv[1], *map(int, sys.argv[2:5])
host, port = hostport.rsplit(":", 1)
port = int(port)
url = "http://%s/metrics" % hostport
TRICKLE = 3.0   # a byte every 3 s: the idle timeout (10 s) never comes
# the headers never end: the server waits for the rest
REQ = b"GET /metrics HTTP/1.1\r\nHost: " + hostport.encode() + b"\r\nX-Slow: " + b"a" * 4000

class Conn:
    def __init__(self, src):
        self.s = socket.socket()
        self.s.settimeout(60)
        self.s.bind((src, 0))
        self.s.connect((host, port))
        self.s.setblocking(False)
        self.t0 = time.monotonic()
        self.closed = None   # its lifetime, once the server closed it
        self.sent = 0

    def poll(self):
        if self.closed is not None:
            return
        try:
            if self.s.recv(4096) == b"":
                self.closed = time.monotonic() - self.t0
        except BlockingIOError:
            pass
        except OSError:
            self.closed = time.monotonic() - self.t0

    def trickle(self):
        if self.closed is None and self.sent < len(REQ):
            try:
                self.s.send(REQ[self.sent:self.sent + 1])
                self.sent += 1
            except BlockingIOError:
                pass
            except OSError:
                self.closed = time.monotonic() - self.t0

def run(conns, until, limit):
    """Trickle and watch until until() holds or limit seconds pass."""
    end = time.monotonic() + limit
    next_byte = 0.0
    while time.monotonic() < end:
        for c in conns:
            c.poll()
        if until():
            return True
        now = time.monotonic()
        if now >= next_byte:
            for c in conns:
                c.trickle()
            next_byte = now + TRICKLE
        time.sleep(0.05)
    return False

def scrape():
    t = time.monotonic()
    r = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}",
                        "--max-time", str(deadline + 60), url],
                       capture_output=True, text=True)
    return {"code": r.stdout, "err": r.stderr.strip(), "secs": time.monotonic() - t}

out = {}
# A: 32 from one address; all but the bound per address are closed at
# once (well before the deadline), then a scrape from 127.0.0.1
a = [Conn("127.0.0.2") for _ in range(32)]
run(a, lambda: sum(c.closed is not None for c in a) >= 32 - per_addr, deadline + 20)
refused = [c for c in a if c.closed is not None]
held = [c for c in a if c.closed is None]
out["a_refused"] = len(refused)
out["a_refused_secs"] = max([c.closed for c in refused], default=None)
out["a_scrape"] = scrape()
for c in held:
    c.poll()
out["a_open_after_scrape"] = sum(c.closed is None for c in held)
run(a, lambda: all(c.closed is not None for c in a), deadline + 40)
out["a_held_lifetimes"] = [c.closed for c in held]
out["a_held_bytes"] = [c.sent for c in held]
for c in a:
    c.s.close()

# B: every slot held, from 16 addresses; a scrape waits for the deadline
b = [Conn("127.0.0.%d" % (10 + i // per_addr)) for i in range(max_conn)]
run(b, lambda: False, 0.5)
out["b_scrape"] = scrape()
run(b, lambda: all(c.closed is not None for c in b), deadline + 40)
out["b_lifetimes"] = [c.closed for c in b]
for c in b:
    c.s.close()
print(json.dumps(out))
PY
	fail "the attack's script failed"
note "$(cat "$E2E_TMP/slow.json")"
J=$E2E_TMP/slow.json
late=$((DEADLINE + 30))

# A: the bound per address
expect_eq "connections from 127.0.0.2 closed at once (32 less the bound per address)" \
	$((32 - PER_ADDRESS)) "$(json "$J" "j['a_refused']")"
expect_eq "they were closed before any deadline" True "$(json "$J" "j['a_refused_secs'] < $DEADLINE")"
expect_eq "a scrape beside them: its status" 200 "$(json "$J" "j['a_scrape']['code']")"
expect_eq "the trickling connections were still open after that scrape" "$PER_ADDRESS" \
	"$(json "$J" "j['a_open_after_scrape']")"
expect_eq "the held connections kept trickling (a byte every 3 s: never idle)" True \
	"$(json "$J" "all(n >= 3 for n in j['a_held_bytes'])")"
expect_eq "the held connections closed at their deadline (${DEADLINE}s to ${late}s)" True \
	"$(json "$J" "all(t is not None and $DEADLINE - 0.5 <= t <= $late for t in j['a_held_lifetimes'])")"

# B: every slot held; the deadline frees them
expect_eq "a scrape while every slot was held: its status" 200 "$(json "$J" "j['b_scrape']['code']")"
expect_eq "that scrape ended within ${late}s" True "$(json "$J" "j['b_scrape']['secs'] <= $late")"
expect_eq "every slot's connection closed at its deadline (${DEADLINE}s to ${late}s)" True \
	"$(json "$J" "all(t is not None and $DEADLINE - 0.5 <= t <= $late for t in j['b_lifetimes'])")"

# and serving goes on
expect_eq "GET /metrics after the attack" 200 "$(code "$SERVE_URL/metrics")"
stop_serve
echo "PASS: $E2E_NAME"
