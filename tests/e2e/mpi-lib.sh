# SPDX-License-Identifier: MIT
# Helpers of the tests/e2e/mpi-*.sh tests: source it after lib.sh.
# OpenMPI's mpirun on this one machine, in a container without a network:
# shared memory between the ranks (btl self,vader, without the
# single-copy mechanism, which needs ptrace rights a container may lack),
# local launch only, as many ranks as asked whatever the cores.

command -v mpirun >/dev/null ||
	skip "mpirun is not installed (Debian: apt-get install openmpi-bin libopenmpi-dev, or scripts/deps)"
[ -x "$WORKLOADS/mpi-pages" ] ||
	skip "the MPI workload was not built: no MPI C compiler at configure time (Debian: libopenmpi-dev; then reconfigure)"

export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_mpi_warn_on_fork=0

# mpi NP ARGS...: mpirun -np NP ARGS, bounded; its status in MPI_STATUS,
# its output in $E2E_TMP/mpi.out and mpi.err.
mpi() {
	local np=$1
	shift
	MPI_STATUS=0
	timeout -k 5 "$E2E_TIMEOUT" mpirun --oversubscribe --allow-run-as-root -np "$np" "$@" \
		>"$E2E_TMP/mpi.out" 2>"$E2E_TMP/mpi.err" </dev/null || MPI_STATUS=$?
	[ "$MPI_STATUS" -ne 124 ] || fail "timed out after ${E2E_TIMEOUT}s: mpirun $*"
}
