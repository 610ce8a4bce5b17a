import { describe, expect, it } from "vitest";

import { applyCronEvent, cronActions, cronBody, cronsReducer, draftOf, formatWhen, initialCrons, needsReload, newDraft, type Cron, type CronsState } from "./crons";

const cron: Cron = {
  id: "c1", kin_id: "k1", name: "Morning news", schedule: "0 9 * * *", timezone: null,
  task_description: "Summarise the news.", model: null, state: "active", active: true, needs_confirmation: false,
  created_by_user_id: "u1", created_by_kin_id: null, next_run_at: null, last_run_at: null, last_run_status: null, last_task_id: null,
  last_skip_at: null, last_skip_reason: null, created_at: 1, updated_at: 1,
};

describe("cronBody", () => {
  it("sends every field of a new cron with its Kin, trimmed, the empty model as the Kin's", () => {
    const body = cronBody({ name: " Tea ", schedule: " 0  16 * * * ", timezone: "Europe/Paris", task_description: "Remind me.\n", model: "" }, "k1");
    expect(body).toEqual({ name: "Tea", schedule: "0 16 * * *", timezone: "Europe/Paris", task_description: "Remind me.", model: null, kin_id: "k1" });
  });

  it("starts a new cron every day at 08:00 in the browser's time zone", () => {
    expect(newDraft("America/Montreal")).toEqual({ name: "", schedule: "0 8 * * *", timezone: "America/Montreal", task_description: "", model: "" });
    expect(newDraft().timezone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });

  it("sends only what changed on an existing cron", () => {
    expect(cronBody(draftOf(cron), "k1", cron)).toEqual({});
    expect(cronBody({ ...draftOf(cron), schedule: "0 8 * * 1-5", model: "gpt-4o" }, "k1", cron)).toEqual({ schedule: "0 8 * * 1-5", model: "gpt-4o" });
    expect(cronBody({ ...draftOf({ ...cron, model: "gpt-4o" }), model: "" }, "k1", { ...cron, model: "gpt-4o" })).toEqual({ model: null });
    expect(cronBody({ ...draftOf(cron), timezone: "Europe/Paris" }, "k1", cron)).toEqual({ timezone: "Europe/Paris" });
    expect(cronBody({ ...draftOf({ ...cron, timezone: "UTC" }), timezone: "" }, "k1", { ...cron, timezone: "UTC" })).toEqual({ timezone: null });
  });
});

describe("cronActions", () => {
  it("offers confirm or decline on a proposal, pause while scheduled, resume when paused", () => {
    expect(cronActions({ state: "awaiting_confirmation" })).toEqual({ confirm: true, decline: true, pause: false, resume: false });
    expect(cronActions({ state: "active" })).toEqual({ confirm: false, decline: false, pause: true, resume: false });
    expect(cronActions({ state: "inactive" })).toEqual({ confirm: false, decline: false, pause: false, resume: true });
  });
});

describe("applyCronEvent", () => {
  const second: Cron = { ...cron, id: "c2", name: "Tea", created_at: 2 };
  const proposal: Cron = { ...cron, id: "c3", name: "Weekly menu", state: "awaiting_confirmation", created_by_kin_id: "k1", created_at: 3 };

  it("adds a created cron of this Kin in the API's order (oldest first)", () => {
    expect(applyCronEvent([cron, proposal], "k1", { type: "cron.created", cron: second }).map((c) => c.id)).toEqual(["c1", "c2", "c3"]);
  });

  it("replaces an updated cron, and a replayed event changes nothing more", () => {
    const ran: Cron = { ...second, last_run_status: "completed", last_run_at: 50, next_run_at: 90 };
    const once = applyCronEvent([cron, second], "k1", { type: "cron.updated", cron: ran });
    expect(once).toEqual([cron, ran]);
    expect(applyCronEvent(once, "k1", { type: "cron.updated", cron: ran })).toEqual([cron, ran]);
  });

  it("an update of an unknown cron of this Kin adds it (its creation was missed)", () => {
    expect(applyCronEvent([cron], "k1", { type: "cron.updated", cron: proposal })).toEqual([cron, proposal]);
  });

  it("removes a deleted cron, and one moved to another Kin", () => {
    expect(applyCronEvent([cron, second], "k1", { type: "cron.deleted", cron_id: "c1", kin_id: "k1" })).toEqual([second]);
    expect(applyCronEvent([cron, second], "k1", { type: "cron.updated", cron: { ...second, kin_id: "k2" } })).toEqual([cron]);
  });

  it("leaves the list as it is for other Kins' crons", () => {
    const list = [cron];
    expect(applyCronEvent(list, "k1", { type: "cron.created", cron: { ...second, kin_id: "k2" } })).toBe(list);
    expect(applyCronEvent(list, "k1", { type: "cron.deleted", cron_id: "c9", kin_id: "k2" })).toBe(list);
  });
});

describe("cronsReducer", () => {
  const created = { type: "event", event: { type: "cron.created", cron: { ...cron, id: "c2", created_at: 2 } } } as const;

  it("shows what a load answers, then follows the events", () => {
    let state = cronsReducer(initialCrons("k1"), { type: "load" });
    state = cronsReducer(state, { type: "loaded", crons: [cron] });
    expect(state.crons).toEqual([cron]);
    state = cronsReducer(state, created);
    expect(state.crons?.map((c) => c.id)).toEqual(["c1", "c2"]);
    expect(needsReload(state)).toBe(false);
  });

  it("loads again when an event of this Kin came while a load was on its way", () => {
    let state: CronsState = cronsReducer(initialCrons("k1"), { type: "load" });
    state = cronsReducer(state, created); // nothing to apply it to yet
    expect(state.crons).toBeNull();
    expect(needsReload(state)).toBe(false); // the load is still going
    state = cronsReducer(state, { type: "loaded", crons: [cron] }); // may predate the event
    expect(needsReload(state)).toBe(true);
    state = cronsReducer(state, { type: "load" });
    expect(needsReload(state)).toBe(false);
    state = cronsReducer(state, { type: "loaded", crons: [cron, { ...cron, id: "c2", created_at: 2 }] });
    expect(needsReload(state)).toBe(false);
    expect(state.crons?.map((c) => c.id)).toEqual(["c1", "c2"]);
  });

  it("a failed load counts as ended; another Kin's event during a load asks for nothing", () => {
    let state: CronsState = cronsReducer(initialCrons("k1"), { type: "load" });
    state = cronsReducer(state, { type: "event", event: { type: "cron.deleted", cron_id: "c9", kin_id: "k2" } });
    state = cronsReducer(state, { type: "failed" });
    expect(state.loading).toBe(0);
    expect(needsReload(state)).toBe(false);
  });

  it("applies the person's own change at once, without asking for a reload", () => {
    let state = cronsReducer(cronsReducer(initialCrons("k1"), { type: "load" }), { type: "loaded", crons: [cron] });
    state = cronsReducer(state, { type: "load" });
    state = cronsReducer(state, { type: "changed", event: { type: "cron.updated", cron: { ...cron, state: "inactive", active: false } } });
    expect(state.crons?.[0].state).toBe("inactive");
    state = cronsReducer(state, { type: "loaded", crons: [{ ...cron, state: "inactive", active: false }] });
    expect(needsReload(state)).toBe(false);
  });
});

describe("formatWhen", () => {
  it("writes an API time in the user's language, and nothing for no time", () => {
    const when = 1_767_225_600 + 9 * 3600 + 30 * 60; // 2026-01-01 09:30 UTC
    const plain = (text: string | null) => text?.replace(/\s/g, " "); // ICU versions differ in spaces
    expect(plain(formatWhen(when, "en", "UTC"))).toBe("Jan 1, 2026, 9:30 AM");
    expect(plain(formatWhen(when, "fr", "UTC"))).toBe("1 janv. 2026, 09:30");
    expect(formatWhen(null, "fr")).toBeNull();
  });
});
