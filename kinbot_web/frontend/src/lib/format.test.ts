import { describe, expect, it } from "vitest";

import { formatBytes, formatDate, formatDateTime, formatNumber, formatRelative, formatTime } from "./format";

// A local time: the formatters write the browser's time zone, in the interface's language.
const december3 = new Date(2026, 11, 3, 11, 37, 43);
const seconds = december3.getTime() / 1000;

describe("dates and numbers follow the interface's language, not the browser's", () => {
  it("writes dates and times in French with a 24-hour clock", () => {
    expect(formatDateTime(seconds, "fr")).toBe("3 déc. 2026, 11:37");
    expect(formatDate(december3, "fr")).toBe("3 déc. 2026");
    expect(formatTime(new Date(2026, 11, 3, 14, 5), "fr")).toBe("14:05");
  });

  it("writes dates and times in English with a 12-hour clock", () => {
    expect(formatDateTime(seconds, "en")).toBe("Dec 3, 2026, 11:37 AM");
    expect(formatDate(december3.toISOString(), "en")).toBe("Dec 3, 2026");
    expect(formatTime(new Date(2026, 11, 3, 14, 5), "en")).toBe("2:05 PM");
    expect(formatTime(new Date(2026, 11, 3, 0, 7), "en")).toBe("12:07 AM");
  });

  it("says how long ago or how soon", () => {
    expect(formatRelative(seconds - 300, "fr", seconds)).toBe("il y a 5 minutes");
    expect(formatRelative(seconds + 7200, "en", seconds)).toBe("in 2 hours");
    expect(formatRelative(seconds - 86400, "fr", seconds)).toBe("hier");
    expect(formatRelative(seconds, "en", seconds)).toBe("now");
  });

  it("groups digits and names sizes in the language", () => {
    expect(formatNumber(12345.6, "fr")).toBe("12\u202f345,6");
    expect(formatNumber(12345.6, "en")).toBe("12,345.6");
    expect(formatBytes(1.5 * 1024 * 1024, "fr")).toBe("1,5\u202fMo");
    expect(formatBytes(1.5 * 1024 * 1024, "en")).toBe("1.5 MB");
    expect(formatBytes(512, "en")).toBe("512 bytes");
    expect(formatBytes(20 * 1024 * 1024 * 1024, "fr")).toBe("20\u202fGo");
  });
});
