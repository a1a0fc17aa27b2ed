"""Facts about a module that several checks share."""
