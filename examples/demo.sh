#!/usr/bin/env bash
# driftctl's main job, end to end, on a local control plane (make demo).
#
# As root the control plane gets a node (containerd, kubelet, kube-scheduler): driftctl is
# installed as the CronJob of cronjob/, which fires once, reads the repository from a Git
# server on loopback with a token from a Secret, and creates the WebApps, whose Pods then
# really run; the WebApp status follows them. Then drift is corrected, a commit with an
# image that cannot be pulled stalls (named with its Pod) while the old Pods keep serving,
# a fixing commit rolls out, and a WebApp removed from Git is pruned through its finalizer
# (driftctl run by hand, as on a laptop).
# Not root (or with DEMO_NODE=no), there is no node: the same story without Pods, whose
# status then stays not ready.
# Everything runs on loopback; images are imported, never pulled; it is all stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH" NO_COLOR=${NO_COLOR:-}

work=$(mktemp -d)
plane=$work/controlplane
git_server=""
cleanup() {
    if [ -n "$git_server" ]; then kill "$git_server" 2>/dev/null || true; fi
    python -m tests.controlplane stop --dir "$plane" >/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

if [ -t 1 ] && [ -z "$NO_COLOR" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
run() { printf '$ %s\n' "$*"; "$@" || printf '(exit %s)\n' "$?"; }
commit() { git -C "$repo" -c user.name=demo -c user.email=demo@example.invalid commit -q "$@"; }

if [ "$(id -u)" -eq 0 ] && [ "${DEMO_NODE:-yes}" != no ]; then node=yes; else node=""; fi

if [ -n "$node" ]; then
    step "Start a local control plane with a node (etcd, kube-apiserver, kube-controller-manager, containerd, kube-scheduler, kubelet)"
    python -m tests.controlplane start --node --dir "$plane" --crd specs/webapp-crd.yaml
    images=$(python -c 'from tests.controlplane.testimages import hello_image as h; print(h(1), h(2))')
    # shellcheck disable=SC2086  # two paths, no spaces
    python -m tests.controlplane import --dir "$plane" $images "$(python -m image.build 2>/dev/null)"
else
    step "Start a local control plane (etcd, kube-apiserver, kube-controller-manager)"
    echo "no node (it needs root): no Pod runs here; as root, make demo runs the CronJob and real Pods"
    python -m tests.controlplane start --dir "$plane" --crd specs/webapp-crd.yaml
fi
export KUBECONFIG=$plane/kubeconfig
kubectl_bin=$(bash tests/controlplane/build.sh)/kubectl
kubectl() { "$kubectl_bin" "$@"; }
kubectl create namespace demo >/dev/null

step "A Git repository with three WebApps"
repo=$work/served/shop.git
mkdir -p "$repo" && cp -r examples/webapps "$repo/apps"
if [ -n "$node" ]; then
    # Nothing is pulled here: the WebApps run the test images imported into the node.
    sed -i 's/image: nginx:1.2[67]/image: localhost\/hello:1/' "$repo"/apps/*.yaml
fi
git -C "$repo" init -q -b main
git -C "$repo" add . && commit -m "three webapps"
run driftctl validate --repo "$repo" --ref main --path apps

if [ -n "$node" ]; then
    step "Install driftctl as a CronJob: cronjob/, the node's overlay, this machine's values"
    # The repository over HTTP on loopback, for a token only.
    printf 'demo-token-%s\n' "$RANDOM$RANDOM" >"$work/token"
    python -m tests.support.gitrepos serve-http "$work/served" --token-file "$work/token" >"$work/git-url" &
    git_server=$!
    until [ -s "$work/git-url" ]; do sleep 0.1; done
    url="$(cat "$work/git-url")/shop.git"
    port=$(python -c 'import json,sys; print(json.load(open(sys.argv[1]))["node"]["api_port"])' "$plane/state.json")
    mkdir -p "$work/overlay"
    cat >"$work/overlay/kustomization.yaml" <<EOF
resources: [$(realpath --relative-to="$work/overlay" tests/node/overlay)]
patches:
  - patch: |-
      {"apiVersion": "batch/v1", "kind": "CronJob",
       "metadata": {"name": "driftctl", "namespace": "driftctl-system"},
       "spec": {"suspend": true, "jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "driftctl",
         "env": [{"name": "KUBERNETES_SERVICE_HOST", "value": "127.0.0.1"},
                 {"name": "KUBERNETES_SERVICE_PORT", "value": "$port"},
                 {"name": "DRIFTCTL_REPO", "value": "$url"}]}]}}}}}}
EOF
    kubectl kustomize "$work/overlay" >"$work/driftctl.yaml"
    # The CronJob is applied suspended until the Secret exists.
    echo "(its namespace warns about hostNetwork: the one change a Pod needs on this machine, tests/node/overlay)"
    run kubectl apply --server-side -f "$work/driftctl.yaml"
    run kubectl create secret generic driftctl-git -n driftctl-system --from-file=token="$work/token"
    run kubectl patch cronjob driftctl -n driftctl-system -p '{"spec":{"suspend":false}}'
    run kubectl get cronjob -n driftctl-system

    step "The CronJob fires (every minute here): its Job's Pod runs driftctl in the cluster"
    printf 'waiting for the next minute ...\n'
    until kubectl get jobs -n driftctl-system -o name 2>/dev/null | grep -q .; do sleep 1; done
    kubectl patch cronjob driftctl -n driftctl-system -p '{"spec":{"suspend":true}}' >/dev/null
    job=$(kubectl get jobs -n driftctl-system -o jsonpath='{.items[0].metadata.name}')
    kubectl wait "job/$job" -n driftctl-system --for=condition=Complete --timeout=120s >/dev/null
    run kubectl get jobs -n driftctl-system
    run kubectl logs "job/$job" -n driftctl-system
    run kubectl get webapps,deployments -n demo

    step "The WebApps' Pods start on the node"
    for app in blog docs shop; do
        kubectl rollout status "deployment/$app" -n demo --timeout=90s >/dev/null
    done
    run kubectl get pods -n demo -o wide

    step "The next run writes each WebApp's status from its real Pods"
    run kubectl create job driftctl-now --from=cronjob/driftctl -n driftctl-system
    kubectl wait job/driftctl-now -n driftctl-system --for=condition=Complete --timeout=120s >/dev/null
    run kubectl get webapps -n demo
    run kubectl wait webapp/shop -n demo --for=condition=Ready --timeout=10s
else
    step "Plan, then apply: everything is created"
    kubectl create namespace driftctl-system >/dev/null  # where apply keeps its run lock
    run driftctl plan --repo "$repo" --ref main --path apps
    run driftctl apply --repo "$repo" --ref main --path apps
    run kubectl get webapps,deployments -n demo

    step "A second apply changes nothing; with no node, no Pod is ever available"
    run driftctl apply --repo "$repo" --ref main --path apps
    run kubectl get webapps -n demo
fi

step "Someone scales a Deployment, edits an image and adds an env var: drift"
if [ -n "$node" ]; then other=localhost/hello:2; else other=nginx:1.99; fi
run kubectl scale deployment/shop -n demo --replicas=5
run kubectl set image deployment/blog -n demo "app=$other"
run kubectl set env deployment/blog -n demo DEBUG=1
run driftctl plan --repo "$repo" --ref main --path apps
run driftctl apply --repo "$repo" --ref main --path apps
run kubectl get deployments -n demo -o wide

if [ -n "$node" ]; then
    status_of() {
        printf '$ kubectl get webapp %s -n demo -o yaml   # its status\n' "$1"
        kubectl get webapp "$1" -n demo -o yaml | sed -n '/^status:/,$p'
    }
    step "A commit with a bad image: the new Pod cannot start, the old ones keep serving"
    sed -i 's/image: localhost\/hello:1/image: localhost\/hello:1-typo/' "$repo/apps/shop.yaml"
    commit -am "shop: a typo in the image"
    committed=$SECONDS
    run driftctl apply --repo "$repo" --ref main --path apps --wait --wait-timeout 60
    printf '(Stalled, with the Pod and its reason, %s s after the commit was applied)\n' "$((SECONDS - committed))"
    run kubectl get pods -n demo -l app.kubernetes.io/name=shop
    run kubectl wait webapp/shop -n demo --for=condition=Ready --timeout=5s
    run kubectl get events -n demo --field-selector reason=RolloutStalled
    status_of shop

    step "A fixing commit rolls out, and the WebApp is Ready at it"
    sed -i 's/image: localhost\/hello:1-typo/image: localhost\/hello:2/' "$repo/apps/shop.yaml"
    commit -am "shop: hello 2"
    run driftctl apply --repo "$repo" --ref main --path apps --wait --wait-timeout 90
    run git -C "$repo" rev-parse HEAD
    status_of shop
fi

step "docs is removed from Git: pruned through its finalizer"
sed -i '/^---$/,$d' "$repo/apps/blog.yaml"
commit -am "remove docs"
run driftctl diff --repo "$repo" --base main~1 --head main --path apps
# --yes: on a terminal apply asks before it prunes (a demo runs through)
run driftctl apply --repo "$repo" --ref main --path apps --yes
run kubectl get webapps,deployments -n demo

step "The events driftctl recorded on the WebApps"
run kubectl get events -n demo --sort-by=.metadata.creationTimestamp --field-selector=involvedObject.kind=WebApp
