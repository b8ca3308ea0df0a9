"""The agent panel in the editor's drawer: the invite, one card per command, presence and the demo agent."""

from ui.panel.panel import AgentPanel, DemoLauncher

__all__ = ["AgentPanel", "DemoLauncher"]
