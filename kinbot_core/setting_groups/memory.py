"""The settings of a Kin's memory: compacting its session, extracting, finding and injecting
its memories (part of ``kinbot_core.config.Settings``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class MemorySettings(BaseModel):
    """Compacting and memory."""

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
    history_search_min_score: float = Field(
        0.35,
        ge=-1,
        le=1,
        description="In a person's search of a Kin's history, a message found by meaning alone "
        "is listed only if its cosine similarity to the query reaches this floor, so that a "
        "query nothing is like finds nothing (messages with the query's words always are; -1: "
        "no floor; chosen with the local all-MiniLM-L6-v2 model, another embedding model may "
        "need its own).",
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
