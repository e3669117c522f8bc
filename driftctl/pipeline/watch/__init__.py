"""`driftctl watch`: the operator form of the same engine, one process per instance.

The process waits for the instance's Lease (a standby polls it), and while it leads:
- the feed (`feed`): informers keep this instance's WebApps and Deployments in memory; a
  change of either queues its WebApp's place, unless it changed only in its own
  bookkeeping (core.watch.changes) or is the very object driftctl itself just wrote (its
  resourceVersion is the one the write answered with);
- the workers (`workers`): --concurrency threads take one place each at a time from the
  work queue (core.watch.queue) and reconcile it (`reconcile`): the engine's plan for that
  WebApp alone, from memory, then the same applier as apply; a failure retries the place
  later (core.watch.backoff: 1 s doubling to 5 min, reset on success);
- the passes (`passes`): a full plan and apply, exactly the batch run's (fresh LISTs),
  at the start, when the Git ref moved (looked at every --git-poll seconds, fetched only
  when it moved), and every --resync seconds, with the queue paused meanwhile;
- leadership and the main loop (`leader`), and the process's metrics (`metrics`).
A stop (SIGTERM) finishes the reconciles in progress and releases the Lease; a lost Lease
stops the process (exit 6). Nothing is decided here.
"""

from driftctl.pipeline.watch.leader import watch

__all__ = ["watch"]
