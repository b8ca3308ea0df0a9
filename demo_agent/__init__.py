"""Romergo's scripted demo agent: a real MCP client that follows fixed rules, no model.

It imports only the MCP SDK and its own modules: it is an outside agent (DESIGN.md §1).
"""

from demo_agent.agent import DemoAgent

__all__ = ["DemoAgent"]
