import { PlugIcon, ShieldAlertIcon, ShieldCheckIcon, Trash2Icon, WrenchIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { KinApprovalRules } from "@/components/app/approval-rules";
import { ConfirmDelete } from "@/components/app/confirm-delete";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Switch } from "@/components/ui/switch";
import { useToast } from "@/components/ui/toast";
import { api, ApiError } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { serverLine, type McpStatus } from "@/lib/mcp";
import { ServerLine } from "@/components/app/mcp-server-line";
import { parameterLines, withoutTool, type CustomTool } from "@/lib/custom-tools";
import type { Kin } from "@/lib/types";

interface McpServer {
  id: string;
  name: string;
  transport: "stdio" | "http";
  enabled: boolean;
  status: McpStatus & { tools: { name: string; description: string }[] };
}

/** The modes that confine scripts: the same for a person, whichever tool confines. */
const CONFINED = new Set(["bubblewrap", "landlock"]);

const STATE_BADGE = { connected: "success", connecting: "secondary", failed: "destructive", disabled: "outline", stopped: "warning" } as const;

/** A Kin's MCP servers (switched on and off for it), its custom tools (listed, removed) and,
 * for an administrator (`admin`), which tools it asks about first. */
export function KinTools({ kin, admin }: { kin: Kin; admin: boolean }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [servers, setServers] = React.useState<McpServer[] | null>(null);
  const [assigned, setAssigned] = React.useState<string[]>([]);
  const [mcpOff, setMcpOff] = React.useState(false);
  const [tools, setTools] = React.useState<{ sandbox: string; tools: CustomTool[] } | null>(null);
  const [toolsOff, setToolsOff] = React.useState(false);
  const [removing, setRemoving] = React.useState<CustomTool | null>(null);
  const customHeading = React.useRef<HTMLHeadingElement>(null);
  const fail = React.useCallback((error: unknown) => toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" }), [toast, t]);

  React.useEffect(() => {
    // 503 while the plugin is off: say so instead of failing.
    const off = (set: (value: boolean) => void) => (error: unknown) => (error instanceof ApiError && error.status === 503 ? set(true) : fail(error));
    Promise.all([api<{ servers: McpServer[] }>("/api/mcp-servers"), api<{ server_ids: string[] }>(`/api/kins/${kin.id}/mcp-servers`)])
      .then(([list, mine]) => {
        setServers(list.servers);
        setAssigned(mine.server_ids);
      })
      .catch(off(setMcpOff));
    api<{ sandbox: string; tools: CustomTool[] }>(`/api/kins/${kin.id}/custom-tools`).then(setTools).catch(off(setToolsOff));
  }, [kin.id, fail]);

  async function toggle(server: McpServer, on: boolean) {
    const next = on ? [...assigned, server.id] : assigned.filter((id) => id !== server.id);
    try {
      const { server_ids } = await api<{ server_ids: string[] }>(`/api/kins/${kin.id}/mcp-servers`, { method: "PUT", body: { server_ids: next } });
      setAssigned(server_ids);
    } catch (error) {
      fail(error);
    }
  }

  async function remove(tool: CustomTool) {
    try {
      await api(`/api/kins/${kin.id}/custom-tools/${encodeURIComponent(tool.name)}`, { method: "DELETE" });
      toast({ title: t("kinTools.removed", { name: tool.name }), tone: "success" });
    } catch (error) {
      // Already gone (404): the list was out of date; say anything else.
      if (!(error instanceof ApiError && error.status === 404)) {
        fail(error);
        return;
      }
    }
    setTools((value) => (value ? { ...value, tools: withoutTool(value.tools, tool.name) } : value));
  }

  return (
    <div className="flex flex-col gap-6">
      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-2">
            <PlugIcon className="size-4.5" aria-hidden /> {t("kinTools.mcp")}
          </CardTitle>
          <CardDescription>{t("kinTools.mcpHint")}</CardDescription>
        </CardHeader>
        <CardContent>
          {mcpOff ? <p className="text-sm text-muted-foreground">{t("kinTools.pluginOff")}</p> : null}
          {servers?.length === 0 ? <p className="text-sm text-muted-foreground">{t("kinTools.noServers")}</p> : null}
          <ul className="flex flex-col gap-2" aria-label={t("kinTools.mcp")}>
            {servers?.map((server) => (
              <li key={server.id} className="flex flex-wrap items-center gap-3 rounded-xl border border-border/70 bg-card px-4 py-3" aria-label={server.name}>
                <div className="min-w-0 flex-1">
                  <p className="flex flex-wrap items-center gap-2">
                    <span className="font-semibold">{server.name}</span>
                    <Badge variant="outline">{server.transport}</Badge>
                    <Badge variant={STATE_BADGE[server.status.state]}>{t(`kinTools.state.${server.status.state}`)}</Badge>
                  </p>
                  <ServerLine line={serverLine(t, server.status)} className="mt-1" />
                </div>
                <Switch checked={assigned.includes(server.id)} onCheckedChange={(on) => void toggle(server, on)} aria-label={t("kinTools.assign", { server: server.name, kin: kin.name })} />
              </li>
            ))}
          </ul>
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle ref={customHeading} tabIndex={-1} className="flex items-center gap-2">
            <WrenchIcon className="size-4.5" aria-hidden /> {t("kinTools.custom")}
          </CardTitle>
          <CardDescription>{t("kinTools.customHint")}</CardDescription>
        </CardHeader>
        <CardContent className="flex flex-col gap-3">
          {toolsOff ? <p className="text-sm text-muted-foreground">{t("kinTools.pluginOff")}</p> : null}
          {tools ? (
            <p className="flex items-center gap-2 text-sm" data-sandbox={tools.sandbox}>
              {CONFINED.has(tools.sandbox) ? <ShieldCheckIcon className="size-4 shrink-0 text-success" aria-hidden /> : <ShieldAlertIcon className="size-4 shrink-0 text-warning" aria-hidden />}
              {CONFINED.has(tools.sandbox)
                ? t("kinTools.sandboxOn", { name: kin.name })
                : tools.sandbox === "none"
                  ? t("kinTools.sandboxNone")
                  : t(admin ? "kinTools.sandboxRefusedAdmin" : "kinTools.sandboxRefused")}
            </p>
          ) : null}
          {tools?.tools.length === 0 ? <p className="text-sm text-muted-foreground">{t("kinTools.noCustom")}</p> : null}
          <ul className="flex flex-col gap-2" aria-label={t("kinTools.custom")}>
            {tools?.tools.map((tool) => (
              <CustomToolItem key={tool.name} tool={tool} onRemove={() => setRemoving(tool)} />
            ))}
          </ul>
        </CardContent>
      </Card>
      {admin ? <KinApprovalRules kin={kin} /> : null}
      <ConfirmDelete
        target={removing}
        title={t("kinTools.remove", { name: removing?.name ?? "" })}
        description={t("kinTools.removeConfirm", { name: removing?.name ?? "", kin: kin.name })}
        focusAfterDelete={customHeading}
        onClose={() => setRemoving(null)}
        onConfirm={(tool) => void remove(tool)}
      />
    </div>
  );
}

/** One custom tool: name, description, its arguments in a few words, its script, a remove button. */
function CustomToolItem({ tool, onRemove }: { tool: CustomTool; onRemove: () => void }) {
  const { t } = useTranslation();
  const parameters = parameterLines(tool.parameters);
  return (
    <li className="flex items-start gap-3 rounded-xl border border-border/70 bg-card px-4 py-3" aria-label={tool.name} data-tool={tool.name}>
      <div className="min-w-0 flex-1">
        <p className="font-mono text-sm font-semibold break-all">{tool.name}</p>
        <p className="mt-1 text-sm break-words text-muted-foreground">{tool.description}</p>
        {parameters.length > 0 ? (
          <ul className="mt-2 flex flex-wrap gap-1.5" aria-label={t("kinTools.parametersOf", { name: tool.name })}>
            {parameters.map((parameter) => (
              <li key={parameter.name} className="max-w-full rounded-md bg-muted px-1.5 py-0.5 font-mono text-xs break-all" title={parameter.description ?? undefined}>
                <span className="font-semibold">{parameter.name}</span>
                {parameter.required ? (
                  <abbr title={t("kinTools.required")} className="text-destructive no-underline">
                    *
                  </abbr>
                ) : null}
                <span className="text-muted-foreground">: {parameter.type}</span>
                {parameter.description ? <span className="sr-only"> — {parameter.description}</span> : null}
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-xs text-muted-foreground">{t("kinTools.noParameters")}</p>
        )}
        <p className="mt-1 font-mono text-xs break-all text-muted-foreground">{tool.path}</p>
      </div>
      <Button size="icon-sm" variant="ghost" aria-label={t("kinTools.remove", { name: tool.name })} onClick={onRemove}>
        <Trash2Icon />
      </Button>
    </li>
  );
}
