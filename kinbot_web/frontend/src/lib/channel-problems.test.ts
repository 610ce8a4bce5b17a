import { afterEach, describe, expect, it } from "vitest";

import i18n from "@/i18n";

import { channelProblemText } from "./channel-problems";

afterEach(async () => {
  await i18n.changeLanguage("en");
});

describe("a channel's trouble, worded for its type", () => {
  it("speaks of the mail server's sign-in for e-mail and of the bot token for Telegram", async () => {
    const t = i18n.t.bind(i18n);
    expect(channelProblemText(t, "state", "channel_auth_failed", "email")).toBe("The mail server refused the sign-in: check the user name and password.");
    expect(channelProblemText(t, "state", "channel_auth_failed", "telegram")).toBe("Telegram refused the bot token: check it.");
    expect(channelProblemText(t, "state", "channel_unavailable", "telegram")).toBe("Telegram cannot be reached for now: KinBot keeps trying.");
    expect(channelProblemText(t, "state", "channel_unavailable", "matrix")).toBe("The service cannot be reached for now: KinBot keeps trying.");
    expect(channelProblemText(t, "state", "something_new", "email")).toBe("The channel stopped working: check its settings.");
    for (const text of [channelProblemText(t, "state", "channel_auth_failed", "email"), channelProblemText(t, "undelivered", "channel_auth_failed", "email")]) {
      expect(text).not.toMatch(/token|platform/i);
    }
    await i18n.changeLanguage("fr");
    expect(channelProblemText(t, "state", "channel_auth_failed", "email")).toBe("Le serveur de messagerie a refusé la connexion : vérifiez l'identifiant et le mot de passe.");
    expect(channelProblemText(t, "undelivered", "channel_blocked", "telegram")).toBe("La personne a bloqué le bot, ou l'a retiré de la conversation.");
  });
});
