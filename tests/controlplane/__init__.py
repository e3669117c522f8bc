"""A real Kubernetes control plane for driftctl's tests and demo, and a node when Pods must run.

etcd, kube-apiserver and kube-controller-manager built from their Go modules (build.sh)
and started on loopback ports (launcher.py, processes.py), with a throwaway CA per start
(pki.py). On request a node joins them: containerd, kube-scheduler and a kubelet
(node.py; build.sh node, node-packages.sh), with test images built here
(testimages.py), and what it leaves outside its folder removed on stop (leftovers.py).
"""
