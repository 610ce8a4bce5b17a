"""Samples for the secret detector: real-shaped credentials (generated, so none is real), the
sentences that paste them, passwords announced in English and French, and ordinary family
chat that must not be flagged (English and French, with the links, numbers, codes and hashes
such chat holds)."""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import dataclass

_RANDOM = random.Random(7)
_ALNUM = string.ascii_letters + string.digits
_URLSAFE = _ALNUM + "-_"


def _chars(count: int, alphabet: str = _ALNUM) -> str:
    return "".join(_RANDOM.choice(alphabet) for _ in range(count))


def _b64url(payload: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


@dataclass(frozen=True)
class Pasted:
    """A credential and a message pasting it."""

    name: str
    value: str
    message: str


def _pasted(name: str, value: str, message: str) -> Pasted:
    return Pasted(name, value, message.format(value))


KEYS: tuple[Pasted, ...] = (
    _pasted("openai legacy", f"sk-{_chars(20)}T3BlbkFJ{_chars(20)}", "Here is the OpenAI key: {}"),
    _pasted(
        "openai project",
        f"sk-proj-{_chars(48, _URLSAFE)}T3BlbkFJ{_chars(48, _URLSAFE)}",
        "voilà ma clé OpenAI {} tu peux la garder ?",
    ),
    _pasted("anthropic", f"sk-ant-api03-{_chars(93, _URLSAFE)}AA", "{}"),
    _pasted("github classic", f"ghp_{_chars(36)}", "my github token is {}, can you push?"),
    _pasted(
        "github fine-grained",
        f"github_pat_11{_chars(20, string.ascii_uppercase + string.digits)}_{_chars(59)}",
        "Token GitHub : {}",
    ),
    _pasted(
        "aws access key",
        "AKIA" + _chars(16, string.ascii_uppercase + "234567"),
        "AWS access key {}",
    ),
    _pasted("aws secret key", _chars(40, _ALNUM + "/+"), "and the AWS secret is {}"),
    _pasted(
        "slack bot",
        f"xoxb-{_chars(12, string.digits)}-{_chars(13, string.digits)}-"
        f"{_chars(24, string.ascii_lowercase + string.digits)}",
        "slack bot token {}",
    ),
    _pasted(
        "jwt",
        _b64url({"alg": "HS256", "typ": "JWT"})
        + "."
        + _b64url({"sub": "1234567890", "name": "Marie", "iat": 1716239022})
        + "."
        + _chars(43, _URLSAFE),
        "the session cookie was {}",
    ),
    _pasted(
        "telegram bot",
        f"{_chars(10, string.digits)}:AA{_chars(33, _URLSAFE)}",
        "Le token du bot Telegram : {}",
    ),
    _pasted("hex 32", _chars(32, "0123456789abcdef"), "API key for the weather service: {}"),
    _pasted("random 40", _chars(40), "clé d'API météo {}"),
    _pasted("random 32", _chars(32), "Mistral API key {}"),
    _pasted("stripe", f"sk_live_{_chars(24)}", "Stripe: {}"),
    _pasted("google", f"AIza{_chars(35, _URLSAFE)}", "Google Maps key {} thanks"),
    _pasted("hugging face", f"hf_{_chars(34)}", "mon token Hugging Face c'est {}"),
)

PASSWORDS: tuple[Pasted, ...] = (
    _pasted("password colon", "Hunter2!xy", "password: {}"),
    _pasted("password is colon", "correct-horse-battery", "the wifi password is: {}"),
    _pasted("mot de passe", "Soleil2024!", "mot de passe : {}"),
    _pasted("mot de passe c'est", "Maison#1987", "Le mot de passe du wifi c'est {}"),
    _pasted("pwd", "zq8!Lm3pQ", "pwd={}"),
    _pasted("login line", "Fromage-42", "Netflix login: marie@example.fr / password: {}"),
    _pasted("mdp", "Chaton_77", "mdp : {} (ne le donne à personne)"),
)

ORDINARY: tuple[str, ...] = (
    "Can you remind me to pick up the kids at 4:30 tomorrow?",
    "What should we cook tonight? We have leeks, potatoes and some cream.",
    "Grandma's birthday is on March 14th, she'll be 82.",
    "The dentist appointment moved to Tuesday 10am, room 3B.",
    "Did anyone see my blue umbrella? I think I left it at the Martins'.",
    "Please add milk, eggs, 2kg of flour and baking powder to the shopping list.",
    "My flight is AF1234 from CDG at 07:45, booking reference XK7P2Q.",
    "The wifi password is on the fridge, ask dad.",
    "I changed my password yesterday, it works now.",
    "My password is incorrect apparently, can you help?",
    "The password manager we use is Bitwarden, everyone has an account.",
    "Here's the recipe: https://www.marmiton.org/recettes/recette_gratin-dauphinois_19229.aspx",
    "Watch this: https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
    "The shared doc is "
    "https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
    "Tracking number 1Z999AA10123456784 for the parcel.",
    "Call me back on +33 6 12 34 56 78 or 06.98.76.54.32.",
    "My email is jean.dupont@example.com if you need it.",
    "I fixed the bug in commit 9fceb02d0ae598e95dc970b74767f19372d61af8, can you check?",
    "The build hash is sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "Use `python -m venv .venv && source .venv/bin/activate` then pip install -r requirements.txt",
    "The Zoom meeting ID is 845 2231 9987.",
    "IBAN FR76 3000 6000 0112 3456 7890 189 for the rent.",
    "Order #A7F3-92KD-11QX confirmed, delivery Friday.",
    "uuid of the device: 123e4567-e89b-12d3-a456-426614174000",
    "The photo is IMG_20240612_183045_HDR_portrait_mode.jpg in the shared album.",
    "Antidisestablishmentarianism is long; pneumonoultramicroscopicsilicovolcanoconiosis more.",
    "git clone https://github.com/yelp/detect-secrets.git && cd detect-secrets",
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "Tu peux rappeler à Léa qu'elle a piscine mercredi à 14h ?",
    "On mange quoi ce soir ? Il reste des poireaux et du fromage.",
    "Papi arrive par le train de 18h12 à la gare de Lyon, voiture 14.",
    "N'oublie pas d'acheter du pain, du beurre et deux kilos de pommes.",
    "Le code de la porte de l'immeuble a changé, c'est 4B27, je te l'ai dit hier.",
    "Mot de passe oublié ? Il faut cliquer sur « réinitialiser » sur le site.",
    "Le mot de passe est dans le carnet bleu, sur le bureau.",
    "J'ai mis les photos des vacances ici : https://photos.app.goo.gl/AbCdEfGh12345678",
    "Le rendez-vous chez le pédiatre est décalé au jeudi 12 à 9h30.",
    "Voici le lien du formulaire d'inscription : https://forms.gle/x7Yq2LmN9pQr3sTu8",
    "La facture EDF de janvier fait 142,37 €, prélevée le 5.",
    "Quelqu'un a vu les clés de la voiture ? Elles étaient sur la table.",
    "Le numéro de suivi Colissimo est 6A12345678901, livraison prévue demain.",
    "Mon adresse : 12 rue des Lilas, 69003 Lyon.",
    "Peux-tu résumer cet article sur les panneaux solaires pour mamie ?",
    "C'est quoi la différence entre un PEA et une assurance-vie ?",
    "Le modèle de la chaudière est Saunier Duval F25, série 21154800100234567890.",
    "Le fichier s'appelle Photo_vacances_Bretagne_2023_plage_coucher_de_soleil.jpg",
    "#JeSuisTellementContentDeTeRevoir2024 on l'a mis sur la banderole !",
)
