"""The jobs that run many solves: ``compare``, ``verify``, ``sweep``, ``reproduce``, ``bench``.

The public functions are :func:`mechopt.compare`, :func:`mechopt.verify` and
:func:`mechopt.sweep`; each module here holds its job's parts.

Examples
--------
>>> import inspect, mechopt
>>> list(inspect.signature(mechopt.verify).parameters)[:1]
['paper']
"""
