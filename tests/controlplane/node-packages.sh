#!/usr/bin/env bash
# Installs the Debian packages a node needs (containerd, runc, the CNI plugins) and the
# ones its images are built from (busybox-static, mmdebstrap), with apt, only when one
# of them is missing. Needs root. A complete set costs nothing.
set -euo pipefail

packages=(containerd runc containernetworking-plugins busybox-static mmdebstrap)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "node-packages.sh: installing ${missing[*]} needs root" >&2
  exit 1
fi
started=$(date +%s)
echo "installing ${missing[*]} ..." >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "installed ${missing[*]} in $(( $(date +%s) - started ))s" >&2
