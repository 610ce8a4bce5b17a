"""Each Kin's contact registry and the contact and Kin tools, on a real started platform."""

from __future__ import annotations

import dataclasses
import time
import uuid
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from kinbot_core.contact_digest import ContactDigest, ContactSummary
from kinbot_core.contacts import (
    ContactError,
    ContactInvalid,
    ContactNotFound,
    ContactService,
    ContactView,
)
from kinbot_core.db.models import ContactRecord, KinRecord
from kinbot_core.events import Event
from kinbot_core.platform import Platform
from kinbot_core.plugins import PluginManager
from kinbot_core.tools import Tool, ToolContext, ToolError
from kinbot_plugins.tools import contacts as contact_tools
from kinbot_plugins.tools import kins as kin_tools


async def add_kin(platform: Platform, name: str, role: str = "") -> str:
    kin_id = uuid.uuid4().hex
    now = time.time()
    await platform.db.write(
        lambda: KinRecord.create(
            id=kin_id,
            name=name,
            role=role,
            model="gpt-4o",
            workspace=f"/tmp/{kin_id}",
            created_at=now,
            updated_at=now,
        )
    )
    return kin_id


class StoredKins:
    """Stands in for the Kin service: lists the Kin rows of the platform's database."""

    def __init__(self, platform: Platform) -> None:
        self._platform = platform

    async def list_all(self) -> list[KinRecord]:
        return await self._platform.db.read(
            lambda: list(KinRecord.select().order_by(KinRecord.name))
        )


@pytest.fixture
def contacts(platform: Platform) -> ContactService:
    return ContactService(platform.db, platform.bus, platform.settings.contacts_listed_max)


@pytest.fixture
async def kin(platform: Platform) -> str:
    return await add_kin(platform, "Aria", role="Cuisinière")


@pytest.fixture
async def other_kin(platform: Platform) -> str:
    return await add_kin(platform, "Basile", role="Jardinier")


@pytest.fixture
def context(platform: Platform, contacts: ContactService, kin: str) -> ToolContext:
    services = SimpleNamespace(
        contacts=contacts, kins=StoredKins(platform), kin_access=platform.kin_access
    )
    return ToolContext(platform=services, kin_id=kin, kin_name="Aria")


async def family(contacts: ContactService, kin: str) -> dict[str, ContactView]:
    """Nicolas, his brother and sister, and a friend with an allergy."""
    nicolas = await contacts.create(kin, "Nicolas", "human", relation="Utilisateur principal")
    paul = await contacts.create(kin, "Paul", "human", relation="Frère de Nicolas")
    await contacts.update(kin, paul.id, add_facts=["Habite à Lyon"])
    marie = await contacts.create(kin, "Marie", "human", relation="Sœur de Nicolas")
    await contacts.update(kin, marie.id, add_preferences=["Aime le café noir"])
    lea = await contacts.create(kin, "Léa", "human", relation="Amie de Marie")
    await contacts.update(
        kin, lea.id, add_facts=["Allergique aux arachides"], add_preferences=["Café au lait"]
    )
    return {
        "nicolas": nicolas,
        "paul": await contacts.get(kin, paul.id),
        "marie": await contacts.get(kin, marie.id),
        "lea": await contacts.get(kin, lea.id),
    }


def names(found: list[ContactView]) -> list[str]:
    return [contact.name for contact in found]


# -- the service -------------------------------------------------------------------------------


async def test_create_and_get_a_contact(contacts: ContactService, kin: str) -> None:
    created = await contacts.create(
        kin, "  Paul  ", "human", notes="Rencontré au marché", relation="Frère de Nicolas"
    )
    assert uuid.UUID(hex=created.id).version == 4 and created.id == uuid.UUID(created.id).hex
    assert created.name == "Paul" and created.type == "human" and created.kin_id == kin
    assert created.notes == "Rencontré au marché" and created.relation == "Frère de Nicolas"
    assert created.facts == () and created.preferences == () and created.linked_id is None
    assert await contacts.get(kin, created.id) == created
    kin_contact = await contacts.create(kin, "Basile", "kin", linked_id="kin-42")
    assert kin_contact.type == "kin" and kin_contact.linked_id == "kin-42"
    assert created.to_dict() == {
        "id": created.id,
        "kin_id": kin,
        "name": "Paul",
        "type": "human",
        "linked_id": None,
        "relation": "Frère de Nicolas",
        "notes": "Rencontré au marché",
        "facts": [],
        "preferences": [],
        "created_at": created.created_at,
        "updated_at": created.updated_at,
    }
    with pytest.raises(dataclasses.FrozenInstanceError):
        created.name = "Pierre"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("name", "kind", "message"),
    [("", "human", "name"), ("   ", "kin", "name"), ("Paul", "robot", "type")],
)
async def test_create_refuses_bad_contacts(
    contacts: ContactService, kin: str, name: str, kind: str, message: str
) -> None:
    with pytest.raises(ContactInvalid) as refused:
        await contacts.create(kin, name, kind)
    assert message in refused.value.message
    assert isinstance(refused.value, ContactError) and str(refused.value) == refused.value.message
    assert await contacts.summary(kin) == ContactDigest()


