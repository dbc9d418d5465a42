# SPDX-License-Identifier: MIT
# Helpers of the hpmon serve tests (tests/e2e/serve*.sh): source after lib.sh.

[ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ] ||
	skip "system-wide counting needs root or perf_event_paranoid <= 0"
command -v curl >/dev/null || skip "curl is not installed (scripts/deps host installs it)"

# free_port: a TCP port of 127.0.0.1 that no one listens on now (another
# process may take it before we do: callers retry).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# start_serve ARGS...: hpmon serve ARGS on a free loopback port, in the
# background: $SERVE_PID, $SERVE_URL (http://127.0.0.1:PORT), its stderr in
# $E2E_TMP/serve.err. Tries another port when the one picked was taken.
start_serve() {
	local try port
	for try in 1 2 3 4 5; do
		port=$(free_port)
		bg timeout -k 5 100 "$HPMON" serve --listen "127.0.0.1:$port" "$@" 2>"$E2E_TMP/serve.err"
		SERVE_PID=$BG_PID
		SERVE_URL=http://127.0.0.1:$port
		wait_for "hpmon serve to listen or fail" 30 serve_settled
		if grep -q "serving http://127.0.0.1:$port/metrics" "$E2E_TMP/serve.err"; then
			return 0
		fi
		wait "$SERVE_PID" || true
		grep -q "in use" "$E2E_TMP/serve.err" || fail "hpmon serve $* did not start:
$(cat "$E2E_TMP/serve.err")"
		note "port $port was taken meanwhile, trying another"
	done
	fail "no free port in 5 tries"
}

serve_settled() {
	grep -q "serving http" "$E2E_TMP/serve.err" || ! kill -0 "$SERVE_PID" 2>/dev/null
}

# stop_serve: SIGTERM, and hpmon serve must exit 0 within 10 s.
stop_serve() {
	local rc=0
	kill -TERM "$SERVE_PID"
	wait_for "hpmon serve to stop on SIGTERM" 10 eval '! kill -0 "$SERVE_PID" 2>/dev/null'
	wait "$SERVE_PID" || rc=$?
	expect_eq "exit status of hpmon serve after SIGTERM" 0 "$rc"
}
