#!/usr/bin/env bash
# Releases driftctl's cleanup finalizer from every WebApp of one instance, for an uninstall
# (docs/how-to/upgrade-and-uninstall.md). Without driftctl running, a WebApp that is
# deleted would keep the finalizer webapp.example.com/cleanup, and so stay Terminating, for
# ever; so would its namespace, and the CRD when it is deleted.
#
#   cronjob/release-finalizers.sh [INSTANCE]      (default: default; kubectl's context)
#
# Only WebApps labelled driftctl.example.com/instance=INSTANCE are touched, and on each
# only driftctl's own finalizer is removed: the JSON Patch first tests that the entry at
# that index is still driftctl's, so a list that changed in between makes the patch fail
# instead of removing another controller's finalizer. Stop the CronJob first, or a run
# would add the finalizer again. Needs only kubectl (KUBECTL=... to name another).
set -euo pipefail

instance=${1:-default}
kubectl=${KUBECTL:-kubectl}
finalizer=webapp.example.com/cleanup

# One line per WebApp holding the finalizer: namespace, name, the finalizer's index.
listing='{{range .items}}{{$ns := .metadata.namespace}}{{$name := .metadata.name}}'
listing+='{{range $i, $f := .metadata.finalizers}}{{if eq $f "'$finalizer'"}}'
listing+='{{$ns}} {{$name}} {{$i}}{{"\n"}}{{end}}{{end}}{{end}}'

released=0
while read -r namespace name index; do
    [ -n "$name" ] || continue
    patch='[{"op":"test","path":"/metadata/finalizers/'$index'","value":"'$finalizer'"},'
    patch+='{"op":"remove","path":"/metadata/finalizers/'$index'"}]'
    "$kubectl" patch webapp "$name" -n "$namespace" --type=json -p "$patch" >/dev/null
    echo "released WebApp/$namespace/$name"
    released=$((released + 1))
done < <("$kubectl" get webapps --all-namespaces \
    -l "driftctl.example.com/instance=$instance" -o go-template="$listing")
echo "$released WebApps of instance $instance released"
