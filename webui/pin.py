"""The table PIN: anyone on the club Wi-Fi may watch, only the players may change the game.

A 4-6 digit PIN is weak against guessing, so wrong guesses are counted per client address
and a client that keeps guessing is told to wait (429) before it can try again.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time


def random_pin(digits: int = 4) -> str:
    """A PIN short enough to type on a phone; the rig prints it at start-up."""
    return "".join(secrets.choice("0123456789") for _ in range(digits))


class PinGuard:
    """Checks PINs and remembers recent wrong guesses per client address."""

    def __init__(self, pin: str, max_failures: int = 5, window_s: float = 60.0) -> None:
        self._pin = pin
        self._max_failures = max_failures
        self._window_s = window_s
        self._failures: dict[str, tuple[float, ...]] = {}
        self._lock = threading.Lock()

    def retry_after_s(self, client: str, now: float | None = None) -> float:
        """Seconds this client must wait before guessing again; 0 when it may try now."""
        now = time.monotonic() if now is None else now
        with self._lock:
            failures = self._recent(client, now)
            if len(failures) < self._max_failures:
                return 0.0
            return max(0.0, failures[0] + self._window_s - now)

    def check(self, client: str, pin: str | None, now: float | None = None) -> bool:
        """True when `pin` is right; a wrong one counts against `client`."""
        now = time.monotonic() if now is None else now
        if pin is not None and hmac.compare_digest(pin.encode(), self._pin.encode()):
            return True
        with self._lock:
            self._failures[client] = (*self._recent(client, now), now)
        return False

    def _recent(self, client: str, now: float) -> tuple[float, ...]:
        """The client's wrong guesses inside the window; a client with none is forgotten, so a
        rig left running for a season does not keep every phone that ever mistyped."""
        recent = tuple(t for t in self._failures.get(client, ()) if t > now - self._window_s)
        if recent:
            self._failures[client] = recent
        else:
            self._failures.pop(client, None)
        return recent
