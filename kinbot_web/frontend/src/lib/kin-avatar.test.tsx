// @vitest-environment jsdom
// Kins without a picture get one drawn from their name and role: the right icon for what they
// are for (English and French), a gradient that tells them apart, and a readable icon.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import "@/i18n";
import { Avatar } from "@/components/ui/avatar";

import { contrastOf } from "./color-contrast.test-util";
import { KIN_GRADIENTS, KIN_ICON_COLOR, kinGradientOf, kinThemeOf } from "./kin-avatar";

afterEach(cleanup);

describe("the theme of a Kin's picture", () => {
  it.each([
    [{ name: "Chef", role: "Cook" }, "cook"],
    [{ name: "Ratatouille", role: "Cuisinier du dimanche" }, "cook"],
    [{ name: "Marmiton", role: "Assistant", expertise: "recettes de saison" }, "cook"],
    [{ name: "Prof", role: "Professeure de maths" }, "teacher"],
    [{ name: "Atlas", role: "Homework tutor" }, "teacher"],
    [{ name: "Doc", role: "Médecin de famille" }, "health"],
    [{ name: "Hippo", role: "Santé et bien-être" }, "health"],
    [{ name: "Flora", role: "Gardener" }, "garden"],
    [{ name: "Penny", role: "Budget de la maison" }, "money"],
    [{ name: "Marco", role: "Travel planner" }, "travel"],
    [{ name: "Lina", role: "Organise nos voyages" }, "travel"],
    [{ name: "Mozart", role: "Music teacher" }, "music"],
    [{ name: "Max", role: "Coach sportif" }, "sport"],
    [{ name: "Ada", role: "Développeuse" }, "code"],
    [{ name: "Rex", role: "Dog trainer" }, "pets"],
    [{ name: "Nova", role: "" }, "default"],
    [{ name: "Nova" }, "default"],
  ] as const)("%o is %s", (kin, theme) => {
    expect(kinThemeOf(kin)).toBe(theme);
  });

  it("reads the role before the name and the expertise, and whole words only", () => {
    expect(kinThemeOf({ name: "Chef", role: "Travel agent", expertise: "cooking" })).toBe("travel");
    expect(kinThemeOf({ name: "Chefferie", role: "", expertise: "taxis et courses" })).toBe("shopping");
    // "chat" is a cat in French, and this app's chat: it chooses nothing.
    expect(kinThemeOf({ name: "Bavard", role: "Chat companion" })).toBe("default");
  });
});

describe("the gradient of a Kin's picture", () => {
  it("is the same for the same name and differs between names", () => {
    expect(kinGradientOf("Chef")).toEqual(kinGradientOf(" chef "));
    const looks = new Set(["Chef", "Prof", "Atlas", "Penny", "Nova", "Marco", "Flora", "Doc"].map((name) => JSON.stringify(kinGradientOf(name))));
    expect(looks.size).toBeGreaterThanOrEqual(6);
  });

  it.each(KIN_GRADIENTS)("%s → %s keeps the icon at 3:1", (from, to) => {
    expect(contrastOf(KIN_ICON_COLOR, from)).toBeGreaterThanOrEqual(3);
    expect(contrastOf(KIN_ICON_COLOR, to)).toBeGreaterThanOrEqual(3);
  });
});

describe("a Kin's avatar without a picture", () => {
  it("is an SVG named for the Kin, different for a cook and a teacher", () => {
    render(
      <>
        <Avatar name="Chef" kin={{ role: "Cook" }} />
        <Avatar name="Prof" kin={{ role: "Teacher" }} />
      </>,
    );
    const cook = screen.getByRole("img", { name: "Chef's picture" });
    const teacher = screen.getByRole("img", { name: "Prof's picture" });
    expect(cook.tagName.toLowerCase()).toBe("svg");
    expect(cook.getAttribute("data-kin-theme")).toBe("cook");
    expect(teacher.getAttribute("data-kin-theme")).toBe("teacher");
    expect(cook.innerHTML).not.toBe(teacher.innerHTML);
    expect(document.body.textContent).not.toContain("CH");
  });

  it("is decorative where the name is written beside it; a person keeps their initials", () => {
    const { container } = render(
      <>
        <Avatar name="Chef" kin={{ role: "Cook" }} labelled={false} />
        <Avatar name="Marie Durand" personId="u-marie" />
      </>,
    );
    expect(screen.queryByRole("img")).toBeNull();
    expect(container.querySelector("svg[data-kin-theme='cook']")).not.toBeNull();
    expect(container.textContent).toBe("MD");
  });
});
