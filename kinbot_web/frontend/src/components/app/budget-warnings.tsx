/** The in-app budget warning: a toast when a budget the person is warned about passes its
 * threshold or its limit (the live event `usage.budget_warning`). */

import * as React from "react";
import { useTranslation } from "react-i18next";

import { useToast } from "@/components/ui/toast";
import type { EventStream } from "@/lib/events";
import { formatMoney } from "@/lib/money";

export function BudgetWarnings({ stream }: { stream: EventStream }) {
  const { t, i18n } = useTranslation();
  const { toast } = useToast();
  React.useEffect(
    () =>
      stream.on("usage.budget_warning", ({ budget, currency }) => {
        const money = (value: number) => formatMoney(value, currency, i18n.language);
        toast({
          title: budget.reached ? t("usage.warning.reachedTitle") : t("usage.warning.title"),
          description: t("usage.warning.body", { name: budget.name ?? "", spent: money(budget.spent), limit: money(budget.monthly_limit) }),
          tone: budget.reached ? "error" : "info",
        });
      }),
    [stream, toast, t, i18n.language],
  );
  return null;
}
