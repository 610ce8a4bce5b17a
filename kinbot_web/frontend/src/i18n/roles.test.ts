import { describe, expect, it } from "vitest";

import i18n from "./index";

describe("roles in a sentence", () => {
  it("are lower case inside the invitation's sentence, and capitalised as labels", () => {
    const fr = i18n.getFixedT("fr");
    expect(fr("register.subtitle", { role: fr("users.roleInline.member") })).toBe("Vous êtes invité·e comme membre. Présentez-vous.");
    expect(fr("register.subtitle", { role: fr("users.roleInline.admin") })).toContain("comme administrateur·rice.");
    expect(fr("users.member")).toBe("Membre");
    const en = i18n.getFixedT("en");
    expect(en("register.subtitle", { role: en("users.roleInline.admin") })).toBe("You were invited as an administrator. Tell us about you.");
    expect(en("users.admin")).toBe("Administrator");
  });
});
