#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the store's tests and CI.
#
#   eval "$(scripts/pg_cluster.sh start)"   # starts one; exports WARRANT_TEST_POSTGRES and PG_CLUSTER_DIR
#   scripts/pg_cluster.sh start --ssl DIR   # the same with TLS on (and required): DIR holds
#                                           # server.pem and server.key (e.g. crates/store/tests/data/tls)
#   scripts/pg_cluster.sh stop [DIR]        # stops it and removes its folder (DIR defaults to $PG_CLUSTER_DIR)
#
# The cluster lives in a fresh temporary folder, listens on 127.0.0.1 only, on a free port,
# with trust authentication for loopback (nothing to leak; the folder is removed on stop).
# With --ssl, loopback TCP connections are accepted only over TLS (`hostssl`), so a client
# that connects at all has encrypted.
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
  local initdb pg_ctl dir port ssl_dir="" ssl_opts=""
  if [ "${1:-}" = --ssl ]; then
    ssl_dir=${2:-}
    if [ ! -f "$ssl_dir/server.pem" ] || [ ! -f "$ssl_dir/server.key" ]; then
      echo "pg_cluster: --ssl DIR needs DIR/server.pem and DIR/server.key" >&2
      exit 2
    fi
  fi
  initdb=$(pg_bin initdb)
  pg_ctl=$(pg_bin pg_ctl)
  dir=$(mktemp -d "${TMPDIR:-/tmp}/warrant-pg.XXXXXX")
  chmod 755 "$dir"
  if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
  as_owner "$initdb" -D "$dir/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
  if [ -n "$ssl_dir" ]; then
    # The server refuses a key others can read: copies owned by the cluster's owner, mode 0600.
    cp "$ssl_dir/server.pem" "$dir/server.pem"
    cp "$ssl_dir/server.key" "$dir/server.key"
    chmod 600 "$dir/server.key"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir/server.pem" "$dir/server.key"; fi
    printf 'local all all trust\nhostssl all all 127.0.0.1/32 trust\n' > "$dir/data/pg_hba.conf"
    if [ "$(id -u)" = 0 ]; then chown postgres: "$dir/data/pg_hba.conf"; fi
    ssl_opts="-c ssl=on -c ssl_cert_file=$dir/server.pem -c ssl_key_file=$dir/server.key"
  fi
  port=$(free_port)
  # Sockets in the cluster's own folder (not /var/run/postgresql, which may not exist).
  if ! as_owner "$pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=200 -c fsync=off $ssl_opts" \
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
  start) start "${2:-}" "${3:-}" ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start [--ssl DIR] | stop [DIR]" >&2; exit 2 ;;
esac
