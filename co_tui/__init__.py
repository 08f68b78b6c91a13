"""co-tui: a terminal chat for an LLM agent with honest context governance."""

__version__ = "0.1.0"
