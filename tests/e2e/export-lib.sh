# SPDX-License-Identifier: MIT
# Helpers of the export tests (tests/e2e/report-export-*.sh); source it
# after lib.sh.

EXPORT_DIR=${SRCDIR:-$(dirname "$0")/../..}/tests/export

# npm_validators PKG@VERSION...: the validators nobody here wrote, from
# npm, installed once into a cache under the build directory (the tests
# share it, one install at a time); NPM_MODULES is their node_modules.
# Skips the test, saying why, when node or npm is missing or the registry
# cannot be reached.
npm_validators() {
	command -v node >/dev/null && command -v npm >/dev/null ||
		skip "node and npm are needed for the independent validators (apt-get install nodejs npm)"
	local dir
	dir=$(cd "$(dirname "$HPMON")" && pwd)/npm-validators
	mkdir -p "$dir"
	NPM_MODULES=$dir/node_modules
	(
		flock 9
		missing=()
		for p in "$@"; do
			[ -f "$NPM_MODULES/${p%@*}/package.json" ] || missing+=("$p")
		done
		[ ${#missing[@]} -eq 0 ] ||
			timeout 300 npm install --no-audit --no-fund --fetch-retries 2 --prefix "$dir" "${missing[@]}" \
				>"$E2E_TMP/npm.log" 2>&1
	) 9>"$dir/.lock" ||
		skip "npm could not install $* (is the npm registry reachable?): $(tail -n 2 "$E2E_TMP/npm.log" 2>/dev/null)"
}

# export_check ARGS...: tests/export/check.py ARGS, failing the test with
# its message.
export_check() {
	python3 "$EXPORT_DIR/check.py" "$@" || fail "check.py $1 failed (see above)"
}
