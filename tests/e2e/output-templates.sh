#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Output name templates (%r %s %h %p %j %%) from a launcher's variables,
# the rank, size, host and job in stat's JSON and the profile's header,
# and a clear error, naming the variables looked at, when one is missing.
. "$(dirname "$0")/lib.sh"

ec=$WORKLOADS/exitcode
cd "$E2E_TMP"
# job VAR=VALUE... -- ARGS: hpmon ARGS with these launcher variables and
# none of the others (as hpm in lib.sh: status in HPM_STATUS).
job() {
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	HPM_STATUS=0
	timeout -k 5 "$E2E_TIMEOUT" env -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u SLURM_PROCID \
		-u PMIX_RANK -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u SLURM_NTASKS -u SLURM_NPROCS \
		-u SLURM_JOB_ID -u OMPI_MCA_ess_base_jobid "${vars[@]}" "$HPMON" "$@" \
		>"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null || HPM_STATUS=$?
	[ "$HPM_STATUS" -ne 124 ] || fail "timed out: hpmon $*"
}
host=$(uname -n)

# OpenMPI's variables: every directive, and the exit status passes through.
job OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_SIZE=4 OMPI_MCA_ess_base_jobid=99 -- \
	stat -e task-clock --json -o 'st.%r.%s.%h.%j.%%.json' -- "$ec" 7
expect_eq "exit status of the rank" 7 "$HPM_STATUS"
f="st.3.4.$host.99.%.json"
[ -f "$f" ] || fail "no file $f; files: $(ls)"
expect_eq "rank in the JSON" 3 "$(json "$f" 'j["rank"]')"
expect_eq "size in the JSON" 4 "$(json "$f" 'j["size"]')"
expect_eq "host in the JSON" "$host" "$(json "$f" 'j["host"]')"
expect_eq "job in the JSON" 99 "$(json "$f" 'j["job"]')"

# Slurm's variables, read when OpenMPI's are absent; %p is hpmon's pid.
job SLURM_PROCID=12 SLURM_NTASKS=16 SLURM_JOB_ID=5551 \
	-- stat -e task-clock --json -o 'sl.%j.%r-of-%s.%p' -- "$ec" 0
expect_eq "exit status under Slurm's variables" 0 "$HPM_STATUS"
ls sl.5551.12-of-16.* >/dev/null 2>&1 || fail "no file sl.5551.12-of-16.PID; files: $(ls)"
p=$(ls sl.5551.12-of-16.*)
[[ ${p##*.} =~ ^[0-9]+$ ]] || fail "%p gave '${p##*.}', not a pid"
# PMI's (MPICH, Intel MPI) and PMIx's
job PMI_RANK=1 PMI_SIZE=2 -- stat -e task-clock -o 'pmi.%r.%s' -- "$ec" 0
[ -f pmi.1.2 ] || fail "PMI_RANK/PMI_SIZE did not give pmi.1.2; files: $(ls)"
job PMIX_RANK=6 -- stat -e task-clock -o 'pmix.%r' -- "$ec" 0
[ -f pmix.6 ] || fail "PMIX_RANK did not give pmix.6; files: $(ls)"

# Outside a launcher: no job fields in the JSON, and a name without '%'
# is taken as it is.
job -- stat -e task-clock --json -o plain.json -- "$ec" 0
expect_eq "no rank outside a launcher" False "$(json plain.json '"rank" in j or "host" in j')"

# A directive without its variable: a usage error naming the variables,
# and no file.
job -- stat -e task-clock -o 'miss.%r' -- "$ec" 0
expect_eq "exit status of a missing rank" 129 "$HPM_STATUS"
expect_grep "the variables looked at" \
	'%r .*needs the rank.*OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID or PMIX_RANK' "$E2E_TMP/err"
job -- record -q -e cpu-clock -o 'miss.%j' -- "$ec" 0
expect_eq "exit status of a missing job id" 129 "$HPM_STATUS"
expect_grep "record names the job variables" 'SLURM_JOB_ID or OMPI_MCA_ess_base_jobid' "$E2E_TMP/err"
job -- stat -e task-clock -o 'bad.%q' -- "$ec" 0
expect_eq "exit status of an unknown directive" 129 "$HPM_STATUS"
expect_grep "an unknown directive is named" "'%q' in the output name" "$E2E_TMP/err"
# A value that would make a path: refused, not written somewhere else.
job PMI_RANK=../1 -- stat -e task-clock -o 'esc.%r' -- "$ec" 0
expect_eq "exit status of a rank that is not a number" 129 "$HPM_STATUS"
expect_grep "the bad variable is named" 'PMI_RANK is not usable in a file name' "$E2E_TMP/err"
[ -z "$(ls | grep -E '^(miss|bad|esc)')" ] || fail "a refused template left files: $(ls)"

# record: the template, and the rank, size and job in the header.
job SLURM_PROCID=2 SLURM_NTASKS=8 SLURM_JOB_ID=77 \
	-- record -q -e cpu-clock -o 'prof.%h.%r' -- "$ec" 3
expect_eq "exit status of a recorded rank" 3 "$HPM_STATUS"
[ -f "prof.$host.2" ] || fail "no profile prof.$host.2; files: $(ls)"
hpm_ok report -i "prof.$host.2" --json
expect_eq "rank, size, job in the profile" "2 8 77" \
	"$(json "$E2E_TMP/out" '"%d %d %s" % (j["rank"], j["size"], j["job"])')"
hpm_ok report -i "prof.$host.2"
expect_grep "report's header" '^# rank 2 of 8, job 77$' "$E2E_TMP/out"
