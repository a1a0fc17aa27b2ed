"""How a notebook's cells are marked in the one program jaxlint checks: notebooks.py writes the marker
and maps findings back by it; the analysis reads a cell's start from it."""

MARKER = "# %% notebook cell {}"  # never says `jax`: the prefilter reads the program
CELL_MARKER = MARKER.split("{")[0]  # how the analysis sees a cell start: a comment before its first line
# The line magics that time a statement (`%timeit f(x)`), each written as the statement with this comment after it.
TIMING_MAGICS = ("%timeit", "%time")
# The cell magics that time the rest of their cell (`%%timeit` on a cell's first line), written as `pass` with this
# comment after it.
TIMING_CELL_MAGICS = ("%%timeit", "%%time")
TIMED_BY = "# %% {} of IPython"
TIMED_MARK = TIMED_BY.split("{")[0]
