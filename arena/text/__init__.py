"""Text a user or a bot controls: files read with one clear error, text made safe to print."""
