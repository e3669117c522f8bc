"""What a run tells people: the digest's facts, and what was already told.

Pure. `facts` turns what a run did or found (its plan, its outcomes, its refusals, the
error that stopped it) into items of a few categories; `record` decides, against what was
last told (kept in the cluster by shell.notify_record), which of them are worth telling
now; `forge` decides the commit status of the revision applied. The bodies each receiver
gets are render.digest's and render.sinks'; sending is shell.notify_http's.
"""
