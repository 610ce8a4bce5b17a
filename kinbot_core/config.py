"""Every setting of the platform, with its default, in one place.

Values come, highest priority first, from explicit overrides (command-line options), the
environment (``KINBOT_<NAME>``), an optional TOML file, then the defaults below. The TOML file
is ``KINBOT_CONFIG_FILE`` when set, otherwise ``kinbot.toml`` in the data directory if present;
its keys are the setting names (``task_max_depth = 2``). ``docs/configuration.md`` lists every
setting and a test keeps it in sync with this module.
"""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import platformdirs
from pydantic import Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

ENV_PREFIX = "KINBOT_"
CONFIG_FILE_ENV = "KINBOT_CONFIG_FILE"
CONFIG_FILE_NAME = "kinbot.toml"
MIB = 1024 * 1024
GIB = 1024 * MIB
#: The largest body limit an inbound webhook may be given.
WEBHOOK_BODY_CEILING = MIB
#: An entry of ``allowed_hosts``: a host name, ``*.`` and a domain, or ``*``.
HOST_PATTERN = re.compile(r"\*|(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*")


def default_data_dir() -> Path:
    """The per-user data directory used when ``KINBOT_DATA_DIR`` is not set."""
    return Path(platformdirs.user_data_dir("kinbot", appauthor=False))


