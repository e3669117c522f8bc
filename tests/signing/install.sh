#!/usr/bin/env bash
# Installs what the tests of signed commits sign and verify with: GnuPG (Debian's gnupg:
# gpg, and the gpg-agent that makes the tests' own keys) and OpenSSH's client (Debian's
# openssh-client: ssh-keygen), unless they are installed already. Prints gpg's path.
# The tests make their keys in temporary homes of their own (tests/support/signing.py);
# nothing here makes a key or starts an agent.
set -euo pipefail

missing=()
for tool in gpg:gnupg gpg-agent:gnupg ssh-keygen:openssh-client; do
    if ! command -v "${tool%%:*}" >/dev/null; then
        missing+=("${tool#*:}")
    fi
done
if [ "${#missing[@]}" -gt 0 ]; then
    if ! command -v apt-get >/dev/null; then
        echo "${missing[*]} missing and there is no apt-get to install them" >&2
        exit 1
    fi
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        sudo="sudo"
    fi
    packages=$(printf '%s\n' "${missing[@]}" | sort -u)
    echo "installing $(echo $packages) (Debian packages)" >&2
    $sudo apt-get update -qq >&2
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        $packages >&2
fi
command -v gpg
