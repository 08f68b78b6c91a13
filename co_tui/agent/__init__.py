"""The agent layer: model resolution (`models`), the offline stand-in (`offline`), the workspace tools
(`workspace`, `tools`, `shell`) and the agent factory (`factory`).

Importing this package loads no pydantic-ai or provider SDK: each module imports them inside the
functions that need them (the TUI paints before they load).
"""
