#!/usr/bin/env bash
# A throw-away 3-node MariaDB Galera cluster on 127.0.0.1, for tests and benchmarks.
#
#   scripts/lib/private-galera.sh start        prints GALERA_DIR=... and GALERA_URLS=...
#   scripts/lib/private-galera.sh kill9 N      SIGKILL node N (1..3)
#   scripts/lib/private-galera.sh restart N    restart node N after a kill; it rejoins by IST
#   scripts/lib/private-galera.sh stop         stop every node and delete the cluster
#
# kill9, restart and stop read GALERA_DIR from the environment. The start needs no state
# transfer and no bootstrap: one datadir is installed and copied to the three nodes with
# the same Galera position and a saved 3-member primary view, so pc.recovery re-forms the
# cluster when all three start (about 2 s). Short EVS timeouts keep the stall after a node
# dies near 2.5 s. Installs Debian's galera-4 and rsync when missing and running as root.
set -euo pipefail

PROVIDER=/usr/lib/galera/libgalera_smm.so
RUNAS=$(id -un)
# As root, rsync state transfer runs as 'nobody' and fails: the nodes run as mysql.
[[ $RUNAS == root ]] && RUNAS=mysql
# Shorter EVS timeouts than Galera's (suspect 5 s) so a killed node is evicted in about
# 2.5 s, but not so short that a node starved of CPU on a busy 2-core machine is evicted
# by mistake (1 s was, in CI).
PROV_EXTRA=${PROV_EXTRA-";evs.keepalive_period=PT0.5S;evs.inactive_check_period=PT0.5S;evs.suspect_timeout=PT2S;evs.inactive_timeout=PT4S;evs.install_timeout=PT4S;evs.join_retrans_period=PT0.2S"}

source "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

# Galera needs MariaDB's own server (mariadbd, built with wsrep) whatever the tests' main
# server is: a machine whose tests use DATABASE_URL and have no local server gets Debian's
# mariadb-server (as root); a machine whose server is MySQL is told to name a cluster with
# GALERA_URLS, since installing MariaDB would replace its MySQL.
install_if_missing() {
  [[ -f $PROVIDER && -x /usr/sbin/mariadbd ]] && command -v mariadb-install-db >/dev/null \
    && command -v rsync >/dev/null && return 0
  # Debian's mariadb-server replaces an installed MySQL server: never do that to a machine.
  if [[ ! -x /usr/sbin/mariadbd ]] && { command -v mysqld >/dev/null || [[ -x /usr/sbin/mysqld ]]; }; then
    echo "ERROR: the Galera tests need MariaDB's server (mariadbd with wsrep), and this" \
      "machine's server is MySQL, which installing MariaDB would replace: set GALERA_URLS" \
      "to three nodes of a running MariaDB Galera cluster" >&2
    exit 1
  fi
  debian_install "MariaDB Galera (mariadbd, galera-4, rsync), or GALERA_URLS naming three nodes of a running cluster" \
    mariadb-server galera-4 rsync
}

opts() {
  local n=$1 b=$BASE
  echo --no-defaults --user="$RUNAS" --datadir="$DIR/n$n" --socket="$DIR/n$n.sock" \
    --pid-file="$DIR/n$n.pid" --log-error="$DIR/n$n.err" --port=$((b + n)) \
    --bind-address=127.0.0.1 --skip-name-resolve --max-connections=600 \
    --innodb-buffer-pool-size=64M --innodb-log-file-size=16M --innodb-flush-log-at-trx-commit=0 \
    --binlog-format=ROW --innodb-autoinc-lock-mode=2 \
    --wsrep-on=ON --wsrep-provider=$PROVIDER --wsrep-cluster-name=t$b \
    --wsrep-node-name=n$n --wsrep-node-address=127.0.0.1:$((b + 10 + n)) \
    --wsrep-node-incoming-address=127.0.0.1:$((b + n)) \
    --wsrep-cluster-address=gcomm://127.0.0.1:$((b + 11)),127.0.0.1:$((b + 12)),127.0.0.1:$((b + 13)) \
    --wsrep-sst-method=rsync --wsrep-sst-receive-address=127.0.0.1:$((b + 30 + n)) \
    "--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:$((b + 10 + n));ist.recv_addr=127.0.0.1:$((b + 20 + n));gcache.size=32M$PROV_EXTRA"
}

query() { mariadb --no-defaults -uroot -S "$DIR/n$1.sock" -N -B -e "$2" 2>/dev/null; }

start_node() {
  local n=$1
  shift
  # shellcheck disable=SC2046
  setsid /usr/sbin/mariadbd $(opts "$n") "$@" </dev/null >>"$DIR/n$n.out" 2>&1 &
}

# Returns 2, at once, when a node could not bind one of its ports (taken by another program
# since the start looked): the caller then tries other ports.
wait_synced() {
  local deadline=$((SECONDS + ${GALERA_TIMEOUT:-90})) n
  for n in 1 2 3; do
    until [[ "$(query $n "SELECT GROUP_CONCAT(VARIABLE_VALUE ORDER BY VARIABLE_NAME) FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('wsrep_cluster_size','wsrep_local_state_comment','wsrep_ready')")" == "3,Synced,ON" ]]; do
      if grep -qsi "address already in use" "$DIR"/n?.err; then
        return 2
      fi
      if ((SECONDS >= deadline)); then
        echo "ERROR: Galera node $n not synced; its log:" >&2
        tail -30 "$DIR/n$n.err" >&2
        return 1
      fi
      sleep 0.1
    done
  done
}

