import { describe, expect, it } from "vitest";

import i18n from "@/i18n";

/** Count strings of the usage pages agree with their count, in English and French. */
describe("usage counts", () => {
  const en = i18n.getFixedT("en");
  const fr = i18n.getFixedT("fr");

  it("say one call, or several", () => {
    expect(en("usage.noPriceHint", { count: 1 })).toBe("1 call of a model without a price counts at no cost: add its price below.");
    expect(en("usage.noPriceHint", { count: 3 })).toBe("3 calls of models without a price count at no cost: add their price below.");
    expect(fr("usage.noPriceHint", { count: 1 })).toBe("1 appel d'un modèle sans prix compte pour zéro : ajoutez son prix ci-dessous.");
    expect(fr("usage.noPriceHint", { count: 3 })).toBe("3 appels de modèles sans prix comptent pour zéro : ajoutez leur prix ci-dessous.");
  });

  it("send a member to an administrator for prices", () => {
    expect(en("usage.noPriceMine", { count: 1 })).toBe("1 call of a model without a price counts at no cost: an administrator can set its price.");
    expect(fr("usage.noPriceMine", { count: 2 })).toBe("2 appels de modèles sans prix comptent pour zéro : un administrateur peut fixer leur prix.");
  });

  it("say one image or search, or several", () => {
    expect(en("usage.units", { count: 1 })).toBe("1 image or search");
    expect(en("usage.units", { count: 2 })).toBe("2 images or searches");
    expect(fr("usage.units", { count: 1 })).toBe("1 image ou recherche");
    expect(fr("usage.units", { count: 2 })).toBe("2 images ou recherches");
  });
});
