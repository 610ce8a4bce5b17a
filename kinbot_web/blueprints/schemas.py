"""Request bodies shared by several blueprints."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, EmailStr, Field, model_validator

from kinbot_core.accounts import Identity

Name = Field(min_length=1, max_length=100)


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
