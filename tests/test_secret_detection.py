"""The detector of pasted credentials (``kinbot_core.vault.detection``) and the screening of
incoming text (``kinbot_core.vault.arrival``), on real-shaped keys and ordinary chat."""

from __future__ import annotations

import os

import pytest

from kinbot_core.crypto import SecretBox
from kinbot_core.vault import Masker
from kinbot_core.vault.arrival import hide_secrets, screen_text
from kinbot_core.vault.detection import find_secrets, reads_as_words
from kinbot_core.vault.records import pending_sealing_context
from tests.support.secret_samples import KEYS, ORDINARY, PASSWORDS, Pasted


@pytest.mark.parametrize("pasted", KEYS + PASSWORDS, ids=lambda p: p.name)
def test_a_pasted_credential_is_found_whole(pasted: Pasted) -> None:
    found = [pasted.message[f.start : f.end] for f in find_secrets(pasted.message)]
    assert found == [pasted.value]


@pytest.mark.parametrize("sentence", ORDINARY)
def test_ordinary_chat_is_not_flagged(sentence: str) -> None:
    assert [sentence[f.start : f.end] for f in find_secrets(sentence)] == []


def test_a_private_key_is_found_whole_even_cut_short() -> None:
    body = "MIIEowIBAAKCAQEA7" + "x" * 60 + "\nAbCd" * 5
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    text = f"here is the deploy key:\n{pem}\nthanks"
    assert [text[f.start : f.end] for f in find_secrets(text)] == [pem]
    cut = "key: -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA"
    assert [cut[f.start : f.end] for f in find_secrets(cut)] == [cut[5:]]


def test_a_secret_in_a_link_is_found_but_not_the_link() -> None:
    token = "Zx81kP0qLm27Rt5V"
    text = f"the camera feed: https://cam.example.net/live?user=nico&token={token}&hd=1"
    assert [text[f.start : f.end] for f in find_secrets(text)] == [token]


def test_words_glued_together_are_not_random() -> None:
    assert reads_as_words("getUserPreferencesFromDatabaseV2Async")
    assert reads_as_words("le-meilleur-gratin-dauphinois-de-ma-grand-mere-2024")
    assert not reads_as_words("k3jd9xqpzm2w8vn4bt7r1ys6gh5fc0la")
    assert not reads_as_words("JmpflvJfupxqZK7h2GtQ0sLr9WcXbN4e")


def test_screening_masks_vault_values_and_seals_what_it_detects() -> None:
    box = SecretBox(os.urandom(32))
    github, aws = KEYS[3].value, KEYS[5].value
    masker = Masker({"FAMILY_WIFI": "Maison#1987-wifi"})
    text = f"wifi Maison#1987-wifi, token {github}, aws {aws}, again {github}"
    content, kept = hide_secrets(text, masker, lambda: box)
    assert content == (
        "wifi [SECRET: FAMILY_WIFI], token [PENDING SECRET 1], aws [PENDING SECRET 2], "
        "again [PENDING SECRET 1]"
    )
    screened = screen_text(text, masker, lambda: box)
    assert screened.content == content and screened.redaction_pending
    # What is kept is sealed and bound to its row: the values are not in it in clear.
    assert [(k.number, k.kind) for k in kept] == [(1, "GitHub Token"), (2, "AWS Access Key")]
    assert [box.open(k.sealed, pending_sealing_context(k.id)).decode() for k in kept] == [
        github,
        aws,
    ]
    assert not any(github.encode() in k.sealed or aws.encode() in k.sealed for k in kept)


def test_screening_leaves_ordinary_text_alone() -> None:
    screened = screen_text(ORDINARY[0], Masker({}), lambda: SecretBox(os.urandom(32)))
    assert screened.content == ORDINARY[0] and not screened.redaction_pending
