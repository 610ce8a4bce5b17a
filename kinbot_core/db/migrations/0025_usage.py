"""Usage and costs (``kinbot_core/usage``): a row per provider call, the price table (seeded
with the public list prices of well-known models, in US dollars, editable by administrators)
and monthly budgets of people and Kins.

The seeded prices are the providers' published standard prices per million tokens (input,
output) or per unit (a 1024x1024 image of standard quality, a search) as of late 2025; a
model name also matches its dated versions (``claude-sonnet-4-5-20250929``).
"""

import time
from typing import Any

STATEMENTS = [
    """
    create table usage_record (
        id integer primary key autoincrement,
        created_at real not null,
        day text not null,
        kind text not null check (kind in ('chat', 'embedding', 'image', 'search')),
        provider text not null,
        model text not null,
        kin_id text,
        user_id text,
        origin text not null,
        input_tokens integer not null default 0,
        output_tokens integer not null default 0,
        units integer not null default 0,
        cost real not null default 0,
        priced integer not null default 1
    )
    """,
    "create index usage_record_created on usage_record (created_at)",
    # Covering the monthly sums of the budget check: read from the index alone.
    "create index usage_record_user on usage_record (user_id, created_at, cost)",
    "create index usage_record_kin on usage_record (kin_id, created_at, cost)",
    """
    create table model_price (
        model text primary key,
        input_per_million real not null default 0 check (input_per_million >= 0),
        output_per_million real not null default 0 check (output_per_million >= 0),
        per_unit real not null default 0 check (per_unit >= 0),
        updated_at real not null
    )
    """,
    """
    create table usage_budget (
        id text primary key,
        scope text not null check (scope in ('user', 'kin')),
        target_id text not null,
        monthly_limit real not null check (monthly_limit > 0),
        warn_percent integer not null default 80 check (warn_percent between 1 and 100),
        warned_month text,
        created_at real not null,
        updated_at real not null,
        unique (scope, target_id)
    )
    """,
]

#: model: (input per million tokens, output per million tokens, per unit), US dollars.
PRICES: dict[str, tuple[float, float, float]] = {
    # OpenAI
    "gpt-5": (1.25, 10.0, 0.0),
    "gpt-5-mini": (0.25, 2.0, 0.0),
    "gpt-5-nano": (0.05, 0.40, 0.0),
    "gpt-4.1": (2.0, 8.0, 0.0),
    "gpt-4.1-mini": (0.40, 1.60, 0.0),
    "gpt-4.1-nano": (0.10, 0.40, 0.0),
    "gpt-4o": (2.50, 10.0, 0.0),
    "gpt-4o-mini": (0.15, 0.60, 0.0),
    "o3": (2.0, 8.0, 0.0),
    "o3-mini": (1.10, 4.40, 0.0),
    "o4-mini": (1.10, 4.40, 0.0),
    "text-embedding-3-small": (0.02, 0.0, 0.0),
    "text-embedding-3-large": (0.13, 0.0, 0.0),
    "text-embedding-ada-002": (0.10, 0.0, 0.0),
    "gpt-image-1": (0.0, 0.0, 0.042),
    "dall-e-3": (0.0, 0.0, 0.04),
    "dall-e-2": (0.0, 0.0, 0.02),
    # Anthropic
    "claude-opus-4-1": (15.0, 75.0, 0.0),
    "claude-opus-4": (15.0, 75.0, 0.0),
    "claude-sonnet-4-5": (3.0, 15.0, 0.0),
    "claude-sonnet-4": (3.0, 15.0, 0.0),
    "claude-3-7-sonnet": (3.0, 15.0, 0.0),
    "claude-3-5-sonnet": (3.0, 15.0, 0.0),
    "claude-haiku-4-5": (1.0, 5.0, 0.0),
    "claude-3-5-haiku": (0.80, 4.0, 0.0),
    "claude-3-haiku": (0.25, 1.25, 0.0),
    # Google Gemini
    "gemini-2.5-pro": (1.25, 10.0, 0.0),
    "gemini-2.5-flash": (0.30, 2.50, 0.0),
    "gemini-2.5-flash-lite": (0.10, 0.40, 0.0),
    "gemini-2.0-flash": (0.10, 0.40, 0.0),
    "gemini-2.0-flash-lite": (0.075, 0.30, 0.0),
    "gemini-embedding-001": (0.15, 0.0, 0.0),
    "text-embedding-004": (0.0, 0.0, 0.0),
    "imagen-4.0-generate-001": (0.0, 0.0, 0.04),
    "imagen-3.0-generate-002": (0.0, 0.0, 0.03),
    # Voyage AI
    "voyage-3.5": (0.06, 0.0, 0.0),
    "voyage-3.5-lite": (0.02, 0.0, 0.0),
    "voyage-3-large": (0.18, 0.0, 0.0),
    "voyage-3": (0.06, 0.0, 0.0),
    "voyage-3-lite": (0.02, 0.0, 0.0),
    "voyage-code-3": (0.18, 0.0, 0.0),
    # Web search (per search)
    "brave": (0.0, 0.0, 0.005),
    "searxng": (0.0, 0.0, 0.0),
}


def up(migrator: Any, db: Any) -> None:
    for statement in STATEMENTS:
        db.execute_sql(statement)
    now = time.time()
    for model, (input_price, output_price, unit_price) in PRICES.items():
        db.execute_sql(
            "insert into model_price (model, input_per_million, output_per_million, per_unit, "
            "updated_at) values (?, ?, ?, ?, ?)",
            (model, input_price, output_price, unit_price, now),
        )
