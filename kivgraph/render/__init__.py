"""Renderers: turn query and indexing results into text, markdown and JSON. No I/O beyond strings."""
