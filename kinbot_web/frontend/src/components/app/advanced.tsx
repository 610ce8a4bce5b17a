import { ChevronRightIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { cn } from "@/lib/utils";

/**
 * Details for the curious (hook lists, token counts, thresholds…), closed until asked for: a
 * native disclosure, so its "Advanced" summary is a keyboard stop that Enter or Space opens.
 */
export function Advanced({ children, className, label }: { children: React.ReactNode; className?: string; label?: string }) {
  const { t } = useTranslation();
  return (
    <details className={cn("group text-xs text-muted-foreground", className)} data-advanced>
      <summary className="inline-flex cursor-pointer list-none items-center gap-1 rounded-md font-semibold select-none hover:text-foreground focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring [&::-webkit-details-marker]:hidden">
        <ChevronRightIcon className="size-3.5 transition-transform group-open:rotate-90" aria-hidden />
        {label ?? t("firstRun.advanced")}
      </summary>
      <div className="mt-1.5 flex flex-col gap-1">{children}</div>
    </details>
  );
}
