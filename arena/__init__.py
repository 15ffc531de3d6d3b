"""Everything around the engines: plugins, referee, tournaments, storage, ratings, CLI."""
