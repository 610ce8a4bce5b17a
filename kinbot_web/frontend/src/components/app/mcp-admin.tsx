import { PencilIcon, PlusIcon, RefreshCwIcon, Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Badge } from "@/components/ui/badge";
import { ConfirmDelete } from "@/components/app/confirm-delete";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Switch } from "@/components/ui/switch";
import { Textarea } from "@/components/ui/textarea";
import { useToast } from "@/components/ui/toast";
import { api, ApiError } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { formatPairs, parseArgs, parsePairs, serverLine, type McpServerConfig, type McpStatus } from "@/lib/mcp";
import { ServerLine } from "@/components/app/mcp-server-line";

interface McpServer {
  id: string;
  name: string;
  transport: "stdio" | "http";
  enabled: boolean;
  config?: McpServerConfig;
  status: McpStatus & { tools: { name: string }[] };
}

interface Draft {
  name: string;
  transport: "stdio" | "http";
  command: string;
  args: string;
  env: string;
  url: string;
  headers: string;
  enabled: boolean;
}

const EMPTY: Draft = { name: "", transport: "stdio", command: "", args: "", env: "", url: "", headers: "", enabled: true };
const STATE_BADGE = { connected: "success", connecting: "secondary", failed: "destructive", disabled: "outline", stopped: "warning" } as const;

function draftOf(server: McpServer): Draft {
  const config = server.config ?? {};
  return {
    name: server.name, transport: server.transport, enabled: server.enabled,
    command: config.command ?? "", args: (config.args ?? []).join("\n"), env: formatPairs(config.env, "="),
    url: config.url ?? "", headers: formatPairs(config.headers, ":"),
  };
}

function bodyOf(draft: Draft): Record<string, unknown> {
  const common = { name: draft.name.trim(), transport: draft.transport, enabled: draft.enabled };
  if (draft.transport === "stdio") return { ...common, command: draft.command.trim(), args: parseArgs(draft.args), env: parsePairs(draft.env, "=") };
  return { ...common, url: draft.url.trim(), headers: parsePairs(draft.headers, ":") };
}

/** Settings › MCP servers: each with its health and tools; added (stdio or HTTP), edited,
 * reconnected and removed. Env and header values come back masked and stay masked. */
