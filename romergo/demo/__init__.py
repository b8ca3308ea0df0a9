"""The demo project (generated story and media, seeded on first start), the scripted demo agent's
name, and the agent process the server starts for "Try the demo agent" (agent_process.py)."""

DEMO_AGENT_NAME = "Romergo demo agent (scripted)"
"""The personal token name of the built-in demo agent; the panel labels it as scripted."""
