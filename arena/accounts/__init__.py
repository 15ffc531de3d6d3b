"""A competition's accounts: users, passwords, sessions, API tokens, the operator's switches."""
