"""Who may come in, as whom, and how often: accounts and sign-in (accounts/), agents' clients,
grants, tokens and consent (agents/), rate limits, the server's secret, and the checks on a
browser request's origin and CSRF token."""
