"""Svara: the web application (app factory, features) and the pure rules engine (app.engine)."""
