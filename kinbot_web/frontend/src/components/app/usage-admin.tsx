/** Settings → Usage: everyone's usage over a period (charts by day and Kin, tables by
 * person, Kin and model), the monthly budgets and the price table. */

import * as React from "react";
import { useTranslation } from "react-i18next";

import { UsageBudgets } from "@/components/app/usage-budgets";
import { UsagePrices } from "@/components/app/usage-prices";
import { PeriodPicker, UsageSummaryView } from "@/components/app/usage-summary";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { periodQuery, type PeriodName, type UsageSummary } from "@/lib/usage";

/** A summary of `path` for the chosen period, reloaded when the period changes. */
export function useUsageSummary(path: string, period: PeriodName): { summary: UsageSummary | null; error: string | null } {
  const { t } = useTranslation();
  const [summary, setSummary] = React.useState<UsageSummary | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  React.useEffect(() => {
    let live = true;
    api<UsageSummary>(`${path}?${periodQuery(period)}`)
      .then((found) => live && (setSummary(found), setError(null)))
      .catch((caught: unknown) => live && setError(errorText(t, caught)));
    return () => {
      live = false;
    };
  }, [path, period, t]);
  return { summary, error };
}

export function UsageAdmin() {
  const { t } = useTranslation();
  const [period, setPeriod] = React.useState<PeriodName>("thisMonth");
  const { summary, error } = useUsageSummary("/api/usage", period);
  return (
    <div className="flex flex-col gap-8" data-usage-admin>
      <div className="flex flex-col gap-3">
        <p className="max-w-prose text-sm text-muted-foreground">{t("usage.intro")}</p>
        <PeriodPicker id="usage-period" value={period} onChange={setPeriod} />
        {error ? <p className="text-sm text-destructive">{t("usage.loadError")} {error}</p> : summary ? <UsageSummaryView summary={summary} people /> : <p className="text-sm text-muted-foreground">{t("usage.loading")}</p>}
      </div>
      <UsageBudgets />
      <UsagePrices />
    </div>
  );
}