class Settings(BaseSettings):
    """The platform's configuration. Field descriptions are the documentation."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", frozen=True)

    # -- server and storage ----------------------------------------------------------------
    data_dir: Path = Field(
        default_factory=default_data_dir,
        description="Directory holding the SQLite database, uploads, workspaces and keys.",
    )
    host: str = Field("127.0.0.1", description="Address `kinbot serve` listens on.")
    port: int = Field(8787, ge=0, le=65535, description="TCP port `kinbot serve` listens on.")
    log_level: str = Field("INFO", description="Logging level (DEBUG, INFO, WARNING, ERROR).")
    secret_key: SecretStr | None = Field(
        None,
        description=(
            "Master key that encrypts secrets at rest. When unset, one is generated on first "
            "start into a 0600 key file in the data directory."
        ),
    )
    shutdown_grace_seconds: float = Field(
        10.0, gt=0, description="On SIGTERM, how long in-flight work may take before exit."
    )
    keep_alive_timeout_seconds: float = Field(
        130.0,
        gt=0,
        description=(
            "How long an idle kept-alive HTTP connection stays open. Longer than the idle "
            "timeouts of clients and reverse proxies (aiohttp 15 s, nginx 60 s, Go and Traefik "
            "90 s, Firefox 115 s, Caddy 120 s), so that they close first and never send a "
            "request on a connection the server is closing at that moment."
        ),
    )
    public_url: str = Field(
        "",
        description=(
            "The address people open KinBot at, when it is not the address it listens on "
            "(a domain name, a reverse proxy): `https://kinbot.example.org`. Its host name is "
            "answered to, its origin may send state-changing requests, and the set-up link "
            "printed at first start uses it."
        ),
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description=(
            "More host names KinBot answers to, comma-separated (`kinbot.lan, "
            "*.home.example.org`; `*` answers to any name, which gives up the protection). "
            "Always answered: IP addresses, `localhost`, this machine's host name (and "
            "`<name>.local`), the hosts of `public_url` and `trusted_origins`. A request "
            "naming another host gets 421: a page of another site whose name was made to point "
            "at this machine (DNS rebinding) cannot talk to KinBot."
        ),
    )
    database_read_workers: int = Field(
        4, ge=1, le=64, description="Threads running read queries off the event loop."
    )
    database_busy_timeout_seconds: float = Field(
        5.0, gt=0, description="How long a query waits for a lock held by another writer."
    )
    frontend_dir: Path | None = Field(
        None,
        description=(
            "Directory of the built web interface served at `/`; unset: the build inside the "
            "package (`kinbot_web/static`, made by `make run` or `npm run build`)."
        ),
    )

    # -- accounts and access ---------------------------------------------------------------
    password_min_length: int = Field(
        10, ge=8, le=128, description="Shortest password accepted for an account."
    )
    session_lifetime_days: float = Field(
        30.0, gt=0, description="How long a browser stays signed in without signing in again."
    )
    invitation_lifetime_hours: float = Field(
        72.0, gt=0, description="How long an invitation code can be used."
    )
    login_rate_limit_per_account: int = Field(
        5, ge=1, description="Failed sign-ins allowed per account per login rate window."
    )
    login_rate_limit_per_ip: int = Field(
        20, ge=1, description="Failed sign-ins allowed per client address per login rate window."
    )
    login_rate_window_seconds: float = Field(
        900.0, gt=0, description="The window of the two login rate limits."
    )
    trusted_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description=(
            "Extra origins allowed to send state-changing requests (e.g. the address of a "
            "reverse proxy: `https://kinbot.example.org`), comma-separated. The origin of "
            "the request's own host (one of the `allowed_hosts`) is always allowed."
        ),
    )
    trusted_proxy_hops: int = Field(
        0,
        ge=0,
        description=(
            "Reverse proxies in front of KinBot whose X-Forwarded-For/-Proto/-Host headers "
            "are believed (0: none, the headers are ignored). KinBot must then be reachable "
            "only through them: the forwarded client address decides, among other things, "
            "whether the first administrator may be created without the set-up code."
        ),
    )
    cookie_secure: Literal["auto", "always", "never"] = Field(
        "auto",
        description=(
            "Mark the session cookie Secure: `auto` when the request came over HTTPS "
            "(directly or through a trusted proxy), `always` or `never`."
        ),
    )

    # -- plugins ---------------------------------------------------------------------------
    disabled_plugins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Plugins disabled at start-up, comma-separated, before they are loaded.",
    )
    plugin_hook_timeout_seconds: float = Field(
        10.0, gt=0, description="Time limit of one plugin hook implementation or event handler."
    )

    # -- Kin runtime -----------------------------------------------------------------------
    turn_max_steps: int = Field(
        25, ge=1, description="LLM calls one turn may make (tool-call rounds) before it stops."
    )
    llm_timeout_seconds: float = Field(120.0, gt=0, description="Time limit of one LLM request.")
    llm_max_retries: int = Field(
        3, ge=0, description="Retries of a rate-limited, timed-out or unavailable provider call."
    )
    tool_approval_timeout_seconds: float = Field(
        86400.0,
        gt=0,
        description="How long a tool call waits for a person's approval before it expires "
        "(the Kin is told it did not run).",
    )

    # -- tasks and crons -------------------------------------------------------------------
    task_max_depth: int = Field(
        3,
        ge=1,
        description="Levels of sub-Kins: a Kin's sub-Kin is level 1, its own sub-Kin level 2…",
    )
    task_max_request_input: int = Field(
        3, ge=0, description="`request_input` calls one sub-Kin may make."
    )
    task_max_concurrent: int = Field(
        10,
        ge=1,
        description="Sub-Kin tasks running at once, all Kins together; more wait as pending.",
    )
    sub_kin_retention_days: float = Field(
        30.0,
        ge=0,
        description="Days an ended sub-Kin (one per task and per cron run) keeps its session "
        "before it is deleted; its result stays in the parent's session and the task list. "
        "0 keeps them all.",
    )
    cron_max_active: int = Field(
        50,
        ge=0,
        description="Active crons on the platform; activating or creating one more is refused.",
    )
    cron_max_concurrent_runs: int = Field(
        5,
        ge=1,
        description=(
            "Cron executions running at once, all crons together; a cron firing beyond it "
            "is skipped and the skip recorded on the cron."
        ),
    )
    cron_timezone: str = Field(
        "",
        description=(
            "Time zone of cron schedules (IANA name, e.g. `Europe/Paris`) unless a cron sets "
            "its own (empty: the machine's local zone)."
        ),
    )
    cron_missed_run_policy: Literal["run_once", "skip"] = Field(
        "run_once",
        description=(
            "A cron whose scheduled time passed while KinBot was down: `run_once` runs it "
            "once at start-up (however many times were missed), `skip` records the skip."
        ),
    )

    # -- inter-Kin messaging ---------------------------------------------------------------
    inter_kin_rate_limit: int = Field(
        20, ge=1, description="Messages a Kin may send to one other Kin per rate window."
    )
    inter_kin_rate_window_seconds: float = Field(
        60.0, gt=0, description="The window of `inter_kin_rate_limit`."
    )
    inter_kin_max_chain_depth: int = Field(
        5, ge=1, description="Exchanges a chain of inter-Kin messages may go through."
    )

    # -- usage ---------------------------------------------------------------------------------
    usage_currency: str = Field(
        "USD",
        pattern=r"^[A-Z]{3}$",
        description="The currency of the price table and the budgets (an ISO 4217 code): "
        "amounts are shown in it, in each person's number format. KinBot does not convert: "
        "enter prices in this currency.",
    )

    # -- notifications ---------------------------------------------------------------------
    notify_rate_limit: int = Field(
        10,
        ge=1,
        description="Notifications one Kin (its sub-Kins and crons included) may send per "
        "notification rate window, all people together; more are refused and the Kin is told.",
    )
    notify_rate_window_seconds: float = Field(
        3600.0, gt=0, description="The window of `notify_rate_limit`."
    )
    push_allow_insecure_endpoints: bool = Field(
        False,
        description="Accept Web Push subscriptions whose push service is reached over plain "
        "`http://` (browsers only give `https://` ones: this is for a push service of your "
        "own on a local network, or a test one). Off: `https://` only.",
    )
    push_allowed_networks: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Private, loopback or link-local networks a push service may be reached at "
        "anyway, comma-separated addresses or CIDR ranges, as `fetch_allowed_networks`. "
        "Empty: push services on public addresses only (a subscription cannot make KinBot "
        "post to a machine of the home network).",
    )
    push_vapid_subject: str = Field(
        "",
        description="The contact push services see in KinBot's VAPID signature (`mailto:` "
        "address or `https://` URL). Empty: `public_url` when set, else `mailto:` the first "
        "administrator's e-mail address.",
    )
    push_ttl_seconds: int = Field(
        86_400,
        ge=0,
        le=2_419_200,
        description="How long a push service keeps a notification for a device that is off "
        "(0: deliver now or never).",
    )
    push_timeout_seconds: float = Field(
        10.0, gt=0, description="Time limit of one request to a push service."
    )

    # -- compacting and memory -------------------------------------------------------------
    compacting_threshold_share: float = Field(
        0.75,
        gt=0,
        le=1,
        description=(
            "Share of the model's context window the session's context (summary and messages "
            "after the cut) may fill before older exchanges are compacted."
        ),
    )
    compacting_threshold_tokens: int = Field(
        60_000,
        ge=1000,
        description="Session size, in tokens, that triggers compacting when the model's "
        "context window is unknown.",
    )
    compacting_context_windows: dict[str, int] = Field(
        default_factory=dict,
        description=(
            "Context windows, in tokens, by model id or '<provider name>/<model id>' (a JSON "
            "object); they win over what servers and the built-in table say. A window an "
            "administrator sets in a Kin's settings wins over them."
        ),
    )
    compacting_model: str = Field(
        "",
        description=(
            "Model of the summary calls (`<provider name>/<model>`), unless a Kin sets its "
            "own; `@kin`: each Kin's own model; empty: the cheapest capable model of each "
            "Kin's provider. An administrator's choice in Settings wins over it."
        ),
    )
    compacting_summary_max_tokens: int = Field(
        2000, ge=100, description="Longest summary, in tokens, a compacting may write."
    )
    compacting_keep_recent_messages: int = Field(
        30, ge=1, description="Most recent messages never folded into the summary."
    )
    compacting_max_messages: int = Field(
        200,
        ge=10,
        description="Most messages after the compacting cut given to the model; a session "
        "with more is compacted whatever its size in tokens.",
    )
    compacting_snapshots_kept: int = Field(
        10, ge=1, description="Compacting snapshots kept per Kin for rollback."
    )
    contacts_listed_max: int = Field(
        200,
        ge=0,
        description="Most contacts a Kin's system prompt lists by name (those linked to a person "
        "or Kin of KinBot first, then the most recently added or changed); the Kin finds the "
        "others with search_contacts.",
    )
    memory_injected_max: int = Field(
        10, ge=0, description="Relevant memories injected into the system prompt."
    )
    memory_injected_max_tokens: int = Field(
        1000,
        ge=0,
        description="Budget, in tokens (estimated as compacting does), of the memories injected "
        "in a prompt.",
    )
    memory_injection_min_score: float = Field(
        0.35,
        ge=-1,
        le=1,
        description="A memory found by relevance is injected only if its cosine similarity to "
        "the turn's query reaches this floor (pinned memories always are; chosen with the "
        "local all-MiniLM-L6-v2 model, another embedding model may need its own).",
    )
    memory_injection_relative_score: float = Field(
        0.5,
        ge=0,
        le=1,
        description="A memory found by relevance is injected only if its cosine similarity "
        "reaches this share of the best one of the turn (0: no relative floor).",
    )
    memory_vectors_idle_seconds: float = Field(
        600.0,
        gt=0,
        description="A Kin's memory vectors, held in memory for fast search, are dropped after "
        "this long without a search (the next one reads them from the database again).",
    )
    memory_extraction_model: str = Field(
        "",
        description=(
            "Model that extracts long-term memories from sessions (`<provider name>/<model>`), "
            "unless a Kin sets its own; `@kin`: each Kin's own model; empty: the cheapest "
            "capable model of each Kin's provider. An administrator's choice in Settings wins "
            "over it."
        ),
    )
    memory_extraction_delay_seconds: float = Field(
        30.0,
        ge=0,
        description=(
            "Quiet time after a Kin's turn before its new messages are mined for memories "
            "(another turn within it postpones the extraction)."
        ),
    )
    memory_extraction_batch_messages: int = Field(
        40, ge=1, le=500, description="Messages sent to the extraction model in one call."
    )
    memory_duplicate_similarity: float = Field(
        0.97,
        gt=0,
        le=1,
        description=(
            "Cosine similarity from which an extracted memory is dropped, without asking the "
            "model, as a duplicate of an existing one (near-identical wording)."
        ),
    )
    memory_merge_similarity: float = Field(
        0.75,
        gt=0,
        le=1,
        description=(
            "Cosine similarity from which the extraction model decides whether an extracted "
            "memory updates an existing one, repeats it, or is new (below: added)."
        ),
    )
    search_rrf_k: float = Field(
        5.0,
        gt=0,
        description=(
            "The constant of reciprocal rank fusion in hybrid search (smaller: the top of "
            "each ranking counts more against items ranked low by both)."
        ),
    )
    search_weight_dense: float = Field(
        1.0, ge=0, description="Weight of the semantic (vector) ranking in hybrid search."
    )
    search_weight_fulltext: float = Field(
        1.0, ge=0, description="Weight of the full-text (FTS5) ranking in hybrid search."
    )
    search_candidates: int = Field(
        100,
        ge=1,
        description=(
            "Candidates each signal (semantic, full-text) returns before fusion in hybrid "
            "search (at least the number of results asked for)."
        ),
    )
    search_drop_stop_words: bool = Field(
        True,
        description=(
            "Leave the function words of the query's language (English or French) out of "
            "full-text queries."
        ),
    )
    search_semantic_query: Literal["question", "statement", "keywords"] = Field(
        "question",
        description=(
            "What the semantic signal embeds for a query: the query as written (question), "
            'without its leading question form ("When did", "Quand est-ce que"; statement), '
            "or its words without function words (keywords). Full-text search and the time "
            "cues read the query as written."
        ),
    )
    search_history_neighbour_weight: float = Field(
        0.1,
        ge=0,
        description=(
            "In hybrid history search, share of the scores of the messages just before and "
            "after a message added to its own (a turn whose surroundings match rises; 0: off)."
        ),
    )
    search_when_boost: float = Field(
        1.0,
        ge=0,
        description=(
            'In hybrid history search, for a question asking when ("when", "how long", '
            '"quand"...), share of its score a message that mentions a time ("yesterday", '
            '"last week", a date, "hier"...) gains (0: off).'
        ),
    )
    search_date_boost: float = Field(
        1.0,
        ge=0,
        description=(
            'In hybrid history search, for a question naming a date ("in October 2023", '
            '"on 13 May", "en juillet"), share of its score a message sent on that date '
            "gains (0: off)."
        ),
    )
    history_embedding_batch_size: int = Field(
        32, ge=1, description="Messages embedded together by the background history indexer."
    )
    history_embedding_context_messages: int = Field(
        2,
        ge=0,
        description=(
            "Preceding messages of the session embedded with each message as its context "
            "(for dense history search)."
        ),
    )
    history_embedding_poll_seconds: float = Field(
        2.0, gt=0, description="How often the background history indexer looks for new messages."
    )

    # -- MCP servers and web tools ---------------------------------------------------------
    mcp_call_timeout_seconds: float = Field(
        60.0, gt=0, description="Time limit of one MCP tool call; past it the model gets an error."
    )
    mcp_connect_timeout_seconds: float = Field(
        20.0, gt=0, description="Time limit of connecting to an MCP server and listing its tools."
    )
    mcp_reconnect_max_seconds: float = Field(
        60.0,
        gt=0,
        description="Longest wait between two attempts to reconnect a failed MCP server "
        "(the wait doubles from 1 second up to this).",
    )
    mcp_health_interval_seconds: float = Field(
        30.0, gt=0, description="How often a connected MCP server is checked (tools relisted)."
    )
    fetch_page_timeout_seconds: float = Field(
        15.0, gt=0, description="Time limit of the `fetch_page` tool, redirects included."
    )
    fetch_page_max_bytes: int = Field(
        2 * MIB, ge=1024, description="Largest web page body `fetch_page` downloads."
    )
    fetch_page_max_chars: int = Field(
        20000, ge=100, description="Longest text `fetch_page` gives the model (the rest is cut)."
    )
    fetch_allowed_networks: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description=(
            "Private, loopback or link-local networks `fetch_page`, `download_file`, "
            "`git_clone` and Kin code (through the egress proxy) may reach anyway, "
            "comma-separated addresses or CIDR ranges (`127.0.0.1, 192.168.1.0/24`). "
            "Empty: only public addresses."
        ),
    )

    download_max_bytes: int = Field(
        100 * MIB, ge=1024, description="Largest file `download_file` saves into a workspace."
    )
    download_timeout_seconds: float = Field(
        300.0, gt=0, description="Time limit of one `download_file`, redirects included."
    )

    git_clone_max_bytes: int = Field(
        200 * MIB,
        ge=MIB,
        description="Largest a `git_clone` may grow on disk (objects and files); past it git is "
        "stopped and nothing is kept.",
    )
    git_clone_timeout_seconds: float = Field(
        300.0,
        gt=0,
        description="Time limit of one `git_clone`; past it git is killed and nothing is kept.",
    )

    # -- egress proxy (the network of Kin code) ----------------------------------------------
    egress_allowed_ports: Annotated[list[int], NoDecode] = Field(
        default_factory=lambda: [80, 443],
        description="Ports the egress proxy connects to for Kin code and `git_clone`, "
        "comma-separated (other ports are refused).",
    )
    egress_max_connections_per_kin: int = Field(
        16, ge=1, description="Connections one Kin's code may hold open through the egress proxy."
    )
    egress_idle_timeout_seconds: float = Field(
        60.0,
        gt=0,
        description="An egress proxy connection with no traffic either way for this long is "
        "closed.",
    )
    egress_connect_timeout_seconds: float = Field(
        10.0,
        gt=0,
        description="Time limit of resolving and connecting to a target through the egress proxy.",
    )
    egress_max_bytes_per_connection: int = Field(
        1024 * MIB,
        ge=MIB,
        description="Most bytes (both ways) one egress proxy connection may carry before it is "
        "closed.",
    )

    # -- uploads ---------------------------------------------------------------------------
    upload_max_bytes: int = Field(
        25 * MIB, ge=1, description="Largest file a user may upload into a chat."
    )
    avatar_max_bytes: int = Field(
        2 * MIB, ge=1, description="Largest avatar image a user may upload."
    )
    upload_text_max_chars: int = Field(
        100_000,
        ge=100,
        description="Longest text extracted from an uploaded PDF or document given to the model "
        "(the rest is cut).",
    )
    upload_pdf_max_pages: int = Field(
        500,
        ge=1,
        description="Most pages of an uploaded PDF whose text is read (the rest is cut).",
    )
    upload_unpacked_max_bytes: int = Field(
        100 * MIB,
        ge=MIB,
        description="Most bytes an uploaded office document (a ZIP archive: .docx, .xlsx, "
        ".pptx, .odt, .ods) may unpack to, "
        "counted from its declared sizes before reading and again while reading; more is "
        "refused (413).",
    )
    upload_zip_max_ratio: float = Field(
        100.0,
        gt=1,
        description="Highest compression ratio of a member of an uploaded office document above "
        "1 MiB unpacked (zip bombs compress far more than documents do); more is refused (413).",
    )
    upload_read_timeout_seconds: float = Field(
        30.0,
        gt=0,
        description="Time limit of reading an uploaded PDF or Word document (in a separate "
        "process, killed past it; the upload is refused with 422).",
    )
    upload_read_max_memory_bytes: int = Field(
        1024 * MIB,
        ge=256 * MIB,
        description="Address space of the process that reads an uploaded PDF or Word document; "
        "a file needing more is refused (413).",
    )
    json_body_max_bytes: int = Field(
        2 * MIB,
        ge=64 * 1024,
        description="Largest JSON request body; a bigger one is refused (413) before being read.",
    )

    # -- inbound webhooks (docs/webhooks.md) -------------------------------------------------
    webhook_body_max_bytes: int = Field(
        64 * 1024,
        ge=1024,
        le=WEBHOOK_BODY_CEILING,
        description="The body limit a new inbound webhook gets unless its administrator sets "
        "another (1 KiB to 1 MiB); a bigger body is refused (413) before it is read.",
    )
    webhook_rate_limit: int = Field(
        30,
        ge=1,
        description="Requests one inbound webhook accepts per `webhook_rate_window_seconds`; "
        "more are refused with 429 and `Retry-After`.",
    )
    webhook_rate_window_seconds: float = Field(
        60.0, gt=0, description="The window of `webhook_rate_limit`."
    )
    webhook_timestamp_tolerance_seconds: float = Field(
        300.0,
        gt=0,
        description="How far the `X-KinBot-Timestamp` of a signed webhook request may be from "
        "the server's clock, either way; older or newer requests are refused (401) as replays.",
    )

    # -- workspaces and custom tools ---------------------------------------------------------
    workspace_read_max_bytes: int = Field(
        256 * 1024, ge=1024, description="Most bytes one `read_file` call gives the model."
    )
    workspace_write_max_bytes: int = Field(
        MIB, ge=1024, description="Largest content one `write_file` call may write."
    )
    custom_tool_timeout_seconds: float = Field(
        30.0,
        gt=0,
        le=110,
        description="Time limit of one run of a Kin's custom tool; past it its processes are "
        "killed.",
    )
    custom_tool_output_max_bytes: int = Field(
        64 * 1024,
        ge=1024,
        description="Most bytes of a custom tool's stdout (and of its stderr) given to the model.",
    )
    custom_tool_sandbox: Literal["auto", "bubblewrap", "landlock", "none"] = Field(
        "auto",
        description="How Kin-written code (custom tools) is confined: `bubblewrap` (its own "
        "namespaces: the system read-only, the workspace, nothing else), `landlock` (the "
        "kernel's Landlock and a seccomp filter: the same files, no network), `auto` "
        "(bubblewrap where it works, else Landlock; where neither works custom tools are "
        "refused), or `none`: no confinement at all, Kin code can read everything the server "
        "can, `secret.key` and the database included (dangerous: only for a machine that "
        "holds nothing of value).",
    )
    custom_tool_cpu_seconds: int = Field(
        60,
        ge=1,
        description="CPU time one process of a custom tool may use (`RLIMIT_CPU`), in seconds.",
    )
    custom_tool_memory_bytes: int = Field(
        GIB,
        ge=64 * MIB,
        description="Memory one process of a custom tool may allocate (`RLIMIT_DATA`: heap "
        "and private writable mappings), in bytes.",
    )
    custom_tool_max_processes: int = Field(
        128,
        ge=0,
        description="Processes and threads one run of a custom tool may add (`RLIMIT_NPROC`, "
        "above those its user has when it starts: see Confining Kin code). 0: no limit.",
    )
    custom_tool_file_size_bytes: int = Field(
        256 * MIB,
        ge=MIB,
        description="Largest file a custom tool may write (`RLIMIT_FSIZE`), in bytes.",
    )
    custom_tool_open_files: int = Field(
        1024,
        ge=16,
        description="Files a process of a custom tool may have open at once (`RLIMIT_NOFILE`).",
    )

    # -- messaging channels ------------------------------------------------------------------
    channel_pairing_code_ttl_seconds: float = Field(
        3600.0,
        ge=60,
        description=(
            "How long a pairing code sent to an unknown sender of a messaging channel can be "
            "entered in My account."
        ),
    )
    channel_pairing_quiet_seconds: float = Field(
        600.0,
        ge=0,
        description=(
            "After sending a pairing code, how long further messages of the same unknown "
            "sender get no new code (so a chatty sender or another bot cannot make KinBot "
            "talk back at every message)."
        ),
    )
    channel_pairing_attempts: int = Field(
        5,
        ge=1,
        description=(
            "Wrong pairing codes a person may enter per pairing window before being asked to wait."
        ),
    )
    channel_pairing_window_seconds: float = Field(
        900.0, gt=0, description="The window of `channel_pairing_attempts`."
    )
    channel_delivery_max_attempts: int = Field(
        8,
        ge=1,
        description=(
            "Attempts at delivering a Kin's reply to a messaging channel (rate limits, network "
            "errors) before it is given up and marked failed."
        ),
    )
    channel_retry_base_seconds: float = Field(
        2.0,
        gt=0,
        description=(
            "First wait before retrying a channel's failed delivery or connection; it doubles "
            "at each failure, up to `channel_retry_max_seconds` (a platform's own retry-after "
            "wins when longer)."
        ),
    )
    channel_retry_max_seconds: float = Field(
        300.0, gt=0, description="Longest wait between two retries of a channel."
    )
    channel_failing_after: int = Field(
        3,
        ge=1,
        description=(
            "Consecutive failures (to connect or to deliver) after which a channel connection "
            "shows as failing in Settings and on `/api/health`."
        ),
    )

    @field_validator(
        "disabled_plugins",
        "trusted_origins",
        "fetch_allowed_networks",
        "egress_allowed_ports",
        "allowed_hosts",
        "push_allowed_networks",
        mode="before",
    )
    @classmethod
    def _split_names(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [name.strip() for name in value.split(",") if name.strip()]
        return value

    @field_validator("public_url")
    @classmethod
    def _web_address(cls, value: str) -> str:
        url = value.strip().rstrip("/")
        if not url:
            return ""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// address with a host name")
        return url

    @field_validator("allowed_hosts")
    @classmethod
    def _host_names(cls, value: list[str]) -> list[str]:
        names = []
        for entry in value:
            name = entry.strip().lower().rstrip(".")
            if not HOST_PATTERN.fullmatch(name):
                raise ValueError(
                    f"{entry!r} is not a host name (a name such as kinbot.lan, a pattern such "
                    "as *.example.org, or *), without scheme or port"
                )
            names.append(name)
        return names

    @field_validator("push_allowed_networks")
    @classmethod
    def _networks(cls, value: list[str]) -> list[str]:
        for entry in value:
            try:
                ipaddress.ip_network(entry, strict=False)
            except ValueError:
                raise ValueError(f"{entry!r} is not an IP address or CIDR network") from None
        return value

    @field_validator("push_vapid_subject")
    @classmethod
    def _vapid_subject(cls, value: str) -> str:
        subject = value.strip()
        if subject and not subject.startswith(("mailto:", "https://")):
            raise ValueError("must be a mailto: address or an https:// URL")
        return subject

    @field_validator("cron_timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        name = value.strip()
        if name:
            try:
                ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                raise ValueError(f"unknown time zone {value!r} (an IANA name, e.g. UTC)") from None
        return name

    @field_validator("egress_allowed_ports")
    @classmethod
    def _valid_ports(cls, value: list[int]) -> list[int]:
        for port in value:
            if not 1 <= port <= 65535:
                raise ValueError(f"{port} is not a TCP port (1-65535)")
        return value

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        level = value.upper()
        if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError(f"unknown log level {value!r}")
        return level

    @property
    def database_path(self) -> Path:
        """The SQLite file inside the data directory."""
        return self.data_dir / "kinbot.db"


def _config_file(overrides: dict[str, Any], explicit: Path | None) -> Path | None:
    if explicit is not None:
        return explicit
    if os.environ.get(CONFIG_FILE_ENV):
        return Path(os.environ[CONFIG_FILE_ENV])
    data_dir = overrides.get("data_dir") or os.environ.get(f"{ENV_PREFIX}DATA_DIR")
    candidate = Path(data_dir) if data_dir else default_data_dir()
    candidate = candidate / CONFIG_FILE_NAME
    return candidate if candidate.is_file() else None


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Build the settings from overrides, the environment, the TOML file and the defaults.

    Raises ``FileNotFoundError`` when an explicitly named config file does not exist, and
    pydantic's ``ValidationError`` (with every wrong field) for invalid values.
    """
    overrides = {key: value for key, value in overrides.items() if value is not None}
    toml_file = _config_file(overrides, config_file)
    if toml_file is not None and not toml_file.is_file():
        raise FileNotFoundError(f"configuration file not found: {toml_file}")

    class _Loaded(Settings):
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
            if toml_file is not None:
                sources.append(TomlConfigSettingsSource(settings_cls, toml_file))
            return tuple(sources)

    return _Loaded(**overrides)


