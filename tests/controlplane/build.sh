#!/usr/bin/env bash
# Builds the control plane (etcd, kube-apiserver, kube-controller-manager, kubectl)
# from the Go modules pinned in go.mod, into a cache outside the checkout keyed by
# version. A complete cache costs nothing; a missing one takes minutes.
#
# `build.sh node` (or DRIFTCTL_BUILD_NODE=1) builds a node's kubelet and kube-scheduler
# too, into the same cache: only the tests that run Pods need them.
#
# Prints the bin directory on its last line of stdout.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kube_version=v1.37.2
etcd_version=v3.7.0
cache_root=${DRIFTCTL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/driftctl}
bin_dir=$cache_root/controlplane/$kube_version/bin
binaries=(etcd kube-apiserver kube-controller-manager kubectl)
with_node=${DRIFTCTL_BUILD_NODE:-0}
case "${1:-}" in
  "") ;;
  node) with_node=1 ;;
  *) echo "usage: build.sh [node]" >&2; exit 2 ;;
esac
if [ "$with_node" = 1 ]; then binaries+=(kubelet kube-scheduler); fi

complete() {
  local b
  for b in "${binaries[@]}"; do [ -x "$bin_dir/$b" ] || return 1; done
}

if complete; then
  echo "$bin_dir"
  exit 0
fi

if ! command -v go >/dev/null; then
  echo "build.sh: Go is needed to build the control plane (Go 1.26 or newer)" >&2
  exit 1
fi

mkdir -p "$bin_dir"
cd "$here"
export CGO_ENABLED=0 GOFLAGS=-mod=mod
build_date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
minor=${kube_version#v1.}; minor=${minor%%.*}
pkg=k8s.io/component-base/version
kube_ldflags="-s -w -X $pkg.gitVersion=$kube_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor
  -X $pkg.gitTreeState=clean -X $pkg.buildDate=$build_date"
# Build one at a time: building kube-apiserver peaks near 2.6 GiB and the machine has 2 cores.
build() {
  local name=$1 package=$2 ldflags=$3 started
  [ -x "$bin_dir/$name" ] && return 0
  started=$(date +%s)
  echo "building $name ($package) ..." >&2
  go build -trimpath -ldflags "$ldflags" -o "$bin_dir/$name.partial" "$package"
  mv "$bin_dir/$name.partial" "$bin_dir/$name"
  echo "built $name in $(( $(date +%s) - started ))s" >&2
}
build etcd go.etcd.io/etcd/server/v3 "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=$etcd_version"
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$kube_ldflags"
build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager "$kube_ldflags"
build kubectl k8s.io/kubernetes/cmd/kubectl "$kube_ldflags"
if [ "$with_node" = 1 ]; then
  build kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler "$kube_ldflags"
  build kubelet k8s.io/kubernetes/cmd/kubelet "$kube_ldflags"
fi
echo "$bin_dir"
