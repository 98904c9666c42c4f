"""Example controllers written in Python (see docs/python-controllers.md)."""
