"""People who sign in: users with argon2 password hashes (`passwords`), server-side browser
sessions and one-time sign-in links (`service`)."""
