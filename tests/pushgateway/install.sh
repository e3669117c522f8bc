#!/usr/bin/env bash
# Installs the Prometheus Pushgateway the metrics tests push to (Debian's
# prometheus-pushgateway), unless it is installed already. Prints the binary's path.
# The tests start it themselves on a free loopback port; nothing here starts a service.
set -euo pipefail

binary=/usr/bin/prometheus-pushgateway
if [ ! -x "$binary" ]; then
    if ! command -v apt-get >/dev/null; then
        echo "prometheus-pushgateway is missing and there is no apt-get to install it" >&2
        exit 1
    fi
    sudo=""
    if [ "$(id -u)" != 0 ]; then
        sudo="sudo"
    fi
    echo "installing prometheus-pushgateway (Debian package)" >&2
    $sudo apt-get update -qq >&2
    # No service is started by the package where no init system runs (a container, CI);
    # policy-rc.d is not needed for that, and the tests never use a system service.
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        prometheus-pushgateway >&2
fi
echo "$binary"
