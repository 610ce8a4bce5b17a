/** My account → My usage: what the person's own messages cost over a period, and their
 * monthly budget. */

import * as React from "react";
import { useTranslation } from "react-i18next";

import { useUsageSummary } from "@/components/app/usage-admin";
import { BudgetStatus } from "@/components/app/usage-budgets";
import { PeriodPicker, UsageSummaryView } from "@/components/app/usage-summary";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { PeriodName } from "@/lib/usage";

export function MyUsage() {
  const { t } = useTranslation();
  const [period, setPeriod] = React.useState<PeriodName>("thisMonth");
  const { summary, error } = useUsageSummary("/api/me/usage", period);
  return (
    <Card className="lg:col-span-2" data-my-usage>
      <CardHeader>
        <CardTitle>{t("usage.mineTitle")}</CardTitle>
        <CardDescription>{t("usage.mineIntro")}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        <PeriodPicker id="my-usage-period" value={period} onChange={setPeriod} />
        {summary ? (
          <div className="flex flex-col gap-1">
            <p className="text-sm font-medium">{t("usage.budgets.mine")}</p>
            {summary.budget ? <BudgetStatus budget={summary.budget} currency={summary.currency} /> : <p className="text-sm text-muted-foreground">{t("usage.budgets.mineNone")}</p>}
          </div>
        ) : null}
        {error ? <p className="text-sm text-destructive">{t("usage.loadError")} {error}</p> : summary ? <UsageSummaryView summary={summary} /> : <p className="text-sm text-muted-foreground">{t("usage.loading")}</p>}
      </CardContent>
    </Card>
  );
}
