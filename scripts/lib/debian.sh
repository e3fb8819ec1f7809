# Sourced by the scripts that need an installed server (MariaDB, Galera, NATS, Prometheus).

# debian_install WHAT PACKAGE... : installs the Debian PACKAGEs when this runs as root on a
# system with apt-get; otherwise prints how to get WHAT and exits.
debian_install() {
  local what=$1
  shift
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "$what is missing: installing $* (Debian)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
    return 0
  fi
  echo "ERROR: the tests need $what (Debian: apt-get install $*)" >&2
  exit 1
}
