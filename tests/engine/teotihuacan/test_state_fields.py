"""The state's fields are declared once, as annotations of ``TeoCore``: the name lists that say
how each is copied and observed name only declared fields, and every declared field is set."""

from __future__ import annotations

import typing

from engine.teotihuacan import GAME
from engine.teotihuacan.core import FIXED_FIELDS, LIST_FIELDS, NESTED_FIELDS, SCALAR_FIELDS, TeoCore
from engine.teotihuacan.rulebook import Rulebook


def hints() -> dict:
    return typing.get_type_hints(TeoCore, localns={"Rulebook": Rulebook})


def test_every_listed_field_is_annotated_with_its_shape():
    hints_ = hints()
    for name in SCALAR_FIELDS:
        assert hints_[name] in (int, bool), name
    for name in LIST_FIELDS:
        assert typing.get_origin(hints_[name]) is list, name
    for name in NESTED_FIELDS:
        assert typing.get_args(hints_[name])[0] == list[int], name
    assert set(FIXED_FIELDS) <= set(LIST_FIELDS)


def test_every_annotated_field_is_set_by_setup():
    st = GAME.setup(2, 0, {"modules": "all"})
    missing = [name for name in hints() if name not in st.__dict__]
    assert missing == []
