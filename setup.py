"""What pyproject.toml cannot say: templates/ and static/ stay top-level folders of the checkout
(the README's layout) and are shipped inside the `app` package of the wheel, where
app/__init__.py finds them when installed (docs/hosting.md «Installing»)."""

from setuptools import find_namespace_packages, setup

#: Packages of the wheel made of a checkout folder elsewhere.
WEB = {"app.templates": "templates", "app.static": "static"}


def packages() -> list[str]:
    """The code (namespace packages too: app/migrations/versions, app/rules_text) and the
    web folders with their sub-folders."""
    code = find_namespace_packages(include=["app*", "cli*", "rtc*"], exclude=["*.__pycache__"])
    web = [
        f"{package}.{sub}"
        for package, folder in WEB.items()
        for sub in find_namespace_packages(folder, exclude=["*__pycache__"])
    ]
    return [*code, *WEB, *web]


setup(packages=packages(), package_dir=WEB)
