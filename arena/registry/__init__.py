"""Plugin discovery: the hooks a plugin implements and the registry of agents and games."""
