"""`arena serve --competition`: accounts, uploads, a page per bot, downloads and the operator's page.

Mounted beside the read-only pages by ``arena.web.app.create_app``; without ``--competition``
none of it exists and the server stays read-only.
"""
