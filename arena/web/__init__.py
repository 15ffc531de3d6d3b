"""The web arena (`arena serve`): Starlette app, pages, replay viewer; see docs/web.md."""
