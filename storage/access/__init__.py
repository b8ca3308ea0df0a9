"""Who may come in and how often: accounts, sessions and sign-in links, agents' grants and tokens,
consent, rate counts, and the server's shared settings. One module per topic, each implementing a
ledger the core declares (`romergo.access.accounts.ledger`, `romergo.access.agents.ledger`, ...),
over the plain records of `storage.access.records`."""
