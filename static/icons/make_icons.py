"""Render icon.svg into the PNG icons of the manifest, once, with the system Chromium.

Run after changing icon.svg: `.venv/bin/python static/icons/make_icons.py`. The PNGs are
committed; nothing renders at build or start time.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import sync_playwright

HERE = Path(__file__).resolve().parent
SIZES = {"icon-192.png": 192, "icon-512.png": 512, "maskable-512.png": 512}


def main() -> None:
    svg = (HERE / "icon.svg").read_text(encoding="utf-8")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for name, size in SIZES.items():
            # The maskable icon keeps its drawing inside the central 80 % safe zone.
            inner = int(size * 0.8) if name.startswith("maskable") else size
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(
                f'<body style="margin:0;background:#0b3d24;display:grid;place-items:center;'
                f'width:{size}px;height:{size}px">'
                f'<div style="width:{inner}px;height:{inner}px">{svg}</div></body>'
            )
            page.screenshot(path=str(HERE / name), omit_background=False)
            page.close()
        browser.close()


if __name__ == "__main__":
    main()
