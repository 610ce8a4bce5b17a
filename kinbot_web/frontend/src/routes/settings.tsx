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

import { PlatformApprovalRules } from "@/components/app/approval-rules";
import { BackgroundModelsAdmin } from "@/components/app/background-models-admin";
import { BackupsAdmin } from "@/components/app/backups-admin";
import { ChannelsAdmin } from "@/components/app/channels-admin";
import { KinAccessAdmin } from "@/components/app/kin-access-admin";
import { PageFrame } from "@/components/app/page-frame";
import { PluginsAdmin } from "@/components/app/plugins-admin";
import { McpAdmin } from "@/components/app/mcp-admin";
import { UsersAdmin } from "@/components/app/users-admin";
import { VaultAdmin } from "@/components/app/vault-admin";
import { WebhooksAdmin } from "@/components/app/webhooks-admin";
import { UsageAdmin } from "@/components/app/usage-admin";
import { ProviderSetup } from "@/components/app/provider-setup";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import i18n, { setLanguage } from "@/i18n";
import { useTabInAddress } from "@/lib/tab-in-address";
import { api } from "@/lib/api";
import { errorText as describeError } from "@/lib/errors";
import type { User } from "@/lib/types";

function errorText(error: unknown): string {
  return describeError(i18n.t, error);
}

/** `/settings`: the administrators' settings (providers, vault, plugins). */
/** The tabs, as the address's fragment names them (`/settings#backups`). */
const TABS = ["providers", "search", "mcp", "vault", "users", "channels", "webhooks", "kin-access", "approvals", "usage", "backups", "plugins"];

export default function SettingsPage() {
  const { t } = useTranslation();
  const [tab, chooseTab] = useTabInAddress(TABS, "providers");
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
      <Tabs value={tab} onValueChange={chooseTab}>
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
          <PluginsAdmin />
        </TabsContent>
      </Tabs>
    </PageFrame>
  );
}
