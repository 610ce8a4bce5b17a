import { BlocksIcon, BotIcon, EyeOffIcon, KeyRoundIcon, PlusIcon, SearchIcon, ServerIcon, UsersIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";

const PROVIDERS = [
  { name: "OpenAI", key: "sk-…a1b2", capabilities: ["llm", "embedding", "image"] },
  { name: "Anthropic", key: "sk-ant-…9f3c", capabilities: ["llm"] },
  { name: "Voyage AI", key: "pa-…77de", capabilities: ["embedding"] },
];
const SECRETS = ["GITHUB_TOKEN", "NOTION_API_KEY", "HOME_ASSISTANT_TOKEN"];
const PLUGINS = [
  { name: "openai", version: "0.1.0", hooks: "register_providers", enabled: true },
  { name: "brave_search", version: "0.1.0", hooks: "register_search_providers", enabled: true },
  { name: "house_rules", version: "1.0.0", hooks: "before_chat, register_routes", enabled: false },
];

/** Mock-up of Settings (administrators): providers, the vault and plugins. */
export default function SettingsMockup() {
  const { t } = useTranslation();
  return (
    <main className="mx-auto flex min-h-dvh max-w-5xl flex-col gap-6 p-4 sm:p-8">
      <header>
        <h1 className="text-3xl font-extrabold tracking-tight">{t("settings.title")}</h1>
      </header>
      <Tabs defaultValue="providers">
        <TabsList className="flex-wrap">
          <TabsTrigger value="providers"><BotIcon /> {t("settings.providers")}</TabsTrigger>
          <TabsTrigger value="search"><SearchIcon /> {t("settings.search")}</TabsTrigger>
          <TabsTrigger value="mcp"><ServerIcon /> {t("settings.mcp")}</TabsTrigger>
          <TabsTrigger value="vault"><KeyRoundIcon /> {t("settings.vault")}</TabsTrigger>
          <TabsTrigger value="users"><UsersIcon /> {t("settings.users")}</TabsTrigger>
          <TabsTrigger value="plugins"><BlocksIcon /> {t("settings.plugins")}</TabsTrigger>
        </TabsList>
        <TabsContent value="providers" className="grid grid-cols-1 gap-6 lg:grid-cols-[1fr_1fr]">
          <div className="flex flex-col gap-3">
            {PROVIDERS.map((provider) => (
              <Card key={provider.name}>
                <CardHeader className="flex-row items-center justify-between gap-3">
                  <div>
                    <CardTitle>{provider.name}</CardTitle>
                    <CardDescription>{provider.key} · {t("onboarding.providers.connected")}</CardDescription>
                  </div>
                  <Button size="sm" variant="outline">{t("common.test")}</Button>
                </CardHeader>
                <CardContent className="flex flex-wrap gap-1.5">
                  {provider.capabilities.map((capability) => (
                    <Badge key={capability} variant="success">{capability}</Badge>
                  ))}
                </CardContent>
              </Card>
            ))}
            <Button variant="outline" className="self-start">
              <PlusIcon /> {t("common.add")}
            </Button>
          </div>
          <div className="flex flex-col gap-3">
            <Card>
              <CardHeader>
                <CardTitle>{t("settings.vault")}</CardTitle>
                <CardDescription>{t("settings.masked")}</CardDescription>
              </CardHeader>
              <CardContent className="flex flex-col gap-2">
                {SECRETS.map((secret) => (
                  <div key={secret} className="flex items-center gap-3 rounded-xl bg-muted px-3 py-2">
                    <KeyRoundIcon className="size-4 text-muted-foreground" aria-hidden />
                    <code className="flex-1 text-sm font-semibold">{secret}</code>
                    <span className="inline-flex items-center gap-1 text-xs text-muted-foreground">
                      <EyeOffIcon className="size-3.5" aria-hidden /> ••••••••
                    </span>
                  </div>
                ))}
                <Button size="sm" variant="secondary" className="self-start">
                  <PlusIcon /> {t("settings.addSecret")}
                </Button>
              </CardContent>
            </Card>
            <Card>
              <CardHeader>
                <CardTitle>{t("settings.plugins")}</CardTitle>
              </CardHeader>
              <CardContent className="flex flex-col gap-2">
                {PLUGINS.map((plugin) => (
                  <div key={plugin.name} className="flex items-center gap-3 rounded-xl px-1 py-1.5">
                    <div className="min-w-0 flex-1">
                      <p className="text-sm font-semibold">{plugin.name} <span className="font-normal text-muted-foreground">{plugin.version}</span></p>
                      <p className="truncate text-xs text-muted-foreground">{plugin.hooks}</p>
                    </div>
                    <Badge variant={plugin.enabled ? "success" : "outline"}>{plugin.enabled ? t("settings.enabled") : t("settings.disabled")}</Badge>
                  </div>
                ))}
              </CardContent>
            </Card>
          </div>
        </TabsContent>
      </Tabs>
    </main>
  );
}
