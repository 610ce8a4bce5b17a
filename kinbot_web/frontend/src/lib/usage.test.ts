import { describe, expect, it } from "vitest";

import { formatMoney } from "./money";
import { periodQuery, periodRange } from "./usage";

describe("usage periods", () => {
  const now = new Date(Date.UTC(2026, 2, 15, 23, 30)); // 15 March 2026, late evening UTC

  it("count in UTC days, as budgets do", () => {
    expect(periodRange("thisMonth", now)).toEqual({ from: "2026-03-01", to: "2026-03-15" });
    expect(periodRange("last30", now)).toEqual({ from: "2026-02-14", to: "2026-03-15" });
    expect(periodRange("lastMonth", now)).toEqual({ from: "2026-02-01", to: "2026-02-28" });
    expect(periodRange("lastMonth", new Date(Date.UTC(2026, 0, 10)))).toEqual({ from: "2025-12-01", to: "2025-12-31" });
    expect(periodQuery("thisMonth", now)).toBe("from=2026-03-01&to=2026-03-15");
  });
});

describe("formatMoney", () => {
  it("writes amounts in the reader's language, keeping fractions of a cent", () => {
    expect(formatMoney(12.5, "USD", "en")).toBe("$12.50");
    expect(formatMoney(0.0125, "USD", "en")).toBe("$0.0125");
    expect(formatMoney(0.0125, "USD", "fr")).toBe("0,0125\u00a0$US");
    expect(formatMoney(0, "EUR", "fr")).toBe("0,00\u00a0€");
  });

  it("writes a few calls' thousandths of a cent, never as nothing", () => {
    expect(formatMoney(0.00003, "USD", "en")).toBe("$0.00003");
    expect(formatMoney(0.0000024, "USD", "fr")).toBe("0,0000024\u00a0$US");
    expect(formatMoney(0.000123456, "USD", "en")).toBe("$0.00012");
    expect(formatMoney(0.00000000001, "USD", "en")).toBe("$0.00");
  });

  it("falls back to the code for a currency Intl does not know", () => {
    expect(formatMoney(1.5, "XXXX", "en")).toBe("1.5 XXXX");
  });
});