export function McpAdmin() {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [servers, setServers] = React.useState<McpServer[] | null>(null);
  const [pluginOff, setPluginOff] = React.useState(false);
  const [editing, setEditing] = React.useState<McpServer | null>(null);
  const [open, setOpen] = React.useState(false);
  const [draft, setDraft] = React.useState<Draft>(EMPTY);
  const [error, setError] = React.useState<string | null>(null);
  const [removing, setRemoving] = React.useState<McpServer | null>(null);
  const addButton = React.useRef<HTMLButtonElement>(null);
  const fail = React.useCallback((caught: unknown) => toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" }), [toast, t]);

  const load = React.useCallback(() => {
    api<{ servers: McpServer[] }>("/api/mcp-servers")
      .then(({ servers: found }) => setServers(found))
      .catch((caught: unknown) => (caught instanceof ApiError && caught.status === 503 ? setPluginOff(true) : fail(caught)));
  }, [fail]);
  React.useEffect(load, [load]);

  function start(server: McpServer | null) {
    setEditing(server);
    setDraft(server ? draftOf(server) : EMPTY);
    setError(null);
    setOpen(true);
  }

  async function save(event: React.FormEvent) {
    event.preventDefault();
    setError(null);
    try {
      const body = bodyOf(draft);
      if (editing) await api(`/api/mcp-servers/${editing.id}`, { method: "PATCH", body });
      else await api("/api/mcp-servers", { body });
      setOpen(false);
      load();
    } catch (caught) {
      setError(errorText(t, caught));
    }
  }

  async function act(request: () => Promise<unknown>) {
    try {
      await request();
    } catch (caught) {
      fail(caught);
    }
    load();
  }

  const set = (key: keyof Draft) => (event: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => setDraft((value) => ({ ...value, [key]: event.target.value }));
  if (pluginOff) return <p className="text-sm text-muted-foreground">{t("kinTools.pluginOff")}</p>;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <Button ref={addButton} onClick={() => start(null)}>
          <PlusIcon /> {t("mcp.add")}
        </Button>
      </div>
      {servers?.length === 0 ? <p className="text-sm text-muted-foreground">{t("mcp.none")}</p> : null}
      <ul className="flex flex-col gap-2" aria-label={t("settings.mcp")}>
        {servers?.map((server) => (
          <li key={server.id} aria-label={server.name} className="flex flex-wrap items-center gap-3 rounded-xl border border-border/70 bg-card px-4 py-3">
            <div className="min-w-0 flex-1">
              <p className="flex flex-wrap items-center gap-2">
                <span className="font-semibold">{server.name}</span>
                <Badge variant="outline">{server.transport}</Badge>
                <Badge variant={STATE_BADGE[server.status.state]}>{t(`kinTools.state.${server.status.state}`)}</Badge>
              </p>
              <p className="mt-1 truncate font-mono text-xs text-muted-foreground">{server.transport === "stdio" ? [server.config?.command, ...(server.config?.args ?? [])].join(" ") : server.config?.url}</p>
              <ServerLine line={serverLine(t, server.status)} className="mt-0.5" />
            </div>
            <Button variant="ghost" size="icon-sm" aria-label={t("mcp.reconnect", { name: server.name })} onClick={() => void act(() => api(`/api/mcp-servers/${server.id}/reconnect`, { method: "POST" }))}>
              <RefreshCwIcon />
            </Button>
            <Button variant="ghost" size="icon-sm" aria-label={`${t("common.edit")} ${server.name}`} onClick={() => start(server)}>
              <PencilIcon />
            </Button>
            <Button variant="ghost" size="icon-sm" aria-label={`${t("common.delete")} ${server.name}`} onClick={() => setRemoving(server)}>
              <Trash2Icon />
            </Button>
          </li>
        ))}
      </ul>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogContent closeLabel={t("common.close")}>
          <form className="flex flex-col gap-4" onSubmit={(event) => void save(event)}>
            <DialogHeader>
              <DialogTitle>{editing ? `${t("common.edit")} ${editing.name}` : t("mcp.add")}</DialogTitle>
              <DialogDescription>{t("mcp.hint")}</DialogDescription>
            </DialogHeader>
            <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
              <Field label={t("onboarding.providers.name")} htmlFor="mcp-name" hint={t("mcp.nameHint")}>
                <Input id="mcp-name" value={draft.name} onChange={set("name")} required pattern="[A-Za-z0-9_\-]{1,32}" title={t("mcp.nameHint")} />
              </Field>
              <Field label={t("mcp.transport")} htmlFor="mcp-transport">
                <NativeSelect id="mcp-transport" value={draft.transport} onChange={set("transport")}>
                  <option value="stdio">stdio</option>
                  <option value="http">HTTP</option>
                </NativeSelect>
              </Field>
            </div>
            {draft.transport === "stdio" ? (
              <>
                <Field label={t("mcp.command")} htmlFor="mcp-command">
                  <Input id="mcp-command" value={draft.command} onChange={set("command")} required className="font-mono" />
                </Field>
                <Field label={t("mcp.args")} htmlFor="mcp-args" hint={t("mcp.argsHint")}>
                  <Textarea id="mcp-args" value={draft.args} onChange={set("args")} rows={2} className="font-mono" />
                </Field>
                <Field label={t("mcp.env")} htmlFor="mcp-env" hint={t("mcp.secretHint")}>
                  <Textarea id="mcp-env" value={draft.env} onChange={set("env")} rows={2} className="font-mono" spellCheck={false} />
                </Field>
              </>
            ) : (
              <>
                <Field label={t("mcp.url")} htmlFor="mcp-url">
                  <Input id="mcp-url" type="url" value={draft.url} onChange={set("url")} required className="font-mono" />
                </Field>
                <Field label={t("mcp.headers")} htmlFor="mcp-headers" hint={t("mcp.secretHint")}>
                  <Textarea id="mcp-headers" value={draft.headers} onChange={set("headers")} rows={2} className="font-mono" spellCheck={false} />
                </Field>
              </>
            )}
            <label className="flex items-center gap-3 text-sm">
              <Switch checked={draft.enabled} onCheckedChange={(enabled) => setDraft((value) => ({ ...value, enabled }))} aria-label={t("settings.enabled")} />
              {t("settings.enabled")}
            </label>
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
              <Button type="submit">{t("common.save")}</Button>
            </DialogFooter>
          </form>
        </DialogContent>
      </Dialog>
      <ConfirmDelete
        target={removing}
        title={`${t("common.delete")} ${removing?.name ?? ""}`}
        description={t("mcp.deleteConfirm", { name: removing?.name ?? "" })}
        focusAfterDelete={addButton}
        onClose={() => setRemoving(null)}
        onConfirm={(target) => void act(() => api(`/api/mcp-servers/${target.id}`, { method: "DELETE" }))}
      />
    </div>
  );
}
