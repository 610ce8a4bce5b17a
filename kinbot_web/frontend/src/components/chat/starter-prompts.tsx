import { SparklesIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { Avatar } from "@/components/ui/avatar";
import type { Kin } from "@/lib/types";

/** The longest topic put into a prompt; a longer expertise is cut at a word. */
const TOPIC_LENGTH = 60;

/**
 * What a Kin is good at, as a few words to put in a sentence: the first phrase of its
 * expertise (else of its role), without the final full stop, its first letter lowered unless
 * the word looks like a name or an acronym ("Vegetarian cooking." → "vegetarian cooking").
 * Empty when the Kin says nothing of it.
 */
export function starterTopic(kin: Pick<Kin, "expertise" | "role">): string {
  for (const source of [kin.expertise, kin.role]) {
    let phrase = (source ?? "").split(/[.!?;:\n]/)[0].trim();
    if (!phrase) continue;
    if (phrase.length > TOPIC_LENGTH) {
      const cut = phrase.slice(0, TOPIC_LENGTH);
      const comma = cut.lastIndexOf(",");
      phrase = comma > 10 ? cut.slice(0, comma) : cut.slice(0, Math.max(cut.lastIndexOf(" "), 10)).trim();
    }
    const [first, second] = [...phrase];
    const plainWord = second !== undefined && second === second.toLowerCase() && second !== second.toUpperCase();
    return plainWord ? first.toLowerCase() + phrase.slice(first.length) : phrase;
  }
  return "";
}

/** Three first messages from the Kin's expertise, in the user's language. */
export function starterPrompts(t: (key: string, options?: Record<string, unknown>) => string, kin: Pick<Kin, "expertise" | "role">): string[] {
  const topic = starterTopic(kin);
  return [0, 1, 2].map((index) => (topic ? t(`firstRun.starter.withTopic.${index}`, { topic }) : t(`firstRun.starter.generic.${index}`)));
}

/** An empty chat's welcome: the Kin greets, and offers three first messages (a click sends one). */
export function StarterPrompts({ kin, onPick }: { kin: Kin; onPick: (text: string) => void }) {
  const { t } = useTranslation();
  return (
    <section className="flex flex-col items-center gap-4 py-10 text-center" aria-labelledby="starter-greeting" data-starter-prompts>
      <Avatar name={kin.name} src={kin.avatar_url} kin={kin} size="lg" />
      <div className="flex flex-col gap-1">
        <h2 id="starter-greeting" className="text-lg font-bold">
          {t("firstRun.starter.greeting", { name: kin.name })}
        </h2>
        {kin.role ? <p className="text-sm text-muted-foreground">{kin.role}</p> : null}
        <p className="text-sm text-muted-foreground">{t("firstRun.starter.intro")}</p>
      </div>
      <ul className="flex w-full max-w-xl flex-col gap-2" aria-label={t("firstRun.starter.prompts")}>
        {starterPrompts(t, kin).map((prompt) => (
          <li key={prompt}>
            <button
              type="button"
              onClick={() => onPick(prompt)}
              className="flex w-full items-center gap-2.5 rounded-2xl border border-border/70 bg-card px-4 py-3 text-left text-sm shadow-soft transition-colors hover:bg-accent/70 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring"
            >
              <SparklesIcon className="size-4 shrink-0 text-primary" aria-hidden />
              <span>{prompt}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
