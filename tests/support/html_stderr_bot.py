#!/usr/bin/env python3
"""A protocol bot that writes HTML to stderr, then hands over to examples/bots/first_option.py, copied
beside it (tests/support/web_store.py): in the sandbox a bot sees only its own folder.

The web arena must show that stderr as text, never as markup (tests/arena/web/test_web.py).
"""

import os
import sys

sys.stderr.write('<img src=x onerror="alert(2)"><b>bold from stderr</b>\n')
sys.stderr.flush()
bot = os.path.join(os.path.dirname(os.path.abspath(__file__)), "first_option.py")
os.execv(sys.executable, [sys.executable, bot])
