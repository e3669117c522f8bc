"""Container images built without an engine or a registry.

oci.py writes OCI image-layout tarballs, layer.py the tar of a small root file system,
cache.py keeps built tarballs keyed by what they are built from, and build.py builds the
driftctl image itself (`python -m image.build`; docs/get-started/image.md says how). The
Containerfile at the repository's root describes the same image for people who have an
engine.
"""
