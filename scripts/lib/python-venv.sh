#!/usr/bin/env bash
# The Python tools of the tests and the benchmark, in one virtual environment under
# target/, installed once and reused: schemathesis (the OpenAPI conformance test) and
# jwcrypto (tokens of an identity provider, for the JWKS tests and the RS256 benchmark).
# Sourced; `ensure_test_venv` exports SCHEMATHESIS (its `st`); the python beside it has
# jwcrypto. SCHEMATHESIS set beforehand names another `st` of schemathesis 4.

ensure_test_venv() {
  local venv started jwks_python
  local SCHEMATHESIS_VERSION=4.32.5 JWCRYPTO_VERSION=1.5.6
  if [[ -z "${SCHEMATHESIS:-}" ]]; then
    venv=target/schemathesis-venv
    if [[ "$("$venv/bin/st" --version 2>/dev/null)" != "st, version $SCHEMATHESIS_VERSION" ]]; then
      echo "installing schemathesis $SCHEMATHESIS_VERSION into $venv"
      started=$SECONDS
      rm -rf "$venv"
      if ! python3 -m venv "$venv" 2>/dev/null; then
        # Debian's python3 comes without venv; install it where we may.
        if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
          DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >&2
          rm -rf "$venv"
          python3 -m venv "$venv"
        else
          echo "ERROR: the OpenAPI test needs python3 with venv (Debian: python3-venv)" >&2
          exit 1
        fi
      fi
      "$venv/bin/pip" install --quiet --disable-pip-version-check \
        "schemathesis==$SCHEMATHESIS_VERSION"
      echo "schemathesis installed in $((SECONDS - started)) s"
    fi
    export SCHEMATHESIS="$PWD/$venv/bin/st"
  fi
  # An implementation of JWT independent of the service's, beside that `st`.
  jwks_python="$(dirname "$SCHEMATHESIS")/python"
  if ! "$jwks_python" -c "import jwcrypto" 2>/dev/null; then
    "$jwks_python" -m pip install --quiet --disable-pip-version-check "jwcrypto==$JWCRYPTO_VERSION"
  fi
}
