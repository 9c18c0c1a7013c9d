"""The administrator's services (`svara admin`): users, money, tables, variants, hands.

They work inside a caller's session on the same database as the web, through the same
services (accounts, ledger, lobby, variants); a change a running server must see is
announced with a notice (notices.py), which the serving process applies live.
"""

from __future__ import annotations


class AdminError(ValueError):
    """A request the admin services refuse before changing anything (CLI exit status 2)."""
