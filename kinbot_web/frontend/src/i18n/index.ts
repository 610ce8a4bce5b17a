/** i18next set up with English and French; the signed-in user's `language` wins (see setLanguage). */
import i18n from "i18next";
import { initReactI18next } from "react-i18next";

import type { Language } from "@/lib/types";

import en from "./en";
import fr from "./fr";

export const LANGUAGES: readonly Language[] = ["en", "fr"];

function browserLanguage(): Language {
  const preferred = typeof navigator !== "undefined" ? navigator.language.slice(0, 2) : "en";
  return preferred === "fr" ? "fr" : "en";
}

void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, fr: { translation: fr } },
  lng: browserLanguage(),
  fallbackLng: "en",
  interpolation: { escapeValue: false }, // React escapes
  returnNull: false,
});

/** French elides "de" and "que" before a vowel, which a name brought in by a placeholder may
 * start with: `{{name, de}}` reads "d'Atlas" or "de Chef", `{{name, que}}` "qu'Emma" or
 * "que Paul". Not before an h, which a name may sound ("de Home Assistant"). */
const ELIDED_BEFORE = /^[aeiouàâäéèêëîïôöùûüæœ]/i;
for (const word of ["de", "que"]) {
  i18n.services.formatter?.add(word, (value: unknown) => {
    const name = String(value);
    return ELIDED_BEFORE.test(name) ? `${word.slice(0, -1)}'${name}` : `${word} ${name}`;
  });
}

/** Switch the interface to `language` (the user's setting from /api/me). */
export function setLanguage(language: Language): void {
  if (i18n.language !== language) void i18n.changeLanguage(language);
  document.documentElement.lang = language;
}

export default i18n;
