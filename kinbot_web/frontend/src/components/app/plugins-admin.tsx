/**
 * Settings › Plugins: every installed plugin by a name and a sentence a person reads (the
 * built-in ones from `pluginNames`, by their name; another plugin by its own description), a
 * switch to turn it on or off, and its settings. The plugin's name, version and hooks wait
 * under "Advanced".
 */
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Advanced } from "@/components/app/advanced";
import { PluginSettingsButton } from "@/components/app/plugin-settings";
import { Badge } from "@/components/ui/badge";
import { Switch } from "@/components/ui/switch";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";

/** A plugin as `GET /api/plugins` lists it (docs/api.md). */
export interface Plugin {
  /** Its entry point's name: the stable key the built-in plugins are worded by. */
  name: string;
  version: string | null;
  hooks: string[];
  enabled: boolean;
  builtin: boolean;
  /** Why it cannot be turned off: the plugin's own words, or `required_code` worded here. */
  required: string | null;
  required_code: string | null;
  error: string | null;
  /** Why it could not be loaded, worded by `statusCodes.plugin`. */
  error_code: string | null;
  /** What it does in its own words, by language (a third-party plugin's), or null. */
  description?: Record<string, string> | null;
  /** Whether it declares settings an administrator fills in (`PluginSettingsButton`). */
  has_settings?: boolean;
}

type Translate = (key: string, options?: Record<string, unknown>) => string;

/** The words of `language` in `words`, else English, else any. */
function inLanguage(words: Record<string, string> | null | undefined, language: string): string | null {
  if (!words) return null;
  return words[language] ?? words[language.slice(0, 2)] ?? words.en ?? Object.values(words)[0] ?? null;
}

/**
 * A plugin's name and sentence for a person: a built-in plugin's from `pluginNames.<name>`;
 * another's own description (in `language` when it has one) under its name.
 */
export function pluginWords(t: Translate, language: string, plugin: Pick<Plugin, "name" | "builtin" | "description">): { label: string; description: string | null } {
  const key = `pluginNames.${plugin.name}`;
  if (plugin.builtin && t(`${key}.label`, { defaultValue: "" }) !== "") {
    return { label: t(`${key}.label`), description: t(`${key}.description`) };
  }
  return { label: plugin.name, description: inLanguage(plugin.description, language) };
}

/** The list of plugins, each with its switch. */
export function PluginsAdmin() {
  const { t, i18n } = useTranslation();
  const { toast } = useToast();
  const [plugins, setPlugins] = React.useState<Plugin[]>([]);
  const reload = React.useCallback(() => void api<{ plugins: Plugin[] }>("/api/plugins").then(({ plugins: list }) => setPlugins(list)), []);
  React.useEffect(reload, [reload]);

  async function toggle(plugin: Plugin, label: string, enabled: boolean) {
    try {
      const { plugin: updated } = await api<{ plugin: Plugin }>(`/api/plugins/${encodeURIComponent(plugin.name)}`, { method: "PATCH", body: { enabled } });
      setPlugins((list) => list.map((other) => (other.name === updated.name ? updated : other)));
    } catch (caught) {
      toast({ title: label, description: errorText(t, caught), tone: "error" });
    }
  }

  // In the order of the names people read, not of the package names.
  const listed = plugins
    .map((plugin) => ({ plugin, ...pluginWords(t, i18n.language, plugin) }))
    .sort((a, b) => a.label.localeCompare(b.label, i18n.language));
  return (
    <ul className="flex flex-col gap-2">
      {listed.map(({ plugin, label, description }) => (
        <li key={plugin.name} className="flex items-center gap-3 rounded-xl border border-border/70 bg-card px-4 py-3" data-plugin={plugin.name}>
          <div className="min-w-0 flex-1">
            <p className="text-sm font-semibold break-words">
              {label} {plugin.builtin ? <Badge variant="outline">{t("settings.builtin")}</Badge> : null}
            </p>
            {description ? <p className="text-xs text-muted-foreground">{description}</p> : null}
            {plugin.required ? (
              <p className="text-xs text-muted-foreground">{plugin.required_code ? t(`settings.required.${plugin.required_code}`, { defaultValue: plugin.required }) : plugin.required}</p>
            ) : null}
            {plugin.error ? (
              <p className="text-xs text-destructive">{t(`statusCodes.plugin.${plugin.error_code ?? "plugin_load_failed"}`, { defaultValue: t("statusCodes.plugin.plugin_load_failed") })}</p>
            ) : null}
            <Advanced className="mt-1">
              <p className="break-words">
                {t("settings.pluginName", { name: plugin.name })}
                {plugin.version ? ` · ${t("settings.pluginVersion", { version: plugin.version })}` : ""}
              </p>
              {plugin.error ? <p className="break-words">{t("statusCodes.plugin.details", { error: plugin.error })}</p> : null}
              {plugin.hooks.length ? <p className="break-words">{t("settings.hooks", { hooks: plugin.hooks.join(", ") })}</p> : null}
            </Advanced>
          </div>
          {plugin.enabled && plugin.has_settings ? <PluginSettingsButton plugin={plugin.name} label={label} /> : null}
          <Badge variant={plugin.enabled ? "success" : "outline"}>{plugin.enabled ? t("settings.enabled") : t("settings.disabled")}</Badge>
          <Switch checked={plugin.enabled} disabled={Boolean(plugin.required)} onCheckedChange={(enabled) => void toggle(plugin, label, enabled)} aria-label={t("settings.toggle", { name: label })} />
        </li>
      ))}
    </ul>
  );
}
