import { BlocksIcon, BotIcon, EyeOffIcon, KeyRoundIcon, PlugIcon, PlusIcon, SearchIcon, Trash2Icon, UsersIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { PageFrame } from "@/components/app/page-frame";
import { McpAdmin } from "@/components/app/mcp-admin";
import { UsersAdmin } from "@/components/app/users-admin";
import { ProviderSetup } from "@/components/app/provider-setup";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { Switch } from "@/components/ui/switch";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { useToast } from "@/components/ui/toast";
import { setLanguage } from "@/i18n";
import { api, ApiError } from "@/lib/api";
import type { User } from "@/lib/types";

interface Secret {
  id: string;
  key: string;
  description: string | null;
  value: string;
  placeholder: string;
}

interface Plugin {
  name: string;
  version: string | null;
  hooks: string[];
  enabled: boolean;
  builtin: boolean;
  required: string | null;
  error: string | null;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function Vault() {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [secrets, setSecrets] = React.useState<Secret[]>([]);
  const [error, setError] = React.useState<string | null>(null);
  const form = React.useRef<HTMLFormElement>(null);
  const reload = React.useCallback(() => void api<{ secrets: Secret[] }>("/api/vault").then(({ secrets: list }) => setSecrets(list)), []);
  React.useEffect(reload, [reload]);

  async function add(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setError(null);
    try {
      await api("/api/vault", { body: { key: String(data.get("key")).trim(), value: String(data.get("value")), description: String(data.get("description") ?? "") } });
      form.current?.reset(); // the value leaves the page as soon as it is saved
      reload();
      toast({ title: t("account.saved"), tone: "success" });
    } catch (caught) {
      setError(errorText(caught));
    }
  }

  async function remove(key: string) {
    await api(`/api/vault/${encodeURIComponent(key)}`, { method: "DELETE" }).catch((caught) => setError(errorText(caught)));
    reload();
  }

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <ul className="flex flex-col gap-2" aria-label={t("settings.vault")}>
        {secrets.length === 0 ? <li className="text-sm text-muted-foreground">{t("settings.noSecrets")}</li> : null}
        {secrets.map((secret) => (
          <li key={secret.id} className="flex items-center gap-3 rounded-xl bg-muted px-3 py-2" data-secret={secret.key}>
            <KeyRoundIcon className="size-4 shrink-0 text-muted-foreground" aria-hidden />
            <div className="min-w-0 flex-1">
              <code className="text-sm font-semibold">{secret.key}</code>
              {secret.description ? <p className="truncate text-xs text-muted-foreground">{secret.description}</p> : null}
            </div>
            <span className="inline-flex items-center gap-1 text-xs text-muted-foreground">
              <EyeOffIcon className="size-3.5" aria-hidden /> <span aria-hidden>{secret.value}</span>
              <span className="sr-only">{t("settings.masked")}</span>
            </span>
            <Button variant="ghost" size="icon-sm" aria-label={`${t("common.delete")} ${secret.key}`} onClick={() => void remove(secret.key)}>
              <Trash2Icon />
            </Button>
          </li>
        ))}
      </ul>
      <Card className="shadow-none">
        <CardHeader className="pb-2">
          <CardTitle className="text-base">{t("settings.addSecret")}</CardTitle>
        </CardHeader>
        <CardContent>
          <form ref={form} className="flex flex-col gap-3" onSubmit={(event) => void add(event)}>
            <Field label={t("settings.key")} htmlFor="secret-key" hint={t("settings.keyHint")}>
              <Input id="secret-key" name="key" required pattern="[A-Z][A-Z0-9_]{0,63}" autoComplete="off" />
            </Field>
            <Field label={t("settings.value")} htmlFor="secret-value" hint={t("settings.valueHint")}>
              <Input id="secret-value" name="value" type="password" required minLength={4} autoComplete="off" />
            </Field>
            <Field label={t("settings.description")} htmlFor="secret-description">
              <Input id="secret-description" name="description" autoComplete="off" />
            </Field>
            {error ? (
              <p className="text-sm font-medium text-destructive" role="alert">
                {error}
              </p>
            ) : null}
            <Button type="submit" className="self-start">
              <PlusIcon /> {t("common.add")}
            </Button>
          </form>
        </CardContent>
      </Card>
    </div>
  );
}

function Plugins() {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [plugins, setPlugins] = React.useState<Plugin[]>([]);
  const reload = React.useCallback(() => void api<{ plugins: Plugin[] }>("/api/plugins").then(({ plugins: list }) => setPlugins(list)), []);
  React.useEffect(reload, [reload]);

  async function toggle(plugin: Plugin, enabled: boolean) {
    try {
      const { plugin: updated } = await api<{ plugin: Plugin }>(`/api/plugins/${encodeURIComponent(plugin.name)}`, { method: "PATCH", body: { enabled } });
      setPlugins((list) => list.map((other) => (other.name === updated.name ? updated : other)));
    } catch (caught) {
      toast({ title: plugin.name, description: caught instanceof ApiError ? caught.message : errorText(caught), tone: "error" });
    }
  }

  return (
    <ul className="flex flex-col gap-2">
      {plugins.map((plugin) => (
        <li key={plugin.name} className="flex items-center gap-3 rounded-xl border border-border/70 bg-card px-4 py-3" data-plugin={plugin.name}>
          <div className="min-w-0 flex-1">
            <p className="text-sm font-semibold">
              {plugin.name} <span className="font-normal text-muted-foreground">{plugin.version ?? ""}</span>{" "}
              {plugin.builtin ? <Badge variant="outline">{t("settings.builtin")}</Badge> : null}
            </p>
            <p className="text-xs break-words text-muted-foreground">
              <span className="sr-only">{t("settings.hooks")}: </span>
              {plugin.hooks.join(", ")}
            </p>
            {plugin.required ? <p className="text-xs text-muted-foreground">{plugin.required}</p> : null}
            {plugin.error ? <p className="text-xs text-destructive">{plugin.error}</p> : null}
          </div>
          <Badge variant={plugin.enabled ? "success" : "outline"}>{plugin.enabled ? t("settings.enabled") : t("settings.disabled")}</Badge>
          <Switch checked={plugin.enabled} disabled={Boolean(plugin.required)} onCheckedChange={(enabled) => void toggle(plugin, enabled)} aria-label={t("settings.toggle", { name: plugin.name })} />
        </li>
      ))}
    </ul>
  );
}

/** `/settings`: the administrators' settings (providers, vault, plugins). */
export default function SettingsPage() {
  const { t } = useTranslation();
  const [me, setMe] = React.useState<User | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  React.useEffect(() => {
    api<{ user: User }>("/api/me")
      .then(({ user }) => {
        setLanguage(user.language); // opened directly (a reload, a link): the user's language
        setMe(user);
      })
      .catch((caught) => setError(errorText(caught)));
  }, []);
  if (error) return <PageFrame title={t("settings.title")}>{t("settings.loadError", { error })}</PageFrame>;
  if (!me) return null;
  if (me.role !== "admin") return <PageFrame title={t("settings.title")}>{t("settings.adminOnly")}</PageFrame>;
  return (
    <PageFrame title={t("settings.title")}>
      <Tabs defaultValue="providers">
        <TabsList className="flex-wrap">
          <TabsTrigger value="providers">
            <BotIcon /> {t("settings.providers")}
          </TabsTrigger>
          <TabsTrigger value="search">
            <SearchIcon /> {t("settings.search")}
          </TabsTrigger>
          <TabsTrigger value="mcp">
            <PlugIcon /> {t("settings.mcp")}
          </TabsTrigger>
          <TabsTrigger value="vault">
            <KeyRoundIcon /> {t("settings.vault")}
          </TabsTrigger>
          <TabsTrigger value="users">
            <UsersIcon /> {t("settings.users")}
          </TabsTrigger>
          <TabsTrigger value="plugins">
            <BlocksIcon /> {t("settings.plugins")}
          </TabsTrigger>
        </TabsList>
        <TabsContent value="providers">
          <ProviderSetup base="/api/providers" manage />
        </TabsContent>
        <TabsContent value="search">
          <ProviderSetup base="/api/search-providers" manage />
        </TabsContent>
        <TabsContent value="mcp">
          <McpAdmin />
        </TabsContent>
        <TabsContent value="vault">
          <Vault />
        </TabsContent>
        <TabsContent value="users">
          <UsersAdmin me={me} />
        </TabsContent>
        <TabsContent value="plugins">
          <Plugins />
        </TabsContent>
      </Tabs>
    </PageFrame>
  );
}