@dataclass(frozen=True)
class SettingReference:
    """One row of the configuration reference."""

    name: str
    env: str
    default: str
    description: str


def settings_reference() -> list[SettingReference]:
    """The documentation of every setting, in declaration order."""
    rows = []
    for name, info in Settings.model_fields.items():
        if name == "data_dir":
            default = "user data dir (`~/.local/share/kinbot` on Linux)"
        elif name == "secret_key":
            default = "generated"
        elif info.default_factory is not None:
            default = f"`{info.default_factory()}`"  # type: ignore[call-arg]
        else:
            default = f"`{info.default}`"
        rows.append(
            SettingReference(name, f"{ENV_PREFIX}{name.upper()}", default, info.description or "")
        )
    return rows


def settings_reference_markdown() -> str:
    """The configuration reference as the Markdown table ``docs/configuration.md`` holds."""
    lines = ["| Setting | Environment variable | Default | Description |", "|---|---|---|---|"]
    for row in settings_reference():
        lines.append(f"| `{row.name}` | `{row.env}` | {row.default} | {row.description} |")
    return "\n".join(lines)


def public_settings(settings: Settings) -> dict[str, Any]:
    """The effective settings as JSON-ready values, with secrets masked."""
    values = settings.model_dump(mode="json")
    if settings.secret_key is not None:
        values["secret_key"] = "********"
    return values
