"""How many real tokens a model's tokenizer makes of what KinBot estimates as one.

Budgets and compacting estimate tokens from characters (``kinbot_core.compacting.tokens``),
which is right on average for English and French prose but short for a small local model's
tokenizer and for JSON (SmolLM2 makes about 2,800 tokens of a first prompt estimated at under
2,000). Every answered call says what it really cost: the provider's count of the prompt
(``Usage.input_tokens``) against the estimate of the request that was sent is one
observation of the ratio, kept in memory per provider and model (:class:`TokenRatios`).
The budget of the next call then scales its estimates by it: no extra request per turn. A
prompt the server refused as too long teaches it too, when the server counted the prompt
(llama.cpp's ``n_prompt_tokens``), and a server that counts tokens on request (llama.cpp's
``/tokenize``) is asked once per model, before its first call
(``kinbot_core.kins.token_calibration``): ``calibrating`` says whether that is still to do.

The ratio in force is conservative: the largest of the last ``KEPT`` observations, with a
``MARGIN``, never under 1 (an estimate that was already large enough is left as it was) nor
over ``MAX_RATIO``. Requests estimated under ``MIN_ESTIMATE`` tokens are not observed: the
chat template's fixed tokens would swell their ratio.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kinbot_core.providers.types import ChatRequest

#: Observations kept per provider and model (the ratio is the largest of them).
KEPT = 8
#: Requests estimated under this many tokens teach nothing (the template's fixed cost).
MIN_ESTIMATE = 200
#: Added to the largest observation: prompts differ in their share of JSON and prose.
MARGIN = 1.05
#: The largest ratio believed (a count this far off is a provider's odd accounting).
MAX_RATIO = 4.0


class TokenRatios:
    """The learned ratio of real to estimated prompt tokens, per provider and model."""

    def __init__(self) -> None:
        self._seen: dict[tuple[str, str], deque[float]] = {}
        #: The models whose calibration was asked for (once, whatever its outcome).
        self._calibrated: set[tuple[str, str]] = set()

    def observe(
        self,
        provider_id: str,
        model: str,
        request: ChatRequest,
        reported: int,
        estimate: int | None = None,
    ) -> None:
        """The provider counted ``reported`` tokens in the prompt of ``request``, a call to
        ``model`` (its own model id), whose tokens its caller estimated as ``estimate`` when
        it fitted it (estimated here when ``None``)."""
        if reported <= 0:
            return
        if estimate is None:
            # Imported here: the compacting package imports the providers package.
            from kinbot_core.compacting.tokens import request_tokens

            estimate = request_tokens(request)
        self.observe_count(provider_id, model, estimate, reported)

    def observe_count(self, provider_id: str, model: str, estimated: int, reported: int) -> None:
        """``model``'s tokenizer made ``reported`` tokens of what KinBot estimated as
        ``estimated``."""
        if reported <= 0 or estimated < MIN_ESTIMATE:
            return
        seen = self._seen.setdefault((provider_id, model), deque(maxlen=KEPT))
        seen.append(reported / estimated)

    def calibrating(self, provider_id: str, model: str) -> bool:
        """Whether ``model`` is still to be calibrated: nothing learned of it yet and no
        calibration asked for. Answers ``True`` once only (the caller then calibrates)."""
        key = (provider_id, model)
        if key in self._seen or key in self._calibrated:
            return False
        self._calibrated.add(key)
        return True

    def ratio(self, provider_id: str, model: str) -> float:
        """Real tokens per estimated token for ``model`` of ``provider_id`` (1 until a call
        has taught otherwise)."""
        seen = self._seen.get((provider_id, model))
        if not seen:
            return 1.0
        return min(max(max(seen) * MARGIN, 1.0), MAX_RATIO)

    def forget(self, provider_id: str | None = None) -> None:
        """Forget what ``provider_id``'s models taught (its configuration changed: another
        server, maybe another model behind the same name); every provider's if ``None``."""
        for key in [key for key in self._seen if provider_id in (None, key[0])]:
            del self._seen[key]
        self._calibrated = {key for key in self._calibrated if provider_id not in (None, key[0])}
