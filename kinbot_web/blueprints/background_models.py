"""``/api/settings/background-models``: administrators choose, platform-wide, the models of
memory extraction and compacting (a Kin's own override, in its settings, still wins)."""

from __future__ import annotations

from pydantic import BaseModel, Field
from quart import Blueprint
from quart_schema import validate_request

from kinbot_core.providers.background_settings import FIELDS
from kinbot_core.providers.light_models import OWN_MODEL
from kinbot_web.app_context import current_platform
from kinbot_web.auth import admin_only

blueprint = Blueprint("background_models", __name__)


class BackgroundModelsIn(BaseModel):
    #: Empty: the light model of each Kin's provider; ``@kin``: each Kin's own model;
    #: else ``<provider name>/<model>``. Left out (or null): unchanged.
    memory_extraction_model: str | None = Field(None, max_length=200)
    compacting_model: str | None = Field(None, max_length=200)


async def _view() -> dict[str, object]:
    models = current_platform().background_models
    return {
        **{field: models.in_force(purpose) for purpose, field in FIELDS.items()},
        #: Whether each value was chosen here (else it comes from the configuration).
        "stored": {field: models.stored(purpose) for purpose, field in FIELDS.items()},
        "own_model": OWN_MODEL,
        "models": [choice.to_dict() for choice in await models.choices()],
    }


@blueprint.get("/api/settings/background-models")
@admin_only
async def get_background_models() -> dict[str, object]:
    """The models in force for memory extraction and compacting, and the chat models of the
    configured providers that may be chosen (each provider's light model marked)."""
    return await _view()


@blueprint.put("/api/settings/background-models")
@admin_only
@validate_request(BackgroundModelsIn)
async def put_background_models(data: BackgroundModelsIn) -> dict[str, object]:
    """Change them; they take effect at the next extraction or summary. A model no
    configured provider lists: 400 ``model_not_listed`` (``provider_model_not_listed``,
    ``model_ambiguous``: the same checks as a Kin's override)."""
    given = data.model_dump(exclude_none=True)
    await current_platform().background_models.update(
        {purpose: given[field] for purpose, field in FIELDS.items() if field in given}
    )
    return await _view()
