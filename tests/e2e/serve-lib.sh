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

# start_prometheus TARGET: Debian's prometheus on a free loopback port,
# scraping TARGET (HOST:PORT) every second, its data in the scratch
# directory: $PROM (its URL), $PROM_PID. Tries another port when the one
# picked was taken. stop_prometheus ends it.
start_prometheus() {
	local try pport
	cat >"$E2E_TMP/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: hpmon
    static_configs:
      - targets: ['$1']
YML
	promtool check config "$E2E_TMP/prometheus.yml" >/dev/null ||
		fail "promtool refuses the test's config"
	for try in 1 2 3 4 5; do
		pport=$(free_port)
		bg timeout -k 5 100 prometheus --config.file="$E2E_TMP/prometheus.yml" \
			--storage.tsdb.path="$E2E_TMP/tsdb" --web.listen-address="127.0.0.1:$pport" \
			--log.level=warn 2>"$E2E_TMP/prom.err"
		PROM_PID=$BG_PID
		PROM=http://127.0.0.1:$pport
		wait_for "Prometheus to be ready" 60 prom_settled
		kill -0 "$PROM_PID" 2>/dev/null && return 0
		wait "$PROM_PID" || true
		grep -q "address already in use" "$E2E_TMP/prom.err" ||
			fail "prometheus did not start: $(tail -5 "$E2E_TMP/prom.err")"
		note "port $pport was taken meanwhile, trying another"
	done
	fail "no free port for Prometheus in 5 tries"
}

prom_settled() {
	curl -sf --max-time 2 "$PROM/-/ready" >/dev/null || ! kill -0 "$PROM_PID" 2>/dev/null
}

stop_prometheus() {
	kill -TERM "$PROM_PID"
	wait "$PROM_PID" || true
}

# query EXPR: the number of series PromQL returns now (its answer in
# $E2E_TMP/q.json)
query() {
	curl -sf --max-time 5 -G "$PROM/api/v1/query" --data-urlencode "query=$1" >"$E2E_TMP/q.json" ||
		{ echo 0; return; }
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["status"]=="success"; print(len(d["data"]["result"]))' "$E2E_TMP/q.json"
}
