import { describe, expect, it } from "vitest";

import { cronActions, cronBody, draftOf, type Cron } from "./crons";

const cron: Cron = {
  id: "c1", kin_id: "k1", name: "Morning news", schedule: "0 9 * * *", timezone: null,
  task_description: "Summarise the news.", model: null, state: "active", active: true, needs_confirmation: false,
  created_by_user_id: "u1", created_by_kin_id: null, next_run_at: null, last_run_status: null, last_task_id: null,
  last_skip_reason: null, created_at: 1,
};

describe("cronBody", () => {
  it("sends every field of a new cron with its Kin, trimmed, the empty model as the Kin's", () => {
    const body = cronBody({ name: " Tea ", schedule: " 0  16 * * * ", task_description: "Remind me.\n", model: "" }, "k1");
    expect(body).toEqual({ name: "Tea", schedule: "0 16 * * *", task_description: "Remind me.", model: null, kin_id: "k1" });
  });

  it("sends only what changed on an existing cron", () => {
    expect(cronBody(draftOf(cron), "k1", cron)).toEqual({});
    expect(cronBody({ ...draftOf(cron), schedule: "0 8 * * 1-5", model: "gpt-4o" }, "k1", cron)).toEqual({ schedule: "0 8 * * 1-5", model: "gpt-4o" });
    expect(cronBody({ ...draftOf({ ...cron, model: "gpt-4o" }), model: "" }, "k1", { ...cron, model: "gpt-4o" })).toEqual({ model: null });
  });
});

describe("cronActions", () => {
  it("offers confirm on a proposal, pause while scheduled, resume when paused", () => {
    expect(cronActions({ state: "awaiting_confirmation" })).toEqual({ confirm: true, pause: true, resume: false });
    expect(cronActions({ state: "active" })).toEqual({ confirm: false, pause: true, resume: false });
    expect(cronActions({ state: "inactive" })).toEqual({ confirm: false, pause: false, resume: true });
  });
});
