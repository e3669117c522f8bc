#!/usr/bin/env bash
# Installs the Prometheus Alertmanager the notification tests send alerts to (Debian's
# prometheus-alertmanager), unless it is installed already. Prints the binary's path.
# The tests start their own on a free loopback port, with clustering off and a
# configuration of their own (tests/support/alertmanager.py); nothing here starts a
# service.
set -euo pipefail

binary=/usr/bin/prometheus-alertmanager
if [ ! -x "$binary" ]; then
    if ! command -v apt-get >/dev/null; then
        echo "prometheus-alertmanager is missing and there is no apt-get to install it" >&2
        exit 1
    fi
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        sudo="sudo"
    fi
    echo "installing prometheus-alertmanager (Debian package)" >&2
    $sudo apt-get update -qq >&2
    # Where no init system runs (a container, CI) the package starts no service; the
    # tests never use a system Alertmanager.
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        prometheus-alertmanager >&2
fi
echo "$binary"
