/**
 * The people of the family as the chat shows them: each one's photo (from `GET /api/members`,
 * read once a page and again when someone unknown speaks) and each one's own bubble tint.
 */
import * as React from "react";

import { api } from "./api";
import { hashOf } from "./kin-avatar";

/** A member as `GET /api/members` gives it: nothing beyond a name and a photo. */
export interface Member {
  id: string;
  display_name: string;
  avatar_url: string | null;
}

/** A bubble tint: background and text, in the light and in the dark theme (OKLCH). */
export interface Tint {
  name: string;
  light: { background: string; text: string };
  dark: { background: string; text: string };
}

function tint(name: string, hue: number): Tint {
  return {
    name,
    light: { background: `oklch(0.93 0.035 ${hue})`, text: `oklch(0.3 0.05 ${hue})` },
    dark: { background: `oklch(0.34 0.055 ${hue})`, text: `oklch(0.95 0.015 ${hue})` },
  };
}

/**
 * Warm, soft tints for other people's bubbles, kept apart from the peach of one's own bubble
 * (hue 52). Each text/background pair reaches 4.5:1 in both themes (people.test.ts checks it).
 */
export const PERSON_TINTS: Tint[] = [
  tint("rose", 5),
  tint("honey", 88),
  tint("sage", 135),
  tint("lagoon", 200),
  tint("lavender", 290),
  tint("plum", 335),
];

/** The tint of a person's bubbles: always the same one for the same user id. */
export function personTintOf(userId: string): Tint {
  return PERSON_TINTS[hashOf(userId) % PERSON_TINTS.length];
}

/**
 * The inline colours of a person's tint. `light-dark()` follows the `color-scheme` of the
 * element's theme (index.css sets it on `:root`/`.light` and `.dark`), so a tinted bubble
 * inside a `.light` or `.dark` subtree takes that subtree's variant, like the tokens do.
 */
export function tintStyle(userId: string): React.CSSProperties {
  const { light, dark } = personTintOf(userId);
  return {
    backgroundColor: `light-dark(${light.background}, ${dark.background})`,
    color: `light-dark(${light.text}, ${dark.text})`,
  };
}

let members: ReadonlyMap<string, Member> = new Map();
let loading: Promise<void> | null = null;
/** Ids already looked for once: someone who is not a member is not asked about again. */
const sought = new Set<string>();
const listeners = new Set<() => void>();

function load(): Promise<void> {
  loading ??= api<{ members: Member[] }>("/api/members")
    .then(({ members: list }) => {
      members = new Map(list.map((member) => [member.id, member]));
      listeners.forEach((listener) => listener());
    })
    .catch(() => undefined) // no photo is shown: the initials stay, nothing else breaks
    .finally(() => {
      loading = null;
    });
  return loading;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A member of the family by user id (`undefined` while unknown). */
export function usePerson(userId: string | null | undefined): Member | undefined {
  const known = React.useSyncExternalStore(subscribe, () => members);
  React.useEffect(() => {
    if (!userId || known.has(userId) || sought.has(userId)) return;
    sought.add(userId);
    void load();
  }, [userId, known]);
  return userId ? known.get(userId) : undefined;
}
