#!/usr/bin/env bash
# Installs the pinned Python environment of `bin/faq tune` (torch, transformers, onnx, onnxruntime) into a venv
# under $HOME/.cache/questionflow/faq-tune-<hash of the pins> and prints the venv's python on its last line.
#
# Idempotent, like bench/litellm/install.sh: a venv whose stamp matches requirements.txt + constraints.txt + the
# Python version is reused as is; a partial one (no stamp, or a stamp of other pins) is removed and built again.
# One builder at a time (flock). Needs only PyPI (pip's ordinary index) and Python >= 3.10 (PYTHON=... to choose).
# PyPI's torch for linux x86_64 is the CUDA build (~20 nvidia-* wheels): the first install downloads ~3 GB and
# takes several minutes (measured in README.md); CI never runs it. Heavy steps run under `nice -n 19`.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
req="$here/requirements.txt"
con="$here/constraints.txt"

python="${PYTHON:-python3}"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || { echo "install.sh: $python is older than 3.10" >&2; exit 1; }

want="$( { cat "$req"; [ -f "$con" ] && cat "$con"; "$python" -c 'import sys; print(sys.version)'; } | sha256sum | cut -d' ' -f1)"
venv="${FAQ_TUNE_VENV:-$HOME/.cache/questionflow/faq-tune-${want:0:12}}"
stamp="$venv/.questionflow-complete"

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
  echo "install.sh: reusing $venv" >&2
else
  echo "install.sh: building $venv (first install: large, see faq-index/tune/README.md)" >&2
  start=$(date +%s)
  rm -rf "$venv"
  "$python" -m venv "$venv"
  export PIP_DISABLE_PIP_VERSION_CHECK=1
  cflag=()
  [ -f "$con" ] && cflag=(-c "$con")
  nice -n 19 "$venv/bin/pip" install --quiet --no-input --no-cache-dir -r "$req" "${cflag[@]}" >&2
  # Smoke check: everything imports, torch runs on the CPU, nothing reaches a model hub.
  HF_HUB_OFFLINE=1 "$venv/bin/python" -c '
import torch, transformers, tokenizers, onnx, onnxruntime, onnxruntime.quantization
assert float(torch.ones(2).sum()) == 2.0
print("torch", torch.__version__, "transformers", transformers.__version__, "onnxruntime", onnxruntime.__version__)' >&2
  echo "$want" > "$stamp"
  echo "install.sh: built in $(( $(date +%s) - start )) s, $(du -sh "$venv" | cut -f1)" >&2
fi

echo "$venv/bin/python"
