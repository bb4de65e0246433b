"""TritonGym's evaluation worker: a Python process that has torch and triton.

Two roles, never mixed in one process:
  reference  trusted: generates inputs, runs the task's reference, compares candidate outputs.
             It never imports candidate code.
  candidate  a fork server: imports torch and triton once, then runs each candidate in a forked,
             sandboxed child that dies after the request.

The host talks to a worker over two private pipes (fd 3: requests, fd 4: replies), one JSON object
per line; stdout and stderr are never used for the protocol. docs/worker-protocol.md describes it.
"""
