"""The agent panel (issue: the agent present inside the editor)."""

from ui.panel.panel import AgentPanel, DemoLauncher

__all__ = ["AgentPanel", "DemoLauncher"]
