#!/usr/bin/env bash
# Builds the seed operator (a kube-rs WebApp operator kept outside this repository, in
# ../shared/peers/seed-operator: a measuring instrument, never part of driftctl) into the
# cache beside the control plane's binaries, for the node test that migrates from it. Once
# built, a run costs about a second (cargo finds everything fresh). Prints the binary's path.
#
# Its sources: DRIFTCTL_SEED_OPERATOR when set; else shared/peers/seed-operator beside this
# checkout, beside the main checkout of this worktree, or beside the repository this clone
# was made from (CI clones into a temporary folder on the same machine).
# When the sources or cargo are missing: under CI=true it fails (the node test must run);
# elsewhere it says so and the test is skipped.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cache_root=${DRIFTCTL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/driftctl}
target=$cache_root/seed-operator
peer=shared/peers/seed-operator

candidates=()
if [ -n "${DRIFTCTL_SEED_OPERATOR:-}" ]; then candidates+=("$DRIFTCTL_SEED_OPERATOR"); fi
candidates+=("$root/../$peer")
common=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)
if [ -n "$common" ]; then candidates+=("$(dirname "$common")/../$peer"); fi
origin=$(git -C "$root" config --get remote.origin.url 2>/dev/null || true)
origin=${origin#file://}
case "$origin" in /*) candidates+=("$origin/../$peer") ;; esac

missing() {
  if [ "${CI:-}" = true ]; then
    echo "seed operator: $1; under CI the node test that needs it must run" >&2
    exit 1
  fi
  echo "seed operator: $1; its node test will be skipped" >&2
  exit 0
}

source_dir=""
for candidate in "${candidates[@]}"; do
  if [ -f "$candidate/Cargo.toml" ]; then source_dir=$(cd "$candidate" && pwd); break; fi
done
[ -n "$source_dir" ] || missing "no sources (tried ${candidates[*]}; set DRIFTCTL_SEED_OPERATOR)"

cargo=$(command -v cargo || true)
if [ -z "$cargo" ] && [ -x "$HOME/.cargo/bin/cargo" ]; then cargo=$HOME/.cargo/bin/cargo; fi
[ -n "$cargo" ] || missing "cargo is not installed"

"$cargo" build --release --locked --quiet --manifest-path "$source_dir/Cargo.toml" \
  --target-dir "$target" >&2
echo "$target/release/seed-webapp-operator"
