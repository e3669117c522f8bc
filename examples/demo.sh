#!/usr/bin/env bash
# driftctl's main job, end to end, on a local control plane (make demo):
# apply a sample repository, show drift corrected, show an entry removed and cleaned up.
# Everything runs on loopback; the control plane is stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH" NO_COLOR=${NO_COLOR:-}

work=$(mktemp -d)
plane=$work/controlplane
trap 'python -m tests.controlplane stop --dir "$plane" >/dev/null; rm -rf "$work"' EXIT

if [ -t 1 ] && [ -z "$NO_COLOR" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
run() { printf '$ %s\n' "$*"; "$@" || printf '(exit %s)\n' "$?"; }

step "Start a local control plane (etcd, kube-apiserver, kube-controller-manager)"
python -m tests.controlplane start --dir "$plane" --crd specs/webapp-crd.yaml
export KUBECONFIG=$plane/kubeconfig
kubectl_bin=$(bash tests/controlplane/build.sh)/kubectl
kubectl() { "$kubectl_bin" "$@"; }
kubectl create namespace demo >/dev/null

step "A Git repository with three WebApps"
repo=$work/repo
mkdir -p "$repo" && cp -r examples/webapps "$repo/apps"
git -C "$repo" init -q -b main
git -C "$repo" add . && git -C "$repo" -c user.name=demo -c user.email=demo@example.invalid commit -qm "three webapps"
run driftctl validate --repo "$repo" --ref main --path apps

step "Plan, then apply: everything is created"
run driftctl plan --repo "$repo" --ref main --path apps
run driftctl apply --repo "$repo" --ref main --path apps
run kubectl get webapps,deployments -n demo

step "A second apply changes nothing"
run driftctl apply --repo "$repo" --ref main --path apps

step "Pods become available: the WebApp status follows its Deployment"
# No kubelet runs here, so the demo writes the Deployment status the way the Deployment
# controller would once the pods are up; the next run carries it into the WebApp status.
generation=$(kubectl get deployment shop -n demo -o jsonpath='{.metadata.generation}')
kubectl patch deployment shop -n demo --subresource=status --type=merge -p \
  "{\"status\":{\"observedGeneration\":$generation,\"replicas\":2,\"updatedReplicas\":2,\"readyReplicas\":2,\"availableReplicas\":2}}" >/dev/null
run driftctl apply --repo "$repo" --ref main --path apps
run kubectl get webapps -n demo
run kubectl wait webapp/shop -n demo --for=condition=Ready --timeout=10s

step "Someone scales a Deployment, edits an image and adds an env var: drift"
run kubectl scale deployment/shop -n demo --replicas=5
run kubectl set image deployment/blog -n demo app=nginx:1.99
run kubectl set env deployment/blog -n demo DEBUG=1
run driftctl plan --repo "$repo" --ref main --path apps
run driftctl apply --repo "$repo" --ref main --path apps
run kubectl get deployments -n demo -o wide

step "docs is removed from Git: pruned through its finalizer"
sed -i '/^---$/,$d' "$repo/apps/blog.yaml"
git -C "$repo" -c user.name=demo -c user.email=demo@example.invalid commit -qam "remove docs"
run driftctl diff --repo "$repo" --base main~1 --head main --path apps
run driftctl apply --repo "$repo" --ref main --path apps
run kubectl get webapps,deployments -n demo

step "The events driftctl recorded on the WebApps"
run kubectl get events -n demo --sort-by=.metadata.creationTimestamp
