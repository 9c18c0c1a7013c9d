"""The account forms. Flask-WTF adds and checks each form's CSRF token."""

from __future__ import annotations

from wtforms import PasswordField, StringField
from wtforms.validators import DataRequired, EqualTo, Length

from app.forms import Form


class LoginForm(Form):
    name = StringField("Имя", validators=[DataRequired(), Length(max=64)])
    password = PasswordField("Пароль", validators=[DataRequired(), Length(max=256)])


class RegisterForm(Form):
    name = StringField("Имя", validators=[DataRequired(), Length(max=64)])
    password = PasswordField("Пароль", validators=[DataRequired(), Length(max=256)])
    confirm = PasswordField(
        "Пароль ещё раз",
        validators=[DataRequired(), EqualTo("password")],
    )


class LogoutForm(Form):
    """No fields: only the CSRF token, so another site cannot log a player out."""