async def test_create_refuses_an_unknown_kin(contacts: ContactService) -> None:
    with pytest.raises(ContactInvalid, match="No such Kin"):
        await contacts.create("no-such-kin", "Paul", "human")


async def test_get_an_unknown_contact(contacts: ContactService, kin: str) -> None:
    with pytest.raises(ContactNotFound) as missing:
        await contacts.get(kin, uuid.uuid4().hex)
    assert isinstance(missing.value, ContactError) and "No contact" in missing.value.message


async def test_search_finds_relations_and_facts_in_french(
    contacts: ContactService, kin: str
) -> None:
    people = await family(contacts, kin)
    assert names(await contacts.search(kin, "frère de Nicolas")) == ["Paul"]
    assert names(await contacts.search(kin, "allergique")) == ["Léa"]
    # Case and accents do not matter.
    assert names(await contacts.search(kin, "FRERE DE nicolas")) == ["Paul"]
    assert names(await contacts.search(kin, "ALLERGIQUE")) == ["Léa"]
    assert names(await contacts.search(kin, "lea")) == ["Léa"]
    assert names(await contacts.search(kin, "sœur")) == ["Marie"]
    # Notes and preferences are searched too.
    await contacts.update(kin, people["nicolas"].id, notes="Sa fille est allergique au gluten")
    assert set(names(await contacts.search(kin, "allergique"))) == {"Léa", "Nicolas"}
    assert names(await contacts.search(kin, "noir")) == ["Marie"]
    assert await contacts.search(kin, "cousin") == []


async def test_search_of_several_words_needs_all_of_them(
    contacts: ContactService, kin: str
) -> None:
    await family(contacts, kin)
    assert set(names(await contacts.search(kin, "café"))) == {"Marie", "Léa"}
    assert names(await contacts.search(kin, "café noir")) == ["Marie"]
    assert names(await contacts.search(kin, "café lait")) == ["Léa"]
    # The words may come from different fields: relation, facts, preferences.
    assert names(await contacts.search(kin, "amie arachides café")) == ["Léa"]
    assert names(await contacts.search(kin, "Paul Lyon")) == ["Paul"]
    assert await contacts.search(kin, "frère de Marie") == []


async def test_search_ranks_name_matches_first(contacts: ContactService, kin: str) -> None:
    await family(contacts, kin)
    assert names(await contacts.search(kin, "Nicolas")) == ["Nicolas", "Marie", "Paul"]
    assert names(await contacts.search(kin, "marie")) == ["Marie", "Léa"]
    assert names(await contacts.search(kin, "Nicolas", limit=2)) == ["Nicolas", "Marie"]


async def test_search_refuses_an_empty_query(contacts: ContactService, kin: str) -> None:
    for query in ("", "   ", "?!"):
        with pytest.raises(ContactInvalid):
            await contacts.search(kin, query)
    with pytest.raises(ContactInvalid):
        await contacts.search(kin, "Paul", limit=0)


