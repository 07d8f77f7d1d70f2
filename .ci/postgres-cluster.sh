#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests of ModelStorePostgres
# and exports MODELSTORE_POSTGRES_URL (and, for tests that start a cluster
# of their own, where the server programs are: export_postgres_programs).
# Sourced by .ci/run, which defines install_packages; it can also be
# sourced by hand (as root or as a user who may run initdb) to get a
# cluster for `swift test --filter ModelStorePostgresTests`.
#
# The cluster lives in a fresh temporary folder (data, socket and log),
# listens on 127.0.0.1 only, on a port that was free a moment before, with
# trust authentication (loopback, throwaway data). An EXIT trap stops it and
# removes the folder, on success as on failure. When it cannot start, the
# function prints the server's log and fails, so CI fails with the reason
# instead of skipping the PostgreSQL suites.

# The folder of PostgreSQL's server programs (initdb, pg_ctl, pg_isready),
# or nothing: Debian's newest version first (Debian does not put them on
# PATH), then a folder on PATH that has all three.
postgres_bin_dir() {
    local dir
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) $(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)"); do
        if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/pg_isready" ]; then
            echo "$dir"
            return
        fi
    done
}

# A TCP port on 127.0.0.1 that nothing listens on (the kernel's choice).
postgres_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Runs a server program as the cluster's owner: initdb refuses to run as
# root, so as root the programs run as the `postgres` user.
postgres_as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# For tests that start a cluster of their own (the restart test, which must
# not restart the shared one): the folder of the server programs, and, as
# root, the user to run them as (`runuser -u "$MODELSTORE_POSTGRES_RUN_AS" --`).
export_postgres_programs() {
    export MODELSTORE_POSTGRES_BIN="$MODELSTORE_PG_BIN"
    if [ "$(id -u)" -eq 0 ]; then
        export MODELSTORE_POSTGRES_RUN_AS=postgres
    else
        unset MODELSTORE_POSTGRES_RUN_AS
    fi
}

stop_postgres_cluster() {
    if [ -n "${MODELSTORE_PG_DIR:-}" ] && [ -d "$MODELSTORE_PG_DIR" ]; then
        postgres_as_owner "$MODELSTORE_PG_BIN/pg_ctl" -D "$MODELSTORE_PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$MODELSTORE_PG_DIR"
    fi
}

start_postgres_cluster() {
    MODELSTORE_PG_BIN="$(postgres_bin_dir)"
    if [ -z "$MODELSTORE_PG_BIN" ]; then
        if ! declare -F install_packages >/dev/null; then
            echo "error: PostgreSQL's initdb was not found, and install_packages is not defined to install it" >&2
            return 1
        fi
        install_packages postgresql
        MODELSTORE_PG_BIN="$(postgres_bin_dir)"
        if [ -z "$MODELSTORE_PG_BIN" ]; then
            echo "error: PostgreSQL was installed but initdb is neither on PATH nor in /usr/lib/postgresql/*/bin" >&2
            return 1
        fi
    fi
    export_postgres_programs
    MODELSTORE_PG_DIR="$(mktemp -d -t modelstore-pg.XXXXXX)"
    trap stop_postgres_cluster EXIT
    if [ "$(id -u)" -eq 0 ]; then
        if ! id postgres >/dev/null 2>&1; then
            echo "error: running as root, and there is no postgres user to run initdb as" >&2
            return 1
        fi
        chown postgres "$MODELSTORE_PG_DIR"
    fi
    local log="$MODELSTORE_PG_DIR/server.log"
    if ! postgres_as_owner "$MODELSTORE_PG_BIN/initdb" -D "$MODELSTORE_PG_DIR/data" -U postgres --auth=trust \
        --encoding=UTF8 --no-locale >"$MODELSTORE_PG_DIR/initdb.log" 2>&1; then
        echo "error: initdb failed:" >&2
        cat "$MODELSTORE_PG_DIR/initdb.log" >&2
        return 1
    fi
    # A port found free can be taken before the server binds it: try a few.
    local attempt port
    for attempt in 1 2 3; do
        port="$(postgres_free_port)"
        if postgres_as_owner "$MODELSTORE_PG_BIN/pg_ctl" -D "$MODELSTORE_PG_DIR/data" -l "$log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $MODELSTORE_PG_DIR -c fsync=off" start >/dev/null; then
            break
        fi
        port=""
    done
    if [ -z "$port" ] || ! "$MODELSTORE_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" -t 30; then
        echo "error: the PostgreSQL server did not start; its log:" >&2
        cat "$log" >&2 || true
        return 1
    fi
    export MODELSTORE_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
    echo "==> $("$MODELSTORE_PG_BIN/pg_ctl" --version) at $MODELSTORE_POSTGRES_URL"
}
