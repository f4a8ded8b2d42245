#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the store's tests and CI.
#
#   eval "$(scripts/pg_cluster.sh start)"   # starts one; exports WARRANT_TEST_POSTGRES and PG_CLUSTER_DIR
#   scripts/pg_cluster.sh stop [DIR]        # stops it and removes its folder (DIR defaults to $PG_CLUSTER_DIR)
#
# The cluster lives in a fresh temporary folder, listens on 127.0.0.1 only, on a free port,
# with trust authentication for loopback (nothing to leak; the folder is removed on stop).
# initdb refuses to run as root, so as root the cluster runs as the `postgres` user.
# `start` prints shell assignments only (on stdout); everything else goes to stderr.
set -euo pipefail

pg_bin() {
  local name=$1 dir
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
  for dir in /usr/lib/postgresql/*/bin; do
    if [ -x "$dir/$name" ]; then echo "$dir/$name"; return; fi
  done
  echo "pg_cluster: $name not found; install PostgreSQL (apt-get install -y postgresql)" >&2
  exit 1
}

# Runs a command as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

start() {
  local initdb pg_ctl dir port
  initdb=$(pg_bin initdb)
  pg_ctl=$(pg_bin pg_ctl)
  dir=$(mktemp -d "${TMPDIR:-/tmp}/warrant-pg.XXXXXX")
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
  as_owner "$initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
  port=$(free_port)
  # Sockets in the cluster's own folder (not /var/run/postgresql, which may not exist).
  if ! as_owner "$pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=200 -c fsync=off" \
      start >&2; then
    cat "$dir/server.log" >&2
    rm -rf "$dir"
    exit 1
  fi
  echo "export PG_CLUSTER_DIR=$dir"
  echo "export WARRANT_TEST_POSTGRES=postgresql://postgres@127.0.0.1:$port/postgres"
}

stop() {
  local dir=${1:-${PG_CLUSTER_DIR:-}}
  if [ -z "$dir" ] || [ ! -d "$dir" ]; then
    echo "pg_cluster: no cluster folder given (stop DIR, or set PG_CLUSTER_DIR)" >&2
    exit 1
  fi
  if [ -f "$dir/data/postmaster.pid" ]; then
    as_owner "$(pg_bin pg_ctl)" -D "$dir/data" -m fast -w stop >&2 || true
  fi
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start | stop [DIR]" >&2; exit 2 ;;
esac
