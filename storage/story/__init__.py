"""The story's reads as stored: the story ledger (`romergo.story.ledger`) on a database."""
