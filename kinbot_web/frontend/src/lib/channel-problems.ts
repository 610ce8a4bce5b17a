/**
 * A messaging channel's trouble in the reader's words: the error's code (from the server,
 * `kinbot_core.channels.errors`) worded for the channel's type, so that an e-mail channel
 * speaks of the mail server and its sign-in, Telegram of Telegram and its bot token, and a
 * third-party plugin's type of "the service". `state`: a connection's state in Settings →
 * Channels; `undelivered`: why a Kin's reply did not reach the person (`meta.undelivered`).
 */
import type { TFunction } from "i18next";

/** The channel types with wording of their own; any other is worded as `other`. */
const KINDS = new Set(["telegram", "email"]);

/** The sentence for `code` on a channel of type `kind`; unknown codes fall back on a
 * general sentence (`channel_error`). */
export function channelProblemText(t: TFunction, where: "state" | "undelivered", code: string | null | undefined, kind: string): string {
  const type = KINDS.has(kind) ? kind : "other";
  const base = `channelProblems.${where}`;
  const keys = code ? [`${base}.${code}.${type}`, `${base}.${code}.other`] : [];
  return t([...keys, `${base}.channel_error.other`]);
}
