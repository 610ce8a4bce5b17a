import { describe, expect, it } from "vitest";

import { ownsKin } from "./kin-owner";

describe("who owns a Kin", () => {
  it("is an administrator, or the person who created it", () => {
    const shared = { created_by: "u-nico" };
    expect(ownsKin({ id: "u-nico", role: "admin" }, shared)).toBe(true);
    expect(ownsKin({ id: "u-marie", role: "member" }, shared)).toBe(false);
    expect(ownsKin({ id: "u-marie", role: "member" }, { created_by: "u-marie" })).toBe(true);
    expect(ownsKin({ id: "u-root", role: "admin" }, { created_by: null })).toBe(true);
  });

  it("is nobody while the person loads, nor a member for a Kin whose creator is gone", () => {
    expect(ownsKin(null, { created_by: "u-nico" })).toBe(false);
    expect(ownsKin({ id: "u-marie", role: "member" }, { created_by: null })).toBe(false);
  });
});
