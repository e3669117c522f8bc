"""The pure half of `driftctl doctor`: what each check found (`findings`), the
permissions the configured run needs and the rules that grant them (`permissions`), the
cluster's parts judged (`cluster`: its version, the CRD, the run lock, the installation),
the keys and receivers (`local`), and the WebApps stuck in deletion with what may release
them (`stuck`). The shell and the pipeline read; this decides."""
