import { CheckIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { cn } from "@/lib/utils";

/** The onboarding's progress: numbered soft steps, the current one highlighted. */
export function Steps({ current, total = 3 }: { current: number; total?: number }) {
  const { t } = useTranslation();
  return (
    <ol className="flex items-center gap-2" aria-label={t("onboarding.step", { current: current + 1, total })}>
      {Array.from({ length: total }, (_, index) => (
        <li key={index} className="flex items-center gap-2" aria-current={index === current ? "step" : undefined}>
          <span
            className={cn(
              "flex size-8 items-center justify-center rounded-full text-sm font-bold transition-colors",
              index < current && "bg-success/20 text-success",
              index === current && "bg-primary text-primary-foreground shadow-soft",
              index > current && "bg-muted text-muted-foreground",
            )}
          >
            {index < current ? <CheckIcon className="size-4" aria-hidden /> : index + 1}
          </span>
          {index < total - 1 ? <span className="h-0.5 w-10 rounded-full bg-border" aria-hidden /> : null}
        </li>
      ))}
    </ol>
  );
}