async def test_update_fields_facts_and_preferences(contacts: ContactService, kin: str) -> None:
    paul = await contacts.create(kin, "Paul", "human", notes="old notes")
    updated = await contacts.update(
        kin,
        paul.id,
        name="Paul Martin",
        relation="Frère de Nicolas",
        notes="",
        add_facts=["Habite à Lyon", "habite a lyon", "Joue du violon", "Habite à Lyon"],
        add_preferences=["Thé vert", "Pas de réunions le lundi"],
    )
    assert updated.name == "Paul Martin" and updated.relation == "Frère de Nicolas"
    assert updated.notes == ""
    assert updated.facts == ("Habite à Lyon", "Joue du violon")
    assert updated.preferences == ("Thé vert", "Pas de réunions le lundi")
    assert updated.updated_at >= paul.updated_at and updated.created_at == paul.created_at

    again = await contacts.update(kin, paul.id, add_facts=["JOUE DU VIOLON.", "Aime Lyon"])
    assert again.facts == ("Habite à Lyon", "Joue du violon", "Aime Lyon")

    removed = await contacts.update(
        kin,
        paul.id,
        remove_facts=["habite à lyon", "not recorded"],
        add_facts=["Habite à Paris"],
        remove_preferences=["THÉ VERT"],
    )
    assert removed.facts == ("Joue du violon", "Aime Lyon", "Habite à Paris")
    assert removed.preferences == ("Pas de réunions le lundi",)
    assert await contacts.get(kin, paul.id) == removed
    # A removal and an addition of the same fact: removals apply first.
    replaced = await contacts.update(
        kin, paul.id, remove_facts=["Aime Lyon"], add_facts=["aime lyon"]
    )
    assert replaced.facts == ("Joue du violon", "Habite à Paris", "aime lyon")


async def test_update_refuses_bad_changes(contacts: ContactService, kin: str) -> None:
    paul = await contacts.create(kin, "Paul", "human")
    with pytest.raises(ContactInvalid, match="name"):
        await contacts.update(kin, paul.id, name="  ")
    with pytest.raises(ContactInvalid, match="fact"):
        await contacts.update(kin, paul.id, add_facts=[""])
    with pytest.raises(ContactInvalid, match="preference"):
        await contacts.update(kin, paul.id, add_preferences="Thé vert")
    with pytest.raises(ContactNotFound):
        await contacts.update(kin, uuid.uuid4().hex, notes="x")
    assert await contacts.get(kin, paul.id) == paul


async def test_each_kin_has_its_own_registry(
    contacts: ContactService, kin: str, other_kin: str
) -> None:
    paul = await contacts.create(kin, "Paul", "human", relation="Frère de Nicolas")
    linked = await contacts.create(kin, "Nicolas", "human", linked_id="user-1")
    with pytest.raises(ContactNotFound):
        await contacts.get(other_kin, paul.id)
    with pytest.raises(ContactNotFound):
        await contacts.update(other_kin, paul.id, name="Pierre")
    assert await contacts.search(other_kin, "Paul") == []
    assert await contacts.summary(other_kin) == ContactDigest()
    assert await contacts.find_linked(other_kin, "user-1") is None
    # The other Kin may know the same people, separately.
    own = await contacts.create(other_kin, "Paul", "human", linked_id="user-1")
    assert own.id != paul.id
    assert names(await contacts.search(other_kin, "Paul")) == ["Paul"]
    assert (await contacts.search(other_kin, "Paul"))[0].relation == ""
    assert await contacts.find_linked(kin, "user-1") == linked
    assert await contacts.get(kin, paul.id) == paul


async def test_find_linked(contacts: ContactService, kin: str, other_kin: str) -> None:
    basile = await contacts.create(kin, "Basile", "kin", linked_id=other_kin)
    assert await contacts.find_linked(kin, other_kin) == basile
    assert await contacts.find_linked(kin, "someone-else") is None
    with pytest.raises(ContactInvalid, match=basile.id):
        await contacts.create(kin, "Basile bis", "kin", linked_id=other_kin)


async def test_summary_is_sorted_by_name_without_details(
    contacts: ContactService, kin: str
) -> None:
    for name in ("fanny", "Émile", "David", "Zoé", "alice"):
        created = await contacts.create(kin, name, "human", notes=f"secret notes of {name}")
        await contacts.update(kin, created.id, add_facts=[f"fact of {name}"])
    basile = await contacts.create(kin, "Basile", "kin")
    summary = (await contacts.summary(kin)).listed
    assert [entry.name for entry in summary] == [
        "alice",
        "Basile",
        "David",
        "Émile",
        "fanny",
        "Zoé",
    ]
    assert ContactSummary(id=basile.id, name="Basile", type="kin") in summary
    assert [field.name for field in dataclasses.fields(ContactSummary)] == ["id", "name", "type"]
    assert "secret" not in repr(summary) and "fact of" not in repr(summary)