# Every node process of the cluster in $DIR, stopped: from the pid files, and by its data
# directory (a node shutting down removes its pid file before it exits).
stop_nodes() {
  local pids pid
  pids=$( { cat "$DIR"/n?.pid 2>/dev/null || true; pgrep -f -- "--datadir=$DIR/n" || true; } | sort -u)
  for pid in $pids; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in $pids; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}

# A fresh cluster in a new $DIR on ports from $BASE + 1 to $BASE + 33: below the kernel's
# ephemeral range, so no program binding port 0 is handed one, and in 20000-25999, which
# the tests' own servers leave to these scripts (tests/src/ports.rs).
start_cluster() {
  DIR=$(mktemp -d "${TMPDIR:-/tmp}/idem-galera.XXXXXX")
  for _ in $(seq 50); do
    BASE=$((20000 + RANDOM % 5960))
    busy=0
    for o in 1 2 3 11 12 13 21 22 23 31 32 33; do
      (exec 3<>"/dev/tcp/127.0.0.1/$((BASE + o))") 2>/dev/null && busy=1
    done
    [[ $busy == 0 ]] && break
  done
  echo "$BASE" >"$DIR/base"
  chown "$RUNAS": "$DIR"
  printf "FLUSH PRIVILEGES;\nCREATE USER 'app'@'127.0.0.1' IDENTIFIED BY 'app';\nGRANT ALL ON *.* TO 'app'@'127.0.0.1';\n" >"$DIR/users.sql"
  mariadb-install-db --no-defaults --user="$RUNAS" --datadir="$DIR/n1" --skip-test-db \
    --innodb-log-file-size=16M --extra-file="$DIR/users.sql" >"$DIR/install.log" 2>&1 \
    || { cat "$DIR/install.log" >&2; exit 1; }
  printf '# GALERA saved state\nversion: 2.1\nuuid:    %s\nseqno:   0\nsafe_to_bootstrap: 0\n' \
    "$(uuid)" >"$DIR/n1/grastate.dat"
  cp -a "$DIR/n1" "$DIR/n2"
  cp -a "$DIR/n1" "$DIR/n3"
  members=("$(uuid)" "$(uuid)" "$(uuid)")
  for n in 1 2 3; do
    printf 'my_uuid: %s\n#vwbeg\nview_id: 3 %s 1\nbootstrap: 0\nmember: %s 0\nmember: %s 0\nmember: %s 0\n#vwend\n' \
      "${members[n - 1]}" "${members[0]}" "${members[0]}" "${members[1]}" "${members[2]}" \
      >"$DIR/n$n/gvwstate.dat"
  done
  chown -R "$RUNAS": "$DIR"
  start_node 1
  start_node 2
  start_node 3
  wait_synced
}

uuid() {
  printf '%04x%04x-%04x-4%03x-a%03x-%04x%04x%04x\n' $RANDOM $RANDOM $RANDOM $((RANDOM % 4096)) \
    $((RANDOM % 4096)) $RANDOM $RANDOM $RANDOM
}

case ${1:-} in
start)
  install_if_missing
  for attempt in 1 2 3 4 5; do
    status=0
    start_cluster || status=$?
    [[ $status == 0 ]] && break
    stop_nodes
    rm -rf "$DIR"
    [[ $status == 2 ]] || exit 1
    echo "a Galera port was taken (attempt $attempt); trying others" >&2
  done
  [[ $status == 0 ]] || { echo "ERROR: no free ports for the Galera cluster after 5 attempts" >&2; exit 1; }
  echo "GALERA_DIR=$DIR"
  echo "GALERA_URLS=mysql://app:app@127.0.0.1:$((BASE + 1))?prefer_socket=false,mysql://app:app@127.0.0.1:$((BASE + 2))?prefer_socket=false,mysql://app:app@127.0.0.1:$((BASE + 3))?prefer_socket=false"
  ;;
kill9)
  DIR=${GALERA_DIR:?}
  kill -KILL "$(cat "$DIR/n$2.pid")"
  ;;
restart)
  DIR=${GALERA_DIR:?}
  BASE=$(cat "$DIR/base")
  n=$2
  # After SIGKILL the saved position is -1: recover it from InnoDB so the node rejoins
  # by IST instead of a full state transfer.
  # shellcheck disable=SC2046
  /usr/sbin/mariadbd $(opts "$n") --wsrep-recover --log-error="$DIR/n$n.rec" </dev/null >/dev/null 2>&1 || true
  pos=$(sed -n 's/.*WSREP: Recovered position: //p' "$DIR/n$n.rec" | tail -1)
  start_node "$n" ${pos:+--wsrep-start-position=$pos}
  wait_synced
  ;;
stop)
  DIR=${GALERA_DIR:?}
  stop_nodes
  rm -rf "$DIR"
  ;;
*)
  echo "usage: $0 start | kill9 N | restart N | stop" >&2
  exit 2
  ;;
esac
