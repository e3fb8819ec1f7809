# Sourced by the scripts that run a cargo subcommand from crates.io (cargo-nextest,
# cargo-mutants, cargo-fuzz): installs the pinned version where the command is missing.

# ensure_cargo_tool CRATE VERSION [extra `cargo install` arguments...]
# Installs CRATE at VERSION (--locked, into cargo's own bin directory) unless a `CRATE`
# command is on the PATH already; warns when the one found is another version.
ensure_cargo_tool() {
  local crate=$1 version=$2
  shift 2
  if ! command -v "$crate" >/dev/null; then
    echo "installing $crate $version (once; later runs reuse it)" >&2
    local started=$SECONDS
    cargo install --locked --quiet "$crate" --version "$version" "$@" >&2
    echo "$crate installed in $((SECONDS - started)) s" >&2
  fi
  local found
  found=$("$crate" "${crate#cargo-}" --version 2>/dev/null | head -1)
  if [[ "$found" != "$crate $version"* ]]; then
    echo "warning: ${found:-an unknown version of $crate} on PATH; this project pins $version" >&2
  fi
}
