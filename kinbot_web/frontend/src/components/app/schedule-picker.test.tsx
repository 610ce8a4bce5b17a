// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import * as React from "react";
import { afterEach, describe, expect, it } from "vitest";

import i18n from "@/i18n";

import { SchedulePicker } from "./schedule-picker";

afterEach(cleanup);

/** The picker as the cron dialog holds it: the expression and the time zone in its state. */
function Holder({ initial, seen }: { initial: string; seen: string[] }) {
  const [value, setValue] = React.useState(initial);
  const [zone, setZone] = React.useState("Europe/Paris");
  return (
    <SchedulePicker
      value={value}
      onChange={(next) => {
        seen.push(next);
        setValue(next);
      }}
      timezone={zone}
      onTimezoneChange={setZone}
    />
  );
}

describe("SchedulePicker", () => {
  it("writes every weekday at 07:30 and says it back, in English", async () => {
    await i18n.changeLanguage("en");
    const seen: string[] = [];
    render(<Holder initial="0 8 * * *" seen={seen} />);
    expect(screen.getByText(/Runs every day at 08:00\./)).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Repeats"), { target: { value: "weekdays" } });
    fireEvent.change(screen.getByLabelText("At"), { target: { value: "07:30" } });
    expect(seen.at(-1)).toBe("30 7 * * 1-5");
    expect(screen.getByText(/Runs every weekday at 07:30\./)).toBeTruthy();
    expect((screen.getByLabelText("Time zone") as HTMLSelectElement).value).toBe("Europe/Paris");
  });

  it("offers a weekday, a day of the month, an interval or an expression as the kind asks, in French", async () => {
    await i18n.changeLanguage("fr");
    const seen: string[] = [];
    render(<Holder initial="30 7 * * 1-5" seen={seen} />);
    expect((screen.getByLabelText("Répétition") as HTMLSelectElement).value).toBe("weekdays");
    fireEvent.change(screen.getByLabelText("Répétition"), { target: { value: "weekly" } });
    fireEvent.change(screen.getByLabelText("Le"), { target: { value: "3" } });
    expect(seen.at(-1)).toBe("30 7 * * 3");
    expect(screen.getByText(/S'exécute chaque mercredi à 07:30\./)).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Répétition"), { target: { value: "monthly" } });
    fireEvent.change(screen.getByLabelText("Jour du mois"), { target: { value: "12" } });
    expect(seen.at(-1)).toBe("30 7 12 * *");
    fireEvent.change(screen.getByLabelText("Répétition"), { target: { value: "hourly" } });
    fireEvent.change(screen.getByLabelText("Toutes les combien d'heures"), { target: { value: "4" } });
    expect(seen.at(-1)).toBe("0 */4 * * *");
    expect(screen.getByText(/S'exécute toutes les 4 heures\./)).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Répétition"), { target: { value: "custom" } });
    const expression = screen.getByLabelText("Expression cron") as HTMLInputElement;
    expect(expression.value).toBe("0 */4 * * *");
    fireEvent.change(expression, { target: { value: "*/30 * * * * *" } });
    expect(seen.at(-1)).toBe("*/30 * * * * *");
    expect(screen.getByText(/selon l'expression cron « \*\/30 \* \* \* \* \* »/)).toBeTruthy();
    await i18n.changeLanguage("en");
  });

  it("names each time zone by its city and the zone's name in the reader's language", async () => {
    await i18n.changeLanguage("fr");
    render(<Holder initial="0 8 * * *" seen={[]} />);
    const zone = screen.getByLabelText("Fuseau horaire") as HTMLSelectElement;
    expect(zone.selectedOptions[0].textContent).toBe("Paris — heure d’Europe centrale");
    const labels = [...zone.options].slice(1).map((option) => option.textContent ?? "");
    expect(labels).toContain("New York — heure de l’Est nord-américain");
    expect(labels).toContain("UTC");
    expect(labels.some((label) => label.includes("/") || label.includes("_"))).toBe(false);
    expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b, "fr")));
    cleanup();
    await i18n.changeLanguage("en");
    render(<Holder initial="0 8 * * *" seen={[]} />);
    expect((screen.getByLabelText("Time zone") as HTMLSelectElement).selectedOptions[0].textContent).toBe("Paris — Central European Time");
  });

  it("opens on a custom expression it cannot show as a preset", async () => {
    await i18n.changeLanguage("en");
    render(<Holder initial="0 9 1 * 1" seen={[]} />);
    expect((screen.getByLabelText("Repeats") as HTMLSelectElement).value).toBe("custom");
    expect((screen.getByLabelText("Cron expression") as HTMLInputElement).value).toBe("0 9 1 * 1");
  });
});
