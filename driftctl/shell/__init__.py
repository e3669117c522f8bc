"""The effectful shell: does, never decides. One module per outside system."""
