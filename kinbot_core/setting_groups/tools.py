"""The settings of what Kins reach beyond their chat: MCP servers and web tools, the egress
proxy of their code, uploads, inbound webhooks, workspaces and custom tools (part of
``kinbot_core.config.Settings``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import NoDecode

MIB = 1024 * 1024
GIB = 1024 * MIB
#: The largest body limit an inbound webhook may be given.
WEBHOOK_BODY_CEILING = MIB


class ToolSettings(BaseModel):
    """MCP servers and web tools, the egress proxy, uploads, inbound webhooks, workspaces and
    custom tools."""

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

    @field_validator("egress_allowed_ports")
    @classmethod
    def _valid_ports(cls, value: list[int]) -> list[int]:
        for port in value:
            if not 1 <= port <= 65535:
                raise ValueError(f"{port} is not a TCP port (1-65535)")
        return value