async def test_summary_of_hundreds_of_contacts(contacts: ContactService, kin: str) -> None:
    for number in range(250):
        await contacts.create(kin, f"Contact {number:03d}", "human", notes="x" * 200)
    summary = await contacts.summary(kin)
    assert len(summary.listed) == 200 and summary.unlisted == 50  # contacts_listed_max
    assert [entry.name for entry in summary.listed] == sorted(e.name for e in summary.listed)
    assert len(await contacts.search(kin, "contact")) == 10
    assert len(await contacts.search(kin, "contact", limit=1000)) == 100


async def test_a_long_registry_lists_the_linked_then_the_recent_contacts(
    platform: Platform, kin: str
) -> None:
    """Over ``listed_max``, the prompt lists the contacts linked to a person or Kin of the
    platform, then the most recently added or changed; sorted by name, and says how many
    it leaves out."""
    contacts = ContactService(platform.db, platform.bus, listed_max=3)
    rows = [  # (name, linked to, last changed)
        ("Old friend", None, 100.0), ("Marie", "user-1", 50.0), ("Neighbour", None, 300.0),
        ("Scout", "kin-1", 10.0), ("Plumber", None, 200.0), ("Baker", None, 400.0),
    ]  # fmt: skip
    await platform.db.write(
        lambda: [
            ContactRecord.create(
                id=uuid.uuid4().hex,
                kin=kin,
                name=name,
                type="human",
                linked_id=linked,
                created_at=changed,
                updated_at=changed,
            )
            for name, linked, changed in rows
        ]
    )
    summary = await contacts.summary(kin)
    assert [entry.name for entry in summary.listed] == ["Baker", "Marie", "Scout"]
    assert summary.unlisted == 3
    plumber = next(c for c in await contacts.search(kin, "Plumber"))
    await contacts.update(kin, plumber.id, relation="Fixed the boiler")  # now the most recent
    summary = await contacts.summary(kin)
    assert [entry.name for entry in summary.listed] == ["Marie", "Plumber", "Scout"]
    assert summary.unlisted == 3
    assert (await ContactService(platform.db, platform.bus, 0).summary(kin)) == ContactDigest((), 6)


async def test_the_summary_kept_between_turns_follows_every_change(
    platform: Platform, contacts: ContactService, kin: str
) -> None:
    """Turns reuse the sorted summary until the Kin's contacts change, however they change:
    through the service, or written by other code (an imported Kin's, a deletion)."""
    anna = await contacts.create(kin, "Anna", "human")
    assert [entry.name for entry in (await contacts.summary(kin)).listed] == ["Anna"]
    assert await contacts.summary(kin) == await contacts.summary(kin)
    await contacts.update(kin, anna.id, name="Zelda")
    assert [entry.name for entry in (await contacts.summary(kin)).listed] == ["Zelda"]
    now = time.time()
    await platform.db.write(
        lambda: ContactRecord.create(
            id=uuid.uuid4().hex, kin=kin, name="Bruno", type="kin", created_at=now, updated_at=now
        )
    )
    assert [(e.name, e.type) for e in (await contacts.summary(kin)).listed] == [
        ("Bruno", "kin"),
        ("Zelda", "human"),
    ]
    await platform.db.write(
        lambda: ContactRecord.delete().where(ContactRecord.id == anna.id).execute()
    )
    assert [entry.name for entry in (await contacts.summary(kin)).listed] == ["Bruno"]
    # Even a change that leaves ``updated_at`` as it was.
    await platform.db.write(lambda: platform.db.sql("update contact set name = 'Yann'"))
    assert [entry.name for entry in (await contacts.summary(kin)).listed] == ["Yann"]


async def test_a_deleted_kin_takes_its_contacts_and_leaves_the_others(
    platform: Platform, contacts: ContactService, kin: str, other_kin: str
) -> None:
    await contacts.create(kin, "Anna", "human")
    await contacts.create(other_kin, "Bruno", "human")
    assert [entry.name for entry in (await contacts.summary(kin)).listed] == ["Anna"]
    await platform.db.write(lambda: KinRecord.delete().where(KinRecord.id == kin).execute())
    owners = await platform.db.read(
        lambda: platform.db.sql("select kin_id from contact").fetchall()
    )
    assert owners == [(other_kin,)]
    assert (
        await contacts.summary(kin) == ContactDigest()
    )  # its contacts went by cascade: seen at once
    assert [entry.name for entry in (await contacts.summary(other_kin)).listed] == ["Bruno"]


