import { describe, expect, it } from "vitest";

import i18n from "@/i18n";

import { cronToSchedule, scheduleInWords, scheduleToCron, type Schedule } from "./schedule-words";

function words(expression: string, language: "en" | "fr"): string {
  const t = i18n.getFixedT(language);
  return scheduleInWords(expression, (key, values) => t(key, values), language);
}

const presets: [Schedule, string, string, string][] = [
  [{ kind: "daily", time: "08:00" }, "0 8 * * *", "every day at 08:00", "tous les jours à 08:00"],
  [{ kind: "weekdays", time: "07:30" }, "30 7 * * 1-5", "every weekday at 07:30", "tous les jours de semaine à 07:30"],
  [{ kind: "weekly", weekday: 1, time: "18:05" }, "5 18 * * 1", "every Monday at 18:05", "chaque lundi à 18:05"],
  [{ kind: "weekly", weekday: 0, time: "10:00" }, "0 10 * * 0", "every Sunday at 10:00", "chaque dimanche à 10:00"],
  [{ kind: "hourly", every: 1, minute: 0 }, "0 * * * *", "every hour", "toutes les heures"],
  [{ kind: "hourly", every: 3, minute: 15 }, "15 */3 * * *", "every 3 hours, at 15 minutes past", "toutes les 3 heures, à 15 min"],
  [{ kind: "monthly", day: 15, time: "09:00" }, "0 9 15 * *", "every month on day 15 at 09:00", "tous les mois le 15 à 09:00"],
];

describe("the picker's presets", () => {
  it.each(presets)("%o writes %s, read back as the same preset and said in words", (schedule, expression, english, french) => {
    expect(scheduleToCron(schedule)).toBe(expression);
    expect(cronToSchedule(expression)).toEqual(schedule);
    expect(cronToSchedule(expression.replace(/ /g, "   "))).toEqual(schedule);
    expect(words(expression, "en")).toBe(english);
    expect(words(expression, "fr")).toBe(french);
  });

  it("reads any other expression as custom, as it was written", () => {
    for (const expression of ["*/15 * * * *", "0 9 1,15 * *", "0 8 * * 1,3,5", "30 7 * * MON-FRI", "0 0 9 * * *", "0 9 * 6 *", "", "0 25 * * *"]) {
      expect(cronToSchedule(expression)).toEqual({ kind: "custom", expression });
    }
    expect(scheduleToCron({ kind: "custom", expression: "  */15   * * * * " })).toBe("*/15 * * * *");
  });

  it("reads Sunday written as 7 as Sunday", () => {
    expect(cronToSchedule("0 10 * * 7")).toEqual({ kind: "weekly", weekday: 0, time: "10:00" });
  });
});

describe("scheduleInWords", () => {
  it.each([
    ["*/15 * * * *", "every 15 minutes", "toutes les 15 minutes"],
    ["* * * * *", "every minute", "toutes les minutes"],
    ["0 8 * * 1,3,5", "every Monday, Wednesday, and Friday at 08:00", "chaque lundi, mercredi et vendredi à 08:00"],
    ["30 7 * * MON-FRI", "every weekday at 07:30", "tous les jours de semaine à 07:30"],
    ["0 8,20 * * *", "every day at 08:00 and 20:00", "tous les jours à 08:00 et 20:00"],
    ["0 9 1,15 * *", "every month on day 1 and 15 at 09:00", "tous les mois le 1er et 15 à 09:00"],
    ["0 6 1 * *", "every month on day 1 at 06:00", "tous les mois le 1er à 06:00"],
    ["0 9 * 7,8 SAT", "every Saturday at 09:00, in July and August", "chaque samedi à 09:00, en juillet et août"],
    ["0 */2 * * 1-5", "every 2 hours, every weekday", "toutes les 2 heures, tous les jours de semaine"],
    ["0 30 7 * * *", "every day at 07:30", "tous les jours à 07:30"],
  ])("says %s in English and French", (expression, english, french) => {
    expect(words(expression, "en")).toBe(english);
    expect(words(expression, "fr")).toBe(french);
  });

  it("quotes what it cannot say in words", () => {
    expect(words("*/30 * * * * *", "en")).toBe("on the schedule “*/30 * * * * *”");
    expect(words("0 9 1 * 1", "fr")).toBe("selon l'expression cron « 0 9 1 * 1 »");
    expect(words("0 9 L * *", "en")).toBe("on the schedule “0 9 L * *”");
  });
});
