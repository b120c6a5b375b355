#!/usr/bin/env bash
# Installs the pinned LiteLLM proxy into a venv under $HOME/.cache/questionflow/litellm-<version>
# and prints the path of the `litellm` executable on its last line.
#
# Idempotent: a venv whose stamp matches requirements.txt + constraints.txt is reused as is;
# a partial one (no stamp, or a stamp of other pins) is removed and built again.
# Needs only PyPI (pip's ordinary index) and a Python >= 3.10 (PYTHON=... to choose; default python3).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
req="$here/requirements.txt"
con="$here/constraints.txt"
version="$(sed -n 's/^litellm\[proxy\]==\([^ ]*\).*/\1/p' "$req")"
[ -n "$version" ] || { echo "install.sh: no litellm[proxy]==<version> line in $req" >&2; exit 1; }

python="${PYTHON:-python3}"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || { echo "install.sh: $python is older than 3.10" >&2; exit 1; }

venv="${LITELLM_VENV:-$HOME/.cache/questionflow/litellm-$version}"
stamp="$venv/.questionflow-complete"
want="$( { cat "$req"; [ -f "$con" ] && cat "$con"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"

# One builder at a time (two benchmark runs starting together would otherwise share a half-built venv).
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/litellm" ]; then
  echo "install.sh: reusing $venv" >&2
else
  echo "install.sh: building $venv (litellm $version)" >&2
  rm -rf "$venv"
  "$python" -m venv "$venv"
  export PIP_DISABLE_PIP_VERSION_CHECK=1
  cflag=()
  [ -f "$con" ] && cflag=(-c "$con")
  "$venv/bin/pip" install --quiet --no-input -r "$req" "${cflag[@]}" >&2
  # Smoke check: the proxy imports with the local cost map and without reaching the internet.
  LITELLM_LOCAL_MODEL_COST_MAP=True LITELLM_TELEMETRY_DISABLED=true \
    "$venv/bin/python" -c 'import litellm, litellm.proxy.proxy_server, redis' >&2
  echo "$want" > "$stamp"
fi

echo "$venv/bin/litellm"