async def test_contact_events_are_published(
    platform: Platform, contacts: ContactService, kin: str
) -> None:
    seen: list[Event] = []
    platform.bus.on("contact.*", seen.append)
    paul = await contacts.create(kin, "Paul", "human")
    await contacts.update(kin, paul.id, add_facts=["Habite à Lyon"])
    await contacts.update(kin, paul.id, add_facts=["habite à Lyon"])  # nothing changes
    await contacts.update(kin, paul.id, name="Paul")  # nothing changes either
    await platform.bus.flush()
    assert [(event.type, event.payload()) for event in seen] == [
        ("contact.created", {"contact_id": paul.id, "kin_id": kin}),
        ("contact.updated", {"contact_id": paul.id, "kin_id": kin}),
    ]


# -- the tools ---------------------------------------------------------------------------------


def registered_tools(module: ModuleType, name: str) -> list[Any]:
    manager = PluginManager()
    manager.register(module, name)
    tools: list[Any] = []
    manager.pluggy.hook.register_tools(register=tools.append)
    return tools


def test_plugins_register_their_tools_through_the_hook() -> None:
    contact_names = [tool.name for tool in registered_tools(contact_tools, "contact_tools")]
    assert contact_names == ["get_contact", "search_contacts", "create_contact", "update_contact"]
    kin_names = [tool.name for tool in registered_tools(kin_tools, "kin_tools")]
    assert kin_names == ["list_kins"]


def check_object_schema(schema: dict[str, Any]) -> None:
    assert schema["type"] == "object"
    assert isinstance(schema["properties"], dict)
    assert isinstance(schema["required"], list)
    assert set(schema["required"]) <= set(schema["properties"])
    assert schema["additionalProperties"] is False
    for prop in schema["properties"].values():
        assert prop["type"] in ("string", "array", "object")
        if prop["type"] == "object":
            check_object_schema(prop)
        if prop["type"] == "array":
            assert prop["items"] == {"type": "string"}


ALL_TOOLS = [*contact_tools.TOOLS, kin_tools.ListKinsTool()]


@pytest.mark.parametrize("tool", ALL_TOOLS, ids=lambda tool: str(tool.name))
def test_tools_follow_the_protocol_with_valid_schemas(tool: Any) -> None:
    assert isinstance(tool, Tool)
    assert tool.name and tool.description and isinstance(tool.prompt_hint, str)
    check_object_schema(tool.parameters)


def test_tool_schemas_name_their_arguments() -> None:
    by_name = {tool.name: tool.parameters for tool in ALL_TOOLS}
    assert by_name["get_contact"]["required"] == ["contact_id"]
    assert by_name["search_contacts"]["required"] == ["query"]
    assert set(by_name["create_contact"]["properties"]) == {"name", "type", "notes", "relation"}
    assert by_name["create_contact"]["required"] == ["name", "type"]
    assert by_name["create_contact"]["properties"]["type"]["enum"] == ["human", "kin"]
    assert by_name["update_contact"]["required"] == ["contact_id", "updates"]
    updates = by_name["update_contact"]["properties"]["updates"]
    assert set(updates["properties"]) == {
        "name",
        "relation",
        "notes",
        "add_facts",
        "remove_facts",
        "add_preferences",
        "remove_preferences",
    }
    assert updates["required"] == []
    assert by_name["list_kins"]["properties"] == {}


def test_exactly_one_contact_tool_carries_the_registry_instruction() -> None:
    hints = [tool.prompt_hint for tool in registered_tools(contact_tools, "contact_tools")]
    carrying = [hint for hint in hints if hint]
    assert len(carrying) == 1
    hint = carrying[0]
    for word in ("create_contact", "update_contact", "get_contact", "search_contacts"):
        assert word in hint
    assert "password" in hint and "token" in hint
    assert kin_tools.ListKinsTool().prompt_hint == ""


def tool(name: str) -> Any:
    return next(t for t in ALL_TOOLS if t.name == name)


