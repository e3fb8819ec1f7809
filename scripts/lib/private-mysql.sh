# Starts and stops a throw-away MariaDB (or MySQL) server for tests and benchmarks.
# Source it, call private_mysql_start, then use $PRIVATE_MYSQL_URL; private_mysql_stop
# kills the server and deletes its data directory.

source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

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
  # The package may start its own service; the tests never use it. Without root, point the
  # tests at a running server instead: DATABASE_URL=mysql://user:pass@host:port (no
  # database in the path; each test creates its own database there).
  debian_install "a MySQL-compatible server, or DATABASE_URL naming one" \
    mariadb-server mariadb-client
}

# A port for a private server: below the kernel's ephemeral range, so no program that
# binds port 0 is ever handed it, and in 20000-25999, which the tests' own servers (NATS,
# tests/src/ports.rs) leave to these scripts. Another program may still hold a fixed port
# there: the start then fails to bind and is tried again on another one.
_random_port() {
  echo $((20000 + RANDOM % 6000))
}

# Whether the server listening on 127.0.0.1:$1 is the one whose pid file is $2 (not another
# program that took the port first).
_is_ours() {
  local client
  client=$(_find_bin mariadb mysql) || return 1
  [[ "$("$client" --no-defaults -h127.0.0.1 -P"$1" -uroot -N -B -e 'SELECT @@pid_file' 2>/dev/null)" == "$2" ]]
}

private_mysql_start() {
  _install_server_if_missing
  PRIVATE_MYSQL_DIR=$(mktemp -d "${TMPDIR:-/tmp}/idem-mysql.XXXXXX")
  local port server install attempt
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
  for attempt in 1 2 3 4 5; do
    port=$(_random_port)
    "$server" --no-defaults --datadir="$PRIVATE_MYSQL_DIR/data" --socket="$PRIVATE_MYSQL_DIR/sock" \
      --port="$port" --bind-address=127.0.0.1 --user="$(id -un)" --pid-file="$PRIVATE_MYSQL_DIR/pid" \
      --log-error="$PRIVATE_MYSQL_DIR/error.log" --skip-name-resolve --max-connections=1000 \
      --innodb-buffer-pool-size=256M ${PRIVATE_MYSQL_EXTRA_ARGS:-} >"$PRIVATE_MYSQL_DIR/server.out" 2>&1 &
    PRIVATE_MYSQL_PID=$!
    for _ in $(seq 1 300); do
      if _is_ours "$port" "$PRIVATE_MYSQL_DIR/pid"; then
        PRIVATE_MYSQL_URL="mysql://root@127.0.0.1:$port?prefer_socket=false"
        echo "private MySQL-compatible server: $("$server" --version) on 127.0.0.1:$port"
        return 0
      fi
      if ! kill -0 "$PRIVATE_MYSQL_PID" 2>/dev/null; then
        break
      fi
      sleep 0.1
    done
    if kill -0 "$PRIVATE_MYSQL_PID" 2>/dev/null; then
      echo "ERROR: the private MySQL server did not open its port within 30 s" >&2
      cat "$PRIVATE_MYSQL_DIR/error.log" >&2
      exit 1
    fi
    if ! grep -qi "address already in use" "$PRIVATE_MYSQL_DIR/error.log"; then
      echo "ERROR: the private MySQL server did not start:" >&2
      cat "$PRIVATE_MYSQL_DIR/error.log" >&2
      exit 1
    fi
    echo "port $port is taken (attempt $attempt); trying another" >&2
    : >"$PRIVATE_MYSQL_DIR/error.log"
  done
  echo "ERROR: no free port for the private MySQL server after 5 attempts" >&2
  exit 1
}

private_mysql_stop() {
  if [[ -n "${PRIVATE_MYSQL_PID:-}" ]]; then
    kill "$PRIVATE_MYSQL_PID" 2>/dev/null || true
    wait "$PRIVATE_MYSQL_PID" 2>/dev/null || true
  fi
  [[ -n "${PRIVATE_MYSQL_DIR:-}" ]] && rm -rf "$PRIVATE_MYSQL_DIR"
}
