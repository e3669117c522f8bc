"""The pure half of `driftctl watch`: what to reconcile, when, and when to try again.

Nothing here waits, reads a clock or talks to anything: times and random numbers are
passed in, and pipeline.watch (with shell.informer) does what these values say.
"""
