/** Settings → Usage → Budgets: each monthly budget with this month's spending; setting the
 * budget of a person or a Kin; removing one. */

import { Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { formatMoney } from "@/lib/money";
import type { Kin, User } from "@/lib/types";
import type { Budget } from "@/lib/usage";

/** How a budget stands: spent of limit, and a badge at the threshold or the limit. */
export function BudgetStatus({ budget, currency }: { budget: Budget; currency: string }) {
  const { t, i18n } = useTranslation();
  const money = (value: number) => formatMoney(value, currency, i18n.language);
  const percent = Math.min(100, (budget.spent / budget.monthly_limit) * 100);
  return (
    <div className="flex min-w-0 flex-1 flex-col gap-1" data-budget-state={budget.reached ? "reached" : budget.warning ? "warning" : "ok"}>
      <p className="flex flex-wrap items-center gap-2 text-sm">
        <span className="tabular-nums">{t("usage.budgets.spent", { spent: money(budget.spent), limit: money(budget.monthly_limit) })}</span>
        {budget.reached ? <Badge variant="destructive">{t("usage.budgets.reached")}</Badge> : budget.warning ? <Badge variant="warning">{t("usage.budgets.warning")}</Badge> : null}
      </p>
      <div className="h-1.5 w-full overflow-hidden rounded-full bg-muted" aria-hidden>
        <div className={budget.reached ? "h-full bg-destructive" : budget.warning ? "h-full bg-warning" : "h-full bg-primary"} style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

export function UsageBudgets() {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [budgets, setBudgets] = React.useState<Budget[]>([]);
  const [currency, setCurrency] = React.useState("USD");
  const [people, setPeople] = React.useState<User[]>([]);
  const [kins, setKins] = React.useState<Kin[]>([]);
  const [scope, setScope] = React.useState<"user" | "kin">("kin");
  const [target, setTarget] = React.useState("");
  const [limit, setLimit] = React.useState("20");
  const [warn, setWarn] = React.useState("80");
  const fail = React.useCallback((caught: unknown) => toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" }), [toast, t]);
  const load = React.useCallback(() => {
    Promise.all([api<{ currency: string; budgets: Budget[] }>("/api/usage/budgets"), api<{ users: User[] }>("/api/users"), api<{ kins: Kin[] }>("/api/kins")])
      .then(([found, users, squad]) => {
        setBudgets(found.budgets);
        setCurrency(found.currency);
        setPeople(users.users);
        setKins(squad.kins);
      })
      .catch(fail);
  }, [fail]);
  React.useEffect(load, [load]);

  const targets = scope === "user" ? people.map((user) => ({ id: user.id, name: user.pseudonym || user.first_name })) : kins.map((kin) => ({ id: kin.id, name: kin.name }));
  const chosen = targets.some((entry) => entry.id === target) ? target : (targets[0]?.id ?? "");

  async function save(event: React.FormEvent) {
    event.preventDefault();
    try {
      await api("/api/usage/budgets", { method: "PUT", body: { scope, target_id: chosen, monthly_limit: Number(limit), warn_percent: Number(warn) } });
      toast({ title: t("usage.budgets.saved"), tone: "success" });
      load();
    } catch (caught) {
      fail(caught);
    }
  }

  async function remove(budget: Budget) {
    try {
      await api(`/api/usage/budgets/${encodeURIComponent(budget.id)}`, { method: "DELETE" });
      toast({ title: t("usage.budgets.removed"), tone: "success" });
      load();
    } catch (caught) {
      fail(caught);
    }
  }

  return (
    <section className="flex flex-col gap-3" aria-label={t("usage.budgets.title")}>
      <h3 className="text-base font-semibold">{t("usage.budgets.title")}</h3>
      <p className="max-w-prose text-sm text-muted-foreground">{t("usage.budgets.hint")}</p>
      {budgets.length === 0 ? <p className="text-sm text-muted-foreground">{t("usage.budgets.none")}</p> : null}
      <ul className="flex flex-col gap-2" aria-label={t("usage.budgets.title")}>
        {budgets.map((budget) => {
          const name = budget.name ?? t("usage.deleted");
          return (
            <li key={budget.id} className="flex flex-wrap items-center gap-3 rounded-xl border border-border/70 bg-card px-4 py-3" data-budget={budget.target_id}>
              <div className="w-40 min-w-0">
                <p className="font-semibold break-all">{name}</p>
                <p className="text-xs text-muted-foreground">{budget.scope === "user" ? t("usage.budgets.person") : t("usage.budgets.kin")}</p>
              </div>
              <BudgetStatus budget={budget} currency={currency} />
              <Button variant="ghost" size="icon-sm" aria-label={t("usage.budgets.remove", { name })} onClick={() => void remove(budget)}>
                <Trash2Icon />
              </Button>
            </li>
          );
        })}
      </ul>
      <form onSubmit={(event) => void save(event)} className="grid items-end gap-3 sm:grid-cols-5">
        <Field label={t("usage.budgets.scope")} htmlFor="budget-scope">
          <NativeSelect id="budget-scope" value={scope} onChange={(event) => setScope(event.target.value as "user" | "kin")}>
            <option value="kin">{t("usage.budgets.kin")}</option>
            <option value="user">{t("usage.budgets.person")}</option>
          </NativeSelect>
        </Field>
        <Field label={t("usage.budgets.whom")} htmlFor="budget-target">
          <NativeSelect id="budget-target" value={chosen} onChange={(event) => setTarget(event.target.value)}>
            {targets.map((entry) => (
              <option key={entry.id} value={entry.id}>
                {entry.name}
              </option>
            ))}
          </NativeSelect>
        </Field>
        <Field label={t("usage.budgets.limit", { currency })} htmlFor="budget-limit">
          <Input id="budget-limit" type="number" min={0.01} step="any" value={limit} onChange={(event) => setLimit(event.target.value)} required />
        </Field>
        <Field label={t("usage.budgets.warn")} htmlFor="budget-warn">
          <Input id="budget-warn" type="number" min={1} max={100} value={warn} onChange={(event) => setWarn(event.target.value)} required />
        </Field>
        <Button type="submit" disabled={!chosen}>
          {t("usage.budgets.add")}
        </Button>
      </form>
    </section>
  );
}
