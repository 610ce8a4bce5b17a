import { describe, expect, it } from "vitest";

import { amountAxisMax, formatMoneyTicks, minorUnit } from "./money-axis";

describe("amounts on a chart's axis", () => {
  it("label small ticks with the decimals that tell them apart", () => {
    // uPlot's ticks for a total of a fraction of a cent: each reads differently.
    expect(formatMoneyTicks([0, 0.0025, 0.005, 0.0075, 0.01], "USD", "en")).toEqual(["$0.0000", "$0.0025", "$0.0050", "$0.0075", "$0.0100"]);
    expect(formatMoneyTicks([0, 0.002, 0.004], "EUR", "fr")).toEqual(["0,000\u00a0€", "0,002\u00a0€", "0,004\u00a0€"]);
    expect(formatMoneyTicks([0, 0.000001, 0.000002], "USD", "en")).toEqual(["$0.000000", "$0.000001", "$0.000002"]);
  });

  it("keep the currency's own decimals for ordinary amounts", () => {
    expect(formatMoneyTicks([0, 5, 10, 15], "USD", "en")).toEqual(["$0.00", "$5.00", "$10.00", "$15.00"]);
    expect(formatMoneyTicks([0, 0.5, 1], "USD", "en")).toEqual(["$0.00", "$0.50", "$1.00"]);
    expect(formatMoneyTicks([0, 100, 200], "JPY", "en")).toEqual(["¥0", "¥100", "¥200"]);
    expect(formatMoneyTicks([0, 1], "XXXX", "en")).toEqual(["0.00 XXXX", "1.00 XXXX"]);
  });

  it("scale so that a fraction of a cent draws a short bar", () => {
    expect(minorUnit("USD")).toBe(0.01);
    expect(minorUnit("JPY")).toBe(1);
    expect(amountAxisMax(0.00002, minorUnit("USD"))).toBe(0.01);
    expect(amountAxisMax(0, minorUnit("USD"))).toBe(0.01);
    expect(amountAxisMax(12, minorUnit("USD"))).toBeCloseTo(13.2);
  });
});