async def test_the_contact_tools_keep_a_registry(context: ToolContext) -> None:
    created = await tool("create_contact").run(
        context, {"name": "Paul", "type": "human", "relation": "Frère de Nicolas"}
    )
    assert created["name"] == "Paul" and created["kin_id"] == context.kin_id
    assert created["notes"] == "" and created["facts"] == []
    updated = await tool("update_contact").run(
        context,
        {
            "contact_id": created["id"],
            "updates": {"add_facts": ["Allergique aux arachides"], "notes": "Vu à Noël"},
        },
    )
    assert updated["facts"] == ["Allergique aux arachides"] and updated["notes"] == "Vu à Noël"
    assert await tool("get_contact").run(context, {"contact_id": created["id"]}) == updated
    found = await tool("search_contacts").run(context, {"query": "frère de nicolas"})
    assert found == {"contacts": [updated]}
    assert (await tool("search_contacts").run(context, {"query": "allergique"}))["contacts"][0][
        "id"
    ] == created["id"]
    assert await tool("search_contacts").run(context, {"query": "cousin"}) == {"contacts": []}
    kin = await tool("create_contact").run(context, {"name": "Basile", "type": "kin"})
    assert kin["type"] == "kin"


async def test_the_contact_tools_see_only_the_calling_kins_registry(
    context: ToolContext, other_kin: str
) -> None:
    created = await tool("create_contact").run(context, {"name": "Paul", "type": "human"})
    other = dataclasses.replace(context, kin_id=other_kin, kin_name="Basile")
    with pytest.raises(ToolError, match="No contact"):
        await tool("get_contact").run(other, {"contact_id": created["id"]})
    assert await tool("search_contacts").run(other, {"query": "Paul"}) == {"contacts": []}


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("get_contact", {}, "contact_id"),
        ("get_contact", {"contact_id": 42}, "contact_id"),
        ("get_contact", {"contact_id": "nope"}, "No contact"),
        ("get_contact", {"contact_id": "x", "extra": 1}, "extra"),
        ("search_contacts", {}, "query"),
        ("search_contacts", {"query": "  "}, "query"),
        ("search_contacts", {"query": "?!"}, "no words"),
        ("search_contacts", {"query": ["Paul"]}, "query"),
        ("create_contact", {"type": "human"}, "name"),
        ("create_contact", {"name": "", "type": "human"}, "name"),
        ("create_contact", {"name": "Paul"}, "type"),
        ("create_contact", {"name": "Paul", "type": "robot"}, "type"),
        ("create_contact", {"name": "Paul", "type": "human", "notes": 3}, "notes"),
        ("create_contact", {"name": "Paul", "type": "human", "password": "x"}, "password"),
        ("update_contact", {"contact_id": "nope", "updates": {"notes": "x"}}, "No contact"),
        ("update_contact", {"contact_id": "PAUL"}, "updates"),
        ("update_contact", {"contact_id": "PAUL", "updates": "notes=x"}, "updates"),
        ("update_contact", {"contact_id": "PAUL", "updates": {}}, "empty"),
        ("update_contact", {"contact_id": "PAUL", "updates": {"age": 3}}, "age"),
        ("update_contact", {"contact_id": "PAUL", "updates": {"add_facts": "x"}}, "add_facts"),
        ("update_contact", {"contact_id": "PAUL", "updates": {"add_facts": [1]}}, "add_facts"),
        ("update_contact", {"contact_id": "PAUL", "updates": {"name": " "}}, "name"),
        ("update_contact", {"contact_id": "PAUL", "updates": {"notes": 1}}, "notes"),
        ("list_kins", {"all": True}, "no arguments"),
    ],
)
async def test_tools_refuse_bad_arguments_with_a_message(
    context: ToolContext, contacts: ContactService, name: str, arguments: Any, message: str
) -> None:
    paul = await contacts.create(context.kin_id, "Paul", "human", notes="kept")
    if arguments.get("contact_id") == "PAUL":
        arguments = {**arguments, "contact_id": paul.id}
    with pytest.raises(ToolError, match=message):
        await tool(name).run(context, arguments)
    assert await contacts.get(context.kin_id, paul.id) == paul
    assert [entry.name for entry in (await contacts.summary(context.kin_id)).listed] == ["Paul"]


async def test_tools_refuse_arguments_that_are_not_an_object(context: ToolContext) -> None:
    not_an_object: Any = ["not", "an", "object"]
    for each in ALL_TOOLS:
        with pytest.raises(ToolError, match="object"):
            await each.run(context, not_an_object)


async def test_list_kins_returns_id_name_and_role(
    context: ToolContext, kin: str, other_kin: str
) -> None:
    listed = await tool("list_kins").run(context, {})
    assert listed == [
        {"id": kin, "name": "Aria", "role": "Cuisinière"},
        {"id": other_kin, "name": "Basile", "role": "Jardinier"},
    ]
