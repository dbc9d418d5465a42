# SPDX-License-Identifier: MIT
# Helpers of the record/report tests (tests/e2e/record-*.sh); source it
# after lib.sh.

# report_json PROFILE [REPORT ARGS...]: hpmon report --json into $E2E_TMP/rep.json
report_json() {
	local prof=$1
	shift
	hpm_ok report -i "$prof" --json "$@"
	cp "$E2E_TMP/out" "$E2E_TMP/rep.json"
}

# pct SYM: the percent of the main event of the row whose sym is SYM in
# $E2E_TMP/rep.json (0 when there is none).
pct() {
	json "$E2E_TMP/rep.json" "round(sum(r['events'][0]['percent'] for r in j['rows'] if r.get('sym') == '$1'), 3)"
}

# samples SYM: the samples of the main event in rows whose sym is SYM.
samples() {
	json "$E2E_TMP/rep.json" "sum(r['events'][0]['samples'] for r in j['rows'] if r.get('sym') == '$1')"
}

# perf_pct PERF_DATA SYM: perf report's percent for SYM (0 when absent).
perf_pct() {
	perf report -i "$1" --stdio --sort sym 2>/dev/null |
		awk -v s="$2" '$NF == s { gsub("%", "", $1); print $1; f = 1 } END { if (!f) print 0 }'
}

# tl_total FILE EVENT LABEL: the total of LABEL's line under EVENT in the
# text of report --timeline (empty when there is none)
tl_total() {
	awk -v ev="$2" -v lb="$3" '
		/^[^ #]/ { cur = $1 }
		cur == ev && $1 == lb { for (i = 1; i < NF; i++) if ($i == "total") print $(i + 1) }' "$1"
}
