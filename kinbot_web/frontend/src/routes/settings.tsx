import {
  ArchiveIcon,
  BlocksIcon,
  BotIcon,
  KeyRoundIcon,
  LockIcon,
  MessagesSquareIcon,
  PlugIcon,
  ReceiptIcon,
  SearchIcon,
  ShieldQuestionIcon,
  UsersIcon,
  WebhookIcon,
} from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Advanced } from "@/components/app/advanced";
import { PlatformApprovalRules } from "@/components/app/approval-rules";
import { BackgroundModelsAdmin } from "@/components/app/background-models-admin";
import { BackupsAdmin } from "@/components/app/backups-admin";
import { ChannelsAdmin } from "@/components/app/channels-admin";
import { KinAccessAdmin } from "@/components/app/kin-access-admin";
import { PageFrame } from "@/components/app/page-frame";
import { PluginSettingsButton } from "@/components/app/plugin-settings";
import { McpAdmin } from "@/components/app/mcp-admin";
import { UsersAdmin } from "@/components/app/users-admin";
import { VaultAdmin } from "@/components/app/vault-admin";
import { WebhooksAdmin } from "@/components/app/webhooks-admin";
import { UsageAdmin } from "@/components/app/usage-admin";
import { ProviderSetup } from "@/components/app/provider-setup";
import { Badge } from "@/components/ui/badge";
import { Switch } from "@/components/ui/switch";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { useToast } from "@/components/ui/toast";
import i18n, { setLanguage } from "@/i18n";
import { api } from "@/lib/api";
import { errorText as describeError } from "@/lib/errors";
import type { User } from "@/lib/types";

interface Plugin {
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
  /** Whether it declares settings an administrator fills in (`PluginSettingsButton`). */
  has_settings?: boolean;
}

function errorText(error: unknown): string {
  return describeError(i18n.t, error);
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
      toast({ title: plugin.name, description: errorText(caught), tone: "error" });
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
            {plugin.required ? (
              <p className="text-xs text-muted-foreground">{plugin.required_code ? t(`settings.required.${plugin.required_code}`, { defaultValue: plugin.required }) : plugin.required}</p>
            ) : null}
            {plugin.error ? (
              <>
                <p className="text-xs text-destructive">{t(`statusCodes.plugin.${plugin.error_code ?? "plugin_load_failed"}`, { defaultValue: t("statusCodes.plugin.plugin_load_failed") })}</p>
                <Advanced className="mt-1">
                  <p className="break-words">{t("statusCodes.plugin.details", { error: plugin.error })}</p>
                </Advanced>
              </>
            ) : null}
            {plugin.hooks.length ? (
              <Advanced className="mt-1">
                <p className="break-words">
                  {t("settings.hooks")}: {plugin.hooks.join(", ")}
                </p>
              </Advanced>
            ) : null}
          </div>
          {plugin.enabled && plugin.has_settings ? <PluginSettingsButton plugin={plugin.name} /> : null}
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
          <TabsTrigger value="channels">
            <MessagesSquareIcon /> {t("channels.tab")}
          </TabsTrigger>
          <TabsTrigger value="webhooks">
            <WebhookIcon /> {t("webhooks.tab")}
          </TabsTrigger>
          <TabsTrigger value="kin-access">
            <LockIcon /> {t("kinAccess.adminTab")}
          </TabsTrigger>
          <TabsTrigger value="approvals">
            <ShieldQuestionIcon /> {t("approvals.rules.tab")}
          </TabsTrigger>
          <TabsTrigger value="usage">
            <ReceiptIcon /> {t("usage.tab")}
          </TabsTrigger>
          <TabsTrigger value="backups">
            <ArchiveIcon /> {t("backups.tab")}
          </TabsTrigger>
          <TabsTrigger value="plugins">
            <BlocksIcon /> {t("settings.plugins")}
          </TabsTrigger>
        </TabsList>
        <TabsContent value="providers">
          <ProviderSetup base="/api/providers" manage />
          <BackgroundModelsAdmin />
        </TabsContent>
        <TabsContent value="search">
          <ProviderSetup base="/api/search-providers" manage />
        </TabsContent>
        <TabsContent value="mcp">
          <McpAdmin />
        </TabsContent>
        <TabsContent value="vault">
          <VaultAdmin />
        </TabsContent>
        <TabsContent value="users">
          <UsersAdmin me={me} />
        </TabsContent>
        <TabsContent value="channels">
          <ChannelsAdmin />
        </TabsContent>
        <TabsContent value="webhooks">
          <WebhooksAdmin />
        </TabsContent>
        <TabsContent value="kin-access">
          <KinAccessAdmin me={me} />
        </TabsContent>
        <TabsContent value="approvals">
          <PlatformApprovalRules />
        </TabsContent>
        <TabsContent value="usage">
          <UsageAdmin />
        </TabsContent>
        <TabsContent value="backups">
          <BackupsAdmin />
        </TabsContent>
        <TabsContent value="plugins">
          <Plugins />
        </TabsContent>
      </Tabs>
    </PageFrame>
  );
}
