import { describe, expect, it } from "vitest";

import type { FormSchema } from "@/components/app/schema-form";

import { initialSettings, settingsToCreate, stateTone } from "./channels";

const schema: FormSchema = {
  properties: {
    bot_token: { type: "string", secret: true },
    mode: { type: "string", enum: ["polling", "webhook"], default: "polling" },
    webhook_url: { type: "string", nullable: true },
    poll_timeout_seconds: { type: "integer", default: 30 },
  },
};

describe("a new channel's settings", () => {
  it("start from the defaults, with the secret to type", () => {
    expect(initialSettings(schema)).toEqual({ bot_token: "", mode: "polling", webhook_url: null, poll_timeout_seconds: 30 });
  });

  it("leave out what was never set when sent", () => {
    expect(settingsToCreate({ bot_token: "123:abc", mode: "polling", webhook_url: null, other: { set: false } })).toEqual({ bot_token: "123:abc", mode: "polling" });
  });
});

describe("a connection's state", () => {
  it("has the tone of its health", () => {
    expect(stateTone("running")).toBe("success");
    expect(stateTone("retrying")).toBe("warning");
    expect(stateTone("failing")).toBe("destructive");
    expect(stateTone("stopped")).toBe("outline");
  });
});
