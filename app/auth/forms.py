"""The account forms. Flask-WTF adds and checks each form's CSRF token."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import PasswordField, StringField
from wtforms.validators import DataRequired, EqualTo, Length


class LoginForm(FlaskForm):
    name = StringField("Имя", validators=[DataRequired(), Length(max=64)])
    password = PasswordField("Пароль", validators=[DataRequired(), Length(max=256)])


class RegisterForm(FlaskForm):
    name = StringField("Имя", validators=[DataRequired(), Length(max=64)])
    password = PasswordField("Пароль", validators=[DataRequired(), Length(max=256)])
    confirm = PasswordField(
        "Пароль ещё раз",
        validators=[DataRequired(), EqualTo("password", message="Пароли не совпадают")],
    )


class LogoutForm(FlaskForm):
    """No fields: only the CSRF token, so another site cannot log a player out."""
