"""A device's browser and system from its User-Agent, for the list of subscribed devices
("Firefox", "Android"): names, not sentences (the interface words them)."""

from __future__ import annotations

import re

#: Checked in order: the first match names the browser (Edge and Opera also say Chrome,
#: Chrome also says Safari).
_BROWSERS = (
    ("Edge", re.compile(r"\bEdg(e|A|iOS)?/")),
    ("Opera", re.compile(r"\b(OPR|Opera)/")),
    ("Samsung Internet", re.compile(r"\bSamsungBrowser/")),
    ("Firefox", re.compile(r"\b(Firefox|FxiOS)/")),
    ("Chromium", re.compile(r"\bChromium/")),
    ("Chrome", re.compile(r"\b(Chrome|CriOS|HeadlessChrome)/")),
    ("Safari", re.compile(r"\bSafari/")),
)
_SYSTEMS = (
    ("Android", re.compile(r"\bAndroid\b")),
    ("iPhone", re.compile(r"\biPhone\b")),
    ("iPad", re.compile(r"\biPad\b")),
    ("ChromeOS", re.compile(r"\bCrOS\b")),
    ("Windows", re.compile(r"\bWindows\b")),
    ("macOS", re.compile(r"\bMac OS X\b|\bMacintosh\b")),
    ("Linux", re.compile(r"\bLinux\b")),
)


def device_of(user_agent: str | None) -> dict[str, str]:
    """``{"browser": ..., "os": ...}``, each left out when the User-Agent does not say."""
    agent = (user_agent or "")[:512]
    device: dict[str, str] = {}
    for name, pattern in _BROWSERS:
        if pattern.search(agent):
            device["browser"] = name
            break
    for name, pattern in _SYSTEMS:
        if pattern.search(agent):
            device["os"] = name
            break
    return device
