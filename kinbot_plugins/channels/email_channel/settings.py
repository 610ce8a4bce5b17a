"""The settings of an e-mail connection: the mailbox a Kin reads (IMAP), the server it sends
through (SMTP), the address it writes from. Settings renders the form from this model; the
passwords are secrets (sealed at rest, never shown again)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, EmailStr, Field, SecretStr

from kinbot_plugins.channels.email_channel.errors import Security


def _fr(title: str, description: str | None = None, **words: Any) -> dict[str, Any]:
    """A field's French words (``title``, ``description``, ``enum_titles``)."""
    french: dict[str, Any] = {"title": title, **words}
    if description:
        french["description"] = description
    return {"i18n": {"fr": french}}


def _security(title_fr: str) -> dict[str, Any]:
    return {
        **_fr(
            title_fr,
            enum_titles={
                "tls": "TLS",
                "starttls": "STARTTLS",
                "none": "Aucun (cette machine seulement)",
            },
        ),
        "enum_titles": {"tls": "TLS", "starttls": "STARTTLS", "none": "None (this machine only)"},
    }


class EmailSettings(BaseModel):
    """One mailbox for the Kins: mail to it reaches them, their replies leave from it."""

    model_config = ConfigDict(
        title="E-mail",
        extra="forbid",
        json_schema_extra={
            "i18n": {
                "fr": {
                    "title": "E-mail",
                    "description": "Une boîte aux lettres pour les Kins : le courrier qui y "
                    "arrive les atteint, leurs réponses en partent.",
                }
            }
        },
    )

    from_address: EmailStr = Field(
        title="Address",
        description="The mailbox's address: the Kins write from it, and mail from it is "
        "never answered.",
        json_schema_extra=_fr(
            "Adresse",
            "L'adresse de la boîte : les Kins écrivent depuis elle, et le courrier qui en "
            "vient ne reçoit jamais de réponse.",
        ),
    )
    from_name: str = Field(
        "",
        max_length=100,
        title="Name shown",
        description="The name family members see as the sender (empty: the address alone).",
        json_schema_extra=_fr(
            "Nom affiché", "Le nom que la famille voit comme expéditeur (vide : l'adresse seule)."
        ),
    )
    imap_host: str = Field(
        min_length=1,
        max_length=255,
        title="IMAP server",
        description="Where mail is read, e.g. imap.gmail.com.",
        json_schema_extra=_fr("Serveur IMAP", "Où le courrier est lu, par ex. imap.gmail.com."),
    )
    imap_port: int = Field(
        993, ge=1, le=65535, title="IMAP port", json_schema_extra=_fr("Port IMAP")
    )
    imap_security: Security = Field(
        "tls", title="IMAP encryption", json_schema_extra=_security("Chiffrement IMAP")
    )
    imap_username: str = Field(
        min_length=1,
        max_length=255,
        title="IMAP user name",
        description="Usually the full address.",
        json_schema_extra=_fr("Identifiant IMAP", "En général l'adresse complète."),
    )
    imap_password: SecretStr = Field(
        title="IMAP password",
        description="An app password where the provider offers them (Gmail, iCloud, Yahoo, "
        "Fastmail).",
        json_schema_extra=_fr(
            "Mot de passe IMAP",
            "Un mot de passe d'application quand le fournisseur en propose (Gmail, iCloud, "
            "Yahoo, Fastmail).",
        ),
    )
    imap_folder: str = Field(
        "INBOX",
        min_length=1,
        max_length=255,
        title="Folder",
        description="The folder read for new mail.",
        json_schema_extra=_fr("Dossier", "Le dossier où le nouveau courrier est lu."),
    )
    smtp_host: str = Field(
        min_length=1,
        max_length=255,
        title="SMTP server",
        description="Where mail is sent, e.g. smtp.gmail.com.",
        json_schema_extra=_fr("Serveur SMTP", "Où le courrier est envoyé, par ex. smtp.gmail.com."),
    )
    smtp_port: int = Field(
        465,
        ge=1,
        le=65535,
        title="SMTP port",
        description="465 with TLS, 587 with STARTTLS.",
        json_schema_extra=_fr("Port SMTP", "465 avec TLS, 587 avec STARTTLS."),
    )
    smtp_security: Security = Field(
        "tls", title="SMTP encryption", json_schema_extra=_security("Chiffrement SMTP")
    )
    smtp_username: str = Field(
        "",
        max_length=255,
        title="SMTP user name",
        description="Empty: the IMAP user name.",
        json_schema_extra=_fr("Identifiant SMTP", "Vide : l'identifiant IMAP."),
    )
    smtp_password: SecretStr | None = Field(
        None,
        title="SMTP password",
        description="Not set: the IMAP password.",
        json_schema_extra=_fr("Mot de passe SMTP", "Non renseigné : le mot de passe IMAP."),
    )
    poll_interval_seconds: int = Field(
        60,
        ge=1,
        le=3600,
        title="Check every (seconds)",
        description="How often the folder is read when the server cannot announce new mail "
        "(IMAP IDLE); with IDLE, mail is read as it arrives.",
        json_schema_extra=_fr(
            "Relever toutes les (secondes)",
            "La fréquence de relève quand le serveur ne peut pas annoncer le nouveau courrier "
            "(IMAP IDLE) ; avec IDLE, le courrier est lu dès son arrivée.",
        ),
    )
    require_authenticated_sender: bool = Field(
        True,
        title="Only mail the provider authenticated",
        description="Read only mail whose sender the receiving provider verified (DKIM or "
        "DMARC, in its Authentication-Results header): anyone can write someone else's "
        "address in a mail's From.",
        json_schema_extra=_fr(
            "Seulement le courrier authentifié par le fournisseur",
            "Ne lire que le courrier dont le fournisseur de réception a vérifié l'expéditeur "
            "(DKIM ou DMARC, dans son en-tête Authentication-Results) : n'importe qui peut "
            "écrire l'adresse d'un autre dans le From d'un mail.",
        ),
    )
    authserv_id: str = Field(
        "",
        max_length=255,
        title="Provider's verification name",
        description="The name the provider gives its Authentication-Results header (e.g. "
        "mx.google.com): only that header is trusted. Empty: the topmost one.",
        json_schema_extra=_fr(
            "Nom de vérification du fournisseur",
            "Le nom que le fournisseur donne à son en-tête Authentication-Results (par ex. "
            "mx.google.com) : seul cet en-tête fait foi. Vide : le premier en haut du mail.",
        ),
    )
