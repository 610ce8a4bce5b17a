/** A usage summary shown: totals, cost by day and by Kin as charts, tables by person, Kin
 * and model (a model without a price says so). Used by Settings → Usage and My account. */

import * as React from "react";
import { useTranslation } from "react-i18next";

import { UsageBars } from "@/components/app/usage-chart";
import { Badge } from "@/components/ui/badge";
import { NativeSelect } from "@/components/ui/native-select";
import { formatDate, formatNumber } from "@/lib/format";
import { formatMoney } from "@/lib/money";
import { formatMoneyTicks, minorUnit } from "@/lib/money-axis";
import { PERIODS, type PeriodName, type UsageSummary, type UsageTotals } from "@/lib/usage";

/** The period picker of the usage pages. */
export function PeriodPicker({ value, onChange, id }: { value: PeriodName; onChange: (value: PeriodName) => void; id: string }) {
  const { t } = useTranslation();
  return (
    <label htmlFor={id} className="flex items-center gap-2 text-sm">
      <span className="font-medium">{t("usage.period")}</span>
      <NativeSelect id={id} value={value} onChange={(event) => onChange(event.target.value as PeriodName)} className="w-48">
        {PERIODS.map((name) => (
          <option key={name} value={name}>
            {t(`usage.periods.${name}`)}
          </option>
        ))}
      </NativeSelect>
    </label>
  );
}

interface Row {
  key: string;
  label: string;
  note?: React.ReactNode;
  totals: UsageTotals;
}

function UsageTable({ title, rows, money }: { title: string; rows: Row[]; money: (value: number) => string }) {
  const { t, i18n } = useTranslation();
  if (rows.length === 0) return null;
  const number = (value: number) => formatNumber(value, i18n.language);
  // On a phone the tokens go under the row's name: four columns of large figures do not fit.
  const tokens = (row: Row, className: string) => (
    <span className={className}>
      {t("usage.tokensInOut", { input: number(row.totals.input_tokens), output: number(row.totals.output_tokens) })}
      {row.totals.units > 0 ? <span className="block text-xs text-muted-foreground">{t("usage.units", { count: row.totals.units })}</span> : null}
    </span>
  );
  return (
    <section className="flex flex-col gap-2" aria-label={title}>
      <h3 className="text-sm font-semibold">{title}</h3>
      <div className="overflow-x-auto rounded-xl border border-border/70">
        <table className="w-full text-sm">
          <thead className="bg-muted/40 text-left text-xs text-muted-foreground">
            <tr>
              <th className="px-3 py-2 font-medium">{title}</th>
              <th className="px-3 py-2 text-right font-medium">{t("usage.calls")}</th>
              <th className="hidden px-3 py-2 text-right font-medium sm:table-cell">{t("usage.tokens")}</th>
              <th className="px-3 py-2 text-right font-medium">{t("usage.total")}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key} className="border-t border-border/60" data-usage-row={row.key}>
                <td className="min-w-28 px-3 py-2">
                  <span className="break-words">{row.label}</span> {row.note}
                  {tokens(row, "block text-xs text-muted-foreground tabular-nums sm:hidden")}
                </td>
                <td className="px-3 py-2 text-right tabular-nums">{number(row.totals.calls)}</td>
                <td className="hidden px-3 py-2 text-right tabular-nums sm:table-cell">{tokens(row, "")}</td>
                <td className="whitespace-nowrap px-3 py-2 text-right font-medium tabular-nums">{money(row.totals.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** Totals, charts and tables of `summary`; `people` adds the table by person. */
export function UsageSummaryView({ summary, people = false }: { summary: UsageSummary; people?: boolean }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const money = React.useCallback((value: number) => formatMoney(value, summary.currency, language), [summary.currency, language]);
  const moneyTicks = React.useCallback((ticks: number[]) => formatMoneyTicks(ticks, summary.currency, language), [summary.currency, language]);
  const floor = minorUnit(summary.currency);
  const days = React.useMemo(() => summary.by_day.map((entry) => formatDate(`${entry.day}T12:00:00Z`, language).replace(/,? \d{4}$/, "")), [summary.by_day, language]);
  const dayCosts = React.useMemo(() => summary.by_day.map((entry) => entry.cost), [summary.by_day]);
  const kinNames = React.useMemo(() => summary.by_kin.map((entry) => (entry.kin_id === null ? t("usage.noKin") : (entry.name ?? t("usage.deleted")))), [summary.by_kin, t]);
  const kinCosts = React.useMemo(() => summary.by_kin.map((entry) => entry.cost), [summary.by_kin]);
  const totals = summary.totals;
  if (totals.calls === 0) return <p className="text-sm text-muted-foreground">{t("usage.empty")}</p>;
  const noPrice = <Badge variant="warning">{t("usage.noPrice")}</Badge>;
  return (
    <div className="flex flex-col gap-6">
      <dl className="grid grid-cols-1 gap-3 sm:grid-cols-3">
        <div className="rounded-xl border border-border/70 bg-card px-4 py-3">
          <dt className="text-xs text-muted-foreground">{t("usage.total")}</dt>
          <dd className="text-2xl font-semibold tabular-nums" data-usage-total>
            {money(totals.cost)}
          </dd>
        </div>
        <div className="rounded-xl border border-border/70 bg-card px-4 py-3">
          <dt className="text-xs text-muted-foreground">{t("usage.calls")}</dt>
          <dd className="text-2xl font-semibold tabular-nums">{formatNumber(totals.calls, language)}</dd>
        </div>
        <div className="rounded-xl border border-border/70 bg-card px-4 py-3">
          <dt className="text-xs text-muted-foreground">{t("usage.tokens")}</dt>
          <dd className="text-sm font-medium tabular-nums">{t("usage.tokensInOut", { input: formatNumber(totals.input_tokens, language), output: formatNumber(totals.output_tokens, language) })}</dd>
        </div>
      </dl>
      {totals.unpriced_calls > 0 ? <p className="text-sm text-muted-foreground">{t(people ? "usage.noPriceHint" : "usage.noPriceMine", { count: totals.unpriced_calls })}</p> : null}
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <UsageBars title={t("usage.costByDay")} labels={days} values={dayCosts} format={money} ticks={moneyTicks} floor={floor} />
        <UsageBars title={t("usage.costByKin")} labels={kinNames} values={kinCosts} format={money} ticks={moneyTicks} floor={floor} />
      </div>
      {people ? (
        <UsageTable
          title={t("usage.byUser")}
          money={money}
          rows={summary.by_user.map((entry) => ({ key: entry.user_id ?? "-", label: entry.user_id === null ? t("usage.nobody") : (entry.name ?? t("usage.deleted")), totals: entry }))}
        />
      ) : null}
      <UsageTable title={t("usage.byKin")} money={money} rows={summary.by_kin.map((entry, index) => ({ key: entry.kin_id ?? "-", label: kinNames[index] ?? "", totals: entry }))} />
      <UsageTable
        title={t("usage.byModel")}
        money={money}
        rows={summary.by_model.map((entry) => ({ key: `${entry.provider}/${entry.model}/${entry.priced}`, label: `${entry.model} · ${entry.provider}`, note: entry.priced ? null : noPrice, totals: entry }))}
      />
    </div>
  );
}
