#!/usr/bin/env bash
# Installs OpenSSH's server (Debian's openssh-server) for the SSH tests of the Git source,
# unless it is installed already. Prints the binary's path. The tests start their own sshd
# on a free loopback port with a configuration and host key of their own
# (tests/support/gitrepos.py, ssh_git_server); nothing here starts a service.
set -euo pipefail

binary=/usr/sbin/sshd
if [ ! -x "$binary" ]; then
    if ! command -v apt-get >/dev/null; then
        echo "openssh-server is missing and there is no apt-get to install it" >&2
        exit 1
    fi
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        sudo="sudo"
    fi
    echo "installing openssh-server (Debian package)" >&2
    $sudo apt-get update -qq >&2
    # Where no init system runs (a container, CI) the package starts no service; the
    # tests never use a system sshd.
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        openssh-server >&2
fi
# sshd started as root insists on its privilege separation folder, which systemd-tmpfiles
# makes at boot where an init system runs.
if [ "$(id -u)" = 0 ] && [ ! -d /run/sshd ]; then
    install -d -m 0755 /run/sshd
fi
echo "$binary"
