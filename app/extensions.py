"""The process-wide extension objects, bound to the app in `create_app`.

`socketio` is the only way the server starts tasks, sleeps and emits
(`socketio.start_background_task`, `socketio.sleep`, `socketio.emit`), so the same code runs
under eventlet (the default), gevent or threading (docs/architecture.md).
"""

from __future__ import annotations

from flask_socketio import SocketIO
from flask_wtf import CSRFProtect

socketio = SocketIO()
csrf = CSRFProtect()
