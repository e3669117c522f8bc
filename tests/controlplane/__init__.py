"""A real Kubernetes control plane for driftctl's tests and demo.

etcd, kube-apiserver and kube-controller-manager built from their Go modules (build.sh)
and started on loopback ports (launcher.py), with a throwaway CA per start (pki.py).
"""
