"""The sealed solutions are AES-256-GCM from the `cryptography` package (issue 36 §7): a wrong
key or a changed byte is refused, the same text seals differently each time, and a blob of the
old home-made cipher is one clear "re-release the course" line, never a wrong key."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import shutil
from pathlib import Path

import pytest

from routerlab.exercises.answers import SealFormatError, seal, unseal
from routerlab.exercises.authoring.sealing import open_solution
from routerlab.exercises.catalog import catalog_root, load_catalog
from routerlab.exercises.errors import CatalogError


def _old_cipher(text: str, key: str) -> str:
    """What the RouterLab before this change wrote: a SHA-256 counter keystream, an HMAC tag."""
    plain = text.encode()
    stream = b"".join(hashlib.sha256(f"{key}:{i}".encode()).digest()
                      for i in range(len(plain) // 32 + 1))
    cipher = bytes(a ^ b for a, b in zip(plain, stream, strict=False))
    tag = hmac.new(key.encode(), cipher, hashlib.sha256).digest()[:16]
    return base64.b64encode(tag + cipher).decode()


def test_a_seal_opens_with_its_key_only() -> None:
    blob = seal("answer = 42  # ünïcode", "right")
    assert unseal(blob, "right") == "answer = 42  # ünïcode"
    with pytest.raises(ValueError, match="does not open"):
        unseal(blob, "wrong")


def test_a_changed_byte_is_refused_and_no_two_seals_are_alike() -> None:
    blob = seal("x = 1", "k")
    assert seal("x = 1", "k") != blob  # a fresh nonce each time
    prefix, body = blob.split(":", 1)
    raw = bytearray(base64.b64decode(body))
    raw[-1] ^= 1
    with pytest.raises(ValueError, match="does not open"):
        unseal(f"{prefix}:{base64.b64encode(bytes(raw)).decode()}", "k")
    with pytest.raises(ValueError):
        unseal(f"{prefix}:{body[:10]}", "k")
    with pytest.raises(ValueError, match="damaged"):
        unseal(f"{prefix}:not base64 at all!", "k")


def test_a_blob_of_the_old_cipher_says_re_release() -> None:
    with pytest.raises(SealFormatError, match="re-release the course"):
        unseal(_old_cipher("x = 1", "k"), "k")


def test_every_shipped_seal_is_the_new_format() -> None:
    for path in Path(str(catalog_root())).glob("*/sealed.json"):
        document = json.loads(path.read_text())
        assert document["solution"].startswith("rl-aead1:"), path
        assert document.get("wrong", "rl-aead1:").startswith("rl-aead1:"), path


def test_a_course_folder_sealed_before_is_one_clear_line(tmp_path: Path) -> None:
    course = tmp_path / "course"
    shutil.copytree(Path(str(catalog_root())), course)
    sealed = course / "quant-3" / "sealed.json"
    document = json.loads(sealed.read_text())
    document["solution"] = _old_cipher("x = 1", "whatever")
    sealed.write_text(json.dumps(document))
    with pytest.raises(CatalogError, match="quant-3: .*re-release the course"):
        open_solution(load_catalog(str(course)).get("quant-3"))
