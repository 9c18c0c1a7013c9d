"""The administrator's services (`svara admin`): users, money, tables, variants, hands.

They work inside a caller's session on the same database as the web, through the same
services (accounts, ledger, lobby, variants); a change a running server must see is
announced with a notice (notices.py), which the serving process applies live.
"""

from __future__ import annotations

from typing import Any


class AdminError(ValueError):
    """A request the admin services refuse before changing anything (CLI exit status 2).

    The message is the CLI's (English); `key` and `params` say the same on the host's page
    in its language (app/admin/web.py `SENTENCES`, static/js/i18n.js)."""

    def __init__(self, message: str, key: str = "admin.refused", **params: Any):
        super().__init__(message)
        self.key = key
        self.params = {"why": message, **params}
