"""kustomize's subset that shapes WebApps, rendered natively: no plugin, no remote, no helm.

- `fields`: a kustomization document to a Kustomization value, every field it cannot
  render refused with file:line:column and why.
- `configuration`: the transformer configuration (`configurations:`) that maps `images`
  and `replicas` onto a kind, and the one driftctl ships for WebApp.
- `gather`: the resources and components a kustomization lists, read through the shell's
  FileReader, inside the repository only: no URL, no path out of it, no symlink, no cycle,
  a bounded chain.
- `patches`: strategic merge and JSON 6902 patches.
- `transform`: namespace, labels, annotations, name prefix and suffix, replicas, images.

Pure: the reader is the only way in, and it reads only what a kustomization lists.
"""
