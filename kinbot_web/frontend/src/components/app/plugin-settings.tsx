/**
 * A plugin's settings in Settings → Plugins: a button that opens the form its model describes
 * (`GET /api/plugins/{name}/settings`), saved with `PUT` (docs/api.md). Secrets show as set or
 * not set; a save's invalid fields show on the fields.
 */
import { SlidersHorizontalIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { type FieldProblem, type FormSchema, type FormValues, SchemaForm, fieldProblems, localized } from "@/components/app/schema-form";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";

/** What `GET` and `PUT /api/plugins/{name}/settings` answer. */
export interface PluginSettingsView {
  plugin: string;
  schema: FormSchema;
  values: FormValues;
  saved: boolean;
}

/** The "Settings" button of a plugin that declares settings, and its dialog; `label` is the
 * plugin as the list names it (its name when not given). */
export function PluginSettingsButton({ plugin, label = plugin }: { plugin: string; label?: string }) {
  const { t, i18n } = useTranslation();
  const { toast } = useToast();
  const [open, setOpen] = React.useState(false);
  const [view, setView] = React.useState<PluginSettingsView | null>(null);
  const [draft, setDraft] = React.useState<FormValues>({});
  const [problems, setProblems] = React.useState<FieldProblem[]>([]);
  const [error, setError] = React.useState<string | null>(null);
  const [saving, setSaving] = React.useState(false);
  const url = `/api/plugins/${encodeURIComponent(plugin)}/settings`;

  function show(next: PluginSettingsView) {
    setView(next);
    setDraft(next.values);
    setProblems([]);
    setError(null);
  }

  async function openDialog() {
    setView(null);
    setError(null);
    setOpen(true);
    try {
      show(await api<PluginSettingsView>(url));
    } catch (caught) {
      setError(t("pluginSettings.loadError", { error: errorText(t, caught) }));
    }
  }

  async function save(event: React.FormEvent) {
    event.preventDefault();
    setSaving(true);
    try {
      show(await api<PluginSettingsView>(url, { method: "PUT", body: { values: draft } }));
      setOpen(false);
      toast({ title: t("pluginSettings.saved"), tone: "success" });
    } catch (caught) {
      setProblems(fieldProblems(caught));
      setError(errorText(t, caught));
    } finally {
      setSaving(false);
    }
  }

  const title = (view && localized(view.schema, "title", i18n.language)) || t("pluginSettings.title", { name: label });
  return (
    <>
      <Button type="button" variant="outline" size="sm" onClick={() => void openDialog()} aria-label={t("pluginSettings.openFor", { name: label })}>
        <SlidersHorizontalIcon aria-hidden /> {t("pluginSettings.open")}
      </Button>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogContent closeLabel={t("common.close")}>
          <form className="flex flex-col gap-4" onSubmit={(event) => void save(event)} noValidate>
            <DialogHeader>
              <DialogTitle>{title}</DialogTitle>
              <DialogDescription>{(view && localized(view.schema, "description", i18n.language)) || t("pluginSettings.description")}</DialogDescription>
            </DialogHeader>
            {view ? <SchemaForm schema={view.schema} value={draft} onChange={setDraft} problems={problems} disabled={saving} /> : null}
            {error ? (
              <p role="alert" className="text-sm font-medium text-destructive">
                {error}
              </p>
            ) : null}
            <DialogFooter>
              <DialogClose asChild>
                <Button type="button" variant="ghost">
                  {t("common.cancel")}
                </Button>
              </DialogClose>
              <Button type="submit" disabled={!view || saving}>
                {saving ? t("pluginSettings.saving") : t("common.save")}
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
    </>
  );
}
