"""The demo project (generated story and media) and the scripted demo agent's name."""

DEMO_AGENT_NAME = "Romergo demo agent (scripted)"
"""The personal token name of the built-in demo agent; the panel labels it as scripted."""
