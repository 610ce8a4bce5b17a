/** Settings → Usage → Prices: the price table, filtered by model; adding, changing and
 * removing a price. */

import { Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Field, Input } from "@/components/ui/input";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { formatMoney } from "@/lib/money";
import type { Price } from "@/lib/usage";

const EMPTY = { model: "", input: "0", output: "0", unit: "0" };

export function UsagePrices() {
  const { t, i18n } = useTranslation();
  const { toast } = useToast();
  const [prices, setPrices] = React.useState<Price[]>([]);
  const [currency, setCurrency] = React.useState("USD");
  const [filter, setFilter] = React.useState("");
  const [draft, setDraft] = React.useState(EMPTY);
  const fail = React.useCallback((caught: unknown) => toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" }), [toast, t]);
  const load = React.useCallback(() => {
    api<{ currency: string; prices: Price[] }>("/api/usage/prices")
      .then((found) => {
        setPrices(found.prices);
        setCurrency(found.currency);
      })
      .catch(fail);
  }, [fail]);
  React.useEffect(load, [load]);

  async function save(event: React.FormEvent) {
    event.preventDefault();
    const model = draft.model.trim().toLowerCase();
    try {
      await api(`/api/usage/prices/${encodeURIComponent(model)}`, {
        method: "PUT",
        body: { input_per_million: Number(draft.input), output_per_million: Number(draft.output), per_unit: Number(draft.unit) },
      });
      toast({ title: t("usage.prices.saved", { model }), tone: "success" });
      setDraft(EMPTY);
      load();
    } catch (caught) {
      fail(caught);
    }
  }

  async function remove(model: string) {
    try {
      await api(`/api/usage/prices/${encodeURIComponent(model)}`, { method: "DELETE" });
      toast({ title: t("usage.prices.removed", { model }), tone: "success" });
      load();
    } catch (caught) {
      fail(caught);
    }
  }

  const money = (value: number) => formatMoney(value, currency, i18n.language);
  const shown = prices.filter((price) => price.model.includes(filter.trim().toLowerCase()));
  const edit = (price: Price) => setDraft({ model: price.model, input: String(price.input_per_million), output: String(price.output_per_million), unit: String(price.per_unit) });
  return (
    <section className="flex flex-col gap-3" aria-label={t("usage.prices.title")}>
      <h3 className="text-base font-semibold">{t("usage.prices.title")}</h3>
      <p className="max-w-prose text-sm text-muted-foreground">{t("usage.prices.hint", { currency })}</p>
      <form onSubmit={(event) => void save(event)} className="grid items-end gap-3 sm:grid-cols-5">
        <Field label={t("usage.prices.model")} htmlFor="price-model">
          <Input id="price-model" value={draft.model} onChange={(event) => setDraft({ ...draft, model: event.target.value })} required maxLength={120} />
        </Field>
        <Field label={t("usage.prices.input")} htmlFor="price-input">
          <Input id="price-input" type="number" min={0} step="any" value={draft.input} onChange={(event) => setDraft({ ...draft, input: event.target.value })} />
        </Field>
        <Field label={t("usage.prices.output")} htmlFor="price-output">
          <Input id="price-output" type="number" min={0} step="any" value={draft.output} onChange={(event) => setDraft({ ...draft, output: event.target.value })} />
        </Field>
        <Field label={t("usage.prices.unit")} htmlFor="price-unit">
          <Input id="price-unit" type="number" min={0} step="any" value={draft.unit} onChange={(event) => setDraft({ ...draft, unit: event.target.value })} />
        </Field>
        <Button type="submit">{t("usage.prices.save")}</Button>
      </form>
      <Field label={t("usage.prices.filter")} htmlFor="price-filter">
        <Input id="price-filter" type="search" value={filter} onChange={(event) => setFilter(event.target.value)} className="sm:max-w-xs" />
      </Field>
      {shown.length === 0 ? <p className="text-sm text-muted-foreground">{t("usage.prices.none")}</p> : null}
      <ul className="grid grid-cols-1 gap-1 sm:grid-cols-2" aria-label={t("usage.prices.title")}>
        {shown.map((price) => (
          <li key={price.model} className="flex items-center gap-2 rounded-lg border border-border/60 px-3 py-1.5 text-sm" data-price={price.model}>
            <button type="button" className="min-w-0 flex-1 text-left" onClick={() => edit(price)}>
              <span className="block font-medium break-all">{price.model}</span>
              <span className="block text-xs text-muted-foreground tabular-nums">
                {price.per_unit > 0 || (price.input_per_million === 0 && price.output_per_million === 0) ? money(price.per_unit) : `${money(price.input_per_million)} · ${money(price.output_per_million)}`}
              </span>
            </button>
            <Button variant="ghost" size="icon-sm" aria-label={t("usage.prices.remove", { model: price.model })} onClick={() => void remove(price.model)}>
              <Trash2Icon />
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}
