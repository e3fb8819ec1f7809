# Starts and stops a throw-away MariaDB (or MySQL) server for tests and benchmarks.
# Source it, call private_mysql_start, then use $PRIVATE_MYSQL_URL; private_mysql_stop
# kills the server and deletes its data directory.

_find_bin() {
  local name
  for name in "$@"; do
    for dir in /usr/sbin /usr/bin /usr/local/sbin /usr/local/bin /usr/local/mysql/bin; do
      [[ -x "$dir/$name" ]] && { echo "$dir/$name"; return 0; }
    done
  done
  return 1
}

_install_server_if_missing() {
  _find_bin mariadbd mysqld >/dev/null && return 0
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "no MySQL-compatible server installed: installing mariadb-server (Debian)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server mariadb-client >&2
    # The package may start its own service; the tests never use it.
    return 0
  fi
  cat >&2 <<'MSG'
ERROR: the tests need a MySQL-compatible server and none is installed.
Either install one (Debian: apt-get install mariadb-server), or point the tests at a
running server with DATABASE_URL=mysql://user:pass@host:port (no database in the path;
each test creates its own database there).
MSG
  exit 1
}

_free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "ERROR: no free TCP port found for the private MySQL server" >&2
  exit 1
}

private_mysql_start() {
  _install_server_if_missing
  PRIVATE_MYSQL_DIR=$(mktemp -d "${TMPDIR:-/tmp}/idem-mysql.XXXXXX")
  local port server install
  port=$(_free_port)
  server=$(_find_bin mariadbd mysqld)
  mkdir -p "$PRIVATE_MYSQL_DIR/data"
  if install=$(_find_bin mariadb-install-db mysql_install_db) && [[ $server == *mariadbd ]]; then
    "$install" --no-defaults --datadir="$PRIVATE_MYSQL_DIR/data" --user="$(id -un)" \
      --auth-root-authentication-method=normal --skip-test-db >"$PRIVATE_MYSQL_DIR/install.log" 2>&1 \
      || { cat "$PRIVATE_MYSQL_DIR/install.log" >&2; exit 1; }
  else
    "$server" --no-defaults --initialize-insecure --datadir="$PRIVATE_MYSQL_DIR/data" \
      --user="$(id -un)" >"$PRIVATE_MYSQL_DIR/install.log" 2>&1 \
      || { cat "$PRIVATE_MYSQL_DIR/install.log" >&2; exit 1; }
  fi
  "$server" --no-defaults --datadir="$PRIVATE_MYSQL_DIR/data" --socket="$PRIVATE_MYSQL_DIR/sock" \
    --port="$port" --bind-address=127.0.0.1 --user="$(id -un)" --pid-file="$PRIVATE_MYSQL_DIR/pid" \
    --log-error="$PRIVATE_MYSQL_DIR/error.log" --skip-name-resolve --max-connections=1000 \
    --innodb-buffer-pool-size=256M ${PRIVATE_MYSQL_EXTRA_ARGS:-} >"$PRIVATE_MYSQL_DIR/server.out" 2>&1 &
  PRIVATE_MYSQL_PID=$!
  for _ in $(seq 1 300); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      PRIVATE_MYSQL_URL="mysql://root@127.0.0.1:$port?prefer_socket=false"
      echo "private MySQL-compatible server: $("$server" --version) on 127.0.0.1:$port"
      return 0
    fi
    if ! kill -0 "$PRIVATE_MYSQL_PID" 2>/dev/null; then
      echo "ERROR: the private MySQL server did not start:" >&2
      cat "$PRIVATE_MYSQL_DIR/error.log" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "ERROR: the private MySQL server did not open its port within 30 s" >&2
  cat "$PRIVATE_MYSQL_DIR/error.log" >&2
  exit 1
}

private_mysql_stop() {
  if [[ -n "${PRIVATE_MYSQL_PID:-}" ]]; then
    kill "$PRIVATE_MYSQL_PID" 2>/dev/null || true
    wait "$PRIVATE_MYSQL_PID" 2>/dev/null || true
  fi
  [[ -n "${PRIVATE_MYSQL_DIR:-}" ]] && rm -rf "$PRIVATE_MYSQL_DIR"
}
