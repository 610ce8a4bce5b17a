"""Request bodies and bounded field types shared by several blueprints.

Every number a request gives that may reach the database is a :data:`RowId` or an
:data:`SqlInt` (SQLite stores signed 64-bit integers: a larger one is a 400 here, not an
``OverflowError`` there), and every string or list has a maximum length.
"""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import BaseModel, EmailStr, Field, model_validator
from quart_schema.pydantic import File

from kinbot_core.accounts import Identity

#: The largest and smallest integers SQLite stores.
SQLITE_INT_MAX = 2**63 - 1
SQLITE_INT_MIN = -(2**63)

#: Any integer SQLite can store.
SqlInt = Annotated[int, Field(ge=SQLITE_INT_MIN, le=SQLITE_INT_MAX)]
#: The id of a row with an integer key (messages, memories, snapshots…).
RowId = Annotated[int, Field(ge=1, le=SQLITE_INT_MAX)]
#: An id, key or name given in a body (ids of Kins, uploads, servers…).
Identifier = Annotated[str, Field(min_length=1, max_length=100)]

Name = Field(min_length=1, max_length=100)


class AvatarIn(BaseModel):
    """An avatar upload (documents the multipart body; read by ``kinbot_web.images``)."""

    #: A PNG, JPEG, WebP or GIF image.
    avatar: File


def row_id_in_path(value: str) -> int | None:
    """The row id a path segment names, or ``None`` when it names none (not ASCII digits, or
    beyond SQLite's range)."""
    if not (value.isascii() and value.isdigit()):
        return None
    number = int(value)
    return number if 1 <= number <= SQLITE_INT_MAX else None


class IdentityIn(BaseModel):
    """Onboarding screen 1, or the registration form of an invitation."""

    first_name: str = Name
    last_name: str = Name
    email: EmailStr
    pseudonym: str = Field(min_length=1, max_length=50)
    language: Literal["en", "fr"]
    password: str = Field(min_length=1, max_length=256)
    password_confirmation: str = Field(max_length=256)

    @model_validator(mode="after")
    def _confirmed(self) -> Self:
        if self.password != self.password_confirmation:
            raise ValueError("password_confirmation does not match password")
        return self

    def identity(self) -> Identity:
        return Identity(
            first_name=self.first_name.strip(),
            last_name=self.last_name.strip(),
            email=str(self.email),
            pseudonym=self.pseudonym.strip(),
            language=self.language,
            password=self.password,
        )
