"""What pyproject.toml cannot say: templates/ and static/ stay top-level folders of the checkout
(the README's layout) and are shipped inside the `app` package of the wheel, where
app/__init__.py finds them when installed (docs/hosting.md «Installing»); and the SFU's
compiled forwarding (rtc/_forward.c, docs/voice-protocol.md «Forwarding»), which needs a C
compiler and Python's headers (`make build-deps`). It links no libsrtp: it calls the one in
pylibsrtp's binding through the addresses Python hands it."""

from setuptools import Extension, find_namespace_packages, setup

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


FORWARD = Extension("rtc._forward", ["rtc/_forward.c"], extra_compile_args=["-O2", "-Wall"])

setup(packages=packages(), package_dir=WEB, ext_modules=[FORWARD])
