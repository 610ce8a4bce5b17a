import { GlobeIcon, ImageUpIcon, ShieldAlertIcon, SparklesIcon, Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";
import { useNavigate, useParams } from "react-router";

import { Advanced } from "@/components/app/advanced";
import { KinContextWindow } from "@/components/app/context-window";
import { languageModels, type ModelChoice } from "@/components/app/create-kin-dialog";
import { KinAccessCard } from "@/components/app/kin-access";
import { KinBackgroundModels } from "@/components/app/kin-background-models";
import { KinCrons } from "@/components/app/kin-crons";
import { KinExport } from "@/components/app/kin-export";
import { KinMemories } from "@/components/app/kin-memories";
import { KinTools } from "@/components/app/kin-tools";
import { KinUnavailable } from "@/components/app/kin-unavailable";
import { PageFrame } from "@/components/app/page-frame";
import { Avatar } from "@/components/ui/avatar";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle, DialogTrigger } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Switch } from "@/components/ui/switch";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { Textarea } from "@/components/ui/textarea";
import { useToast } from "@/components/ui/toast";
import { setLanguage } from "@/i18n";
import { useTabInAddress } from "@/lib/tab-in-address";
import { api, ApiError } from "@/lib/api";
import { formatDateTime, formatNumber } from "@/lib/format";
import { ownsKin } from "@/lib/kin-owner";
import { errorText } from "@/lib/errors";
import { EventStream } from "@/lib/events";
import type { Kin, User } from "@/lib/types";

interface Snapshot {
  id: number;
  kind: "summary" | "purge";
  summary: string;
  messages_folded: number;
  active: boolean;
  created_at: number;
}

interface Compacting {
  active: Snapshot | null;
  context_tokens: number;
  threshold_tokens: number;
  running: boolean;
  snapshots: Snapshot[];
}

/** The tabs a link may open by the address's fragment (`…/settings#crons`). */
const LINKED_TABS = ["profile", "memories", "compacting", "crons", "tools", "access"];

function useFailure() {
  const { toast } = useToast();
  const { t } = useTranslation();
  return React.useCallback((error: unknown) => toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" }), [toast, t]);
}

/** "Delete this Kin" and its confirmation (shown only to an administrator or its creator). */
function DeleteKin({ kin, onDelete }: { kin: Kin; onDelete: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog>
      <DialogTrigger asChild>
        <Button type="button" variant="ghost" className="text-destructive">
          <Trash2Icon /> {t("kinSettings.deleteKin")}
        </Button>
      </DialogTrigger>
      <DialogContent closeLabel={t("common.close")}>
        <DialogHeader>
          <DialogTitle>{t("kinSettings.deleteKin")}</DialogTitle>
          <DialogDescription>{t("kinSettings.deleteConfirm", { name: kin.name })}</DialogDescription>
        </DialogHeader>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary">{t("common.cancel")}</Button>
          </DialogClose>
          <Button variant="destructive" onClick={onDelete}>
            {t("common.delete")}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function Profile({ kin, user, onChange }: { kin: Kin; user: User | null; onChange: (kin: Kin) => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const fail = useFailure();
  const navigate = useNavigate();
  const [models, setModels] = React.useState<ModelChoice[]>([]);
  const [modes, setModes] = React.useState<string[]>(["upload"]);
  const [prompt, setPrompt] = React.useState("");
  const [version, setVersion] = React.useState(0);
  const [busy, setBusy] = React.useState(false);

  React.useEffect(() => {
    languageModels().then(setModels).catch(fail);
    api<{ modes: string[] }>(`/api/kins/${kin.id}/avatar/modes`).then(({ modes: found }) => setModes(found)).catch(fail);
  }, [kin.id, fail]);

  const modelChoices = models.some((model) => model.value === kin.model) ? models : [{ value: kin.model, label: kin.model }, ...models];

  async function save(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    try {
      const { kin: updated } = await api<{ kin: Kin }>(`/api/kins/${kin.id}`, {
        method: "PATCH",
        body: Object.fromEntries(["name", "role", "character", "expertise", "model"].map((key) => [key, String(data.get(key) ?? "")])),
      });
      onChange(updated);
      toast({ title: t("account.saved"), tone: "success" });
    } catch (error) {
      fail(error);
    }
  }

  async function avatar(action: () => Promise<{ kin: Kin }>) {
    setBusy(true);
    try {
      onChange((await action()).kin);
      setVersion((value) => value + 1);
    } catch (error) {
      fail(error);
    } finally {
      setBusy(false);
    }
  }

  function upload(file: File) {
    const body = new FormData();
    body.append("avatar", file);
    void avatar(() => api(`/api/kins/${kin.id}/avatar`, { method: "PUT", body }));
  }

  async function remove() {
    try {
      await api(`/api/kins/${kin.id}`, { method: "DELETE" });
      navigate("/", { replace: true });
    } catch (error) {
      fail(error);
    }
  }

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,1fr)_20rem]">
      <Card>
        <form onSubmit={(event) => void save(event)}>
          <CardContent className="flex flex-col gap-4 pt-6">
            <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
              <Field label={t("kin.name")} htmlFor="kin-name">
                <Input id="kin-name" name="name" defaultValue={kin.name} required />
              </Field>
              <Field label={t("kin.role")} htmlFor="kin-role">
                <Input id="kin-role" name="role" defaultValue={kin.role} required />
              </Field>
            </div>
            <Field label={t("kin.character")} htmlFor="kin-character">
              <Textarea id="kin-character" name="character" defaultValue={kin.character} rows={3} />
            </Field>
            <Field label={t("kin.expertise")} htmlFor="kin-expertise">
              <Textarea id="kin-expertise" name="expertise" defaultValue={kin.expertise} rows={3} />
            </Field>
            <Field label={t("kin.model")} htmlFor="kin-model">
              <NativeSelect id="kin-model" name="model" defaultValue={kin.model} key={modelChoices.length}>
                {modelChoices.map((model) => (
                  <option key={model.value} value={model.value}>
                    {model.label}
                  </option>
                ))}
              </NativeSelect>
            </Field>
          </CardContent>
          <CardFooter className="justify-between">
            {ownsKin(user, kin) ? <DeleteKin kin={kin} onDelete={() => void remove()} /> : <span />}
            <Button type="submit">{t("common.save")}</Button>
          </CardFooter>
        </form>
      </Card>
      <div className="flex flex-col gap-6">
        <Card>
          <CardHeader>
            <CardTitle className="text-base">{t("kinSettings.avatar")}</CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col items-start gap-3">
            <Avatar name={kin.name} src={kin.avatar_url ? `${kin.avatar_url}?v=${version}` : null} kin={kin} size="xl" />
            <Button asChild variant="outline" size="sm">
              <label htmlFor="kin-avatar" className="cursor-pointer">
                <ImageUpIcon /> {t("kinSettings.upload")}
              </label>
            </Button>
            <input id="kin-avatar" type="file" accept="image/png,image/jpeg,image/webp,image/gif" className="sr-only" onChange={(event) => event.target.files?.[0] && upload(event.target.files[0])} />
            {modes.includes("auto") ? (
              <Button variant="secondary" size="sm" disabled={busy} onClick={() => void avatar(() => api(`/api/kins/${kin.id}/avatar/generate`, { body: { mode: "auto" } }))}>
                <SparklesIcon /> {t("kinSettings.generate")}
              </Button>
            ) : null}
            {modes.includes("prompt") ? (
              <div className="flex w-full flex-col gap-2">
                <Textarea aria-label={t("kinSettings.generateFromPrompt")} value={prompt} onChange={(event) => setPrompt(event.target.value)} placeholder={t("kinSettings.promptPlaceholder")} rows={2} />
                <Button variant="secondary" size="sm" className="self-start" disabled={busy || !prompt.trim()} onClick={() => void avatar(() => api(`/api/kins/${kin.id}/avatar/generate`, { body: { mode: "prompt", prompt } }))}>
                  <SparklesIcon /> {t("kinSettings.generateFromPrompt")}
                </Button>
              </div>
            ) : null}
          </CardContent>
        </Card>
        <Network kin={kin} user={user} onChange={onChange} />
      </div>
    </div>
  );
}

/** Whether the Kin's scripts may use the internet (through KinBot's proxy); only an administrator or the Kin's creator switches it. */
function Network({ kin, user, onChange }: { kin: Kin; user: User | null; onChange: (kin: Kin) => void }) {
  const { t } = useTranslation();
  const fail = useFailure();
  const [state, setState] = React.useState<string | null>(null);
  const allowed = ownsKin(user, kin);
  React.useEffect(() => {
    // "off", "unavailable" (allowed, but this server cannot hold scripts to its proxy) or "proxy"; nothing while the plugin is off.
    api<{ network: string }>(`/api/kins/${kin.id}/custom-tools`)
      .then(({ network }) => setState(network))
      .catch(() => setState(null));
  }, [kin.id, kin.network_access]);

  async function toggle(on: boolean) {
    try {
      onChange((await api<{ kin: Kin }>(`/api/kins/${kin.id}`, { method: "PATCH", body: { network_access: on } })).kin);
    } catch (error) {
      fail(error);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-base">
          <GlobeIcon className="size-4" aria-hidden /> {t("kinSettings.network")}
        </CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-3 text-sm">
        <div className="flex items-center justify-between gap-3">
          <span id="kin-network-label">{t("kinSettings.networkSwitch", { name: kin.name })}</span>
          <Switch checked={kin.network_access} disabled={!allowed} onCheckedChange={(on) => void toggle(on)} aria-labelledby="kin-network-label" />
        </div>
        <p className="text-muted-foreground">{t("kinSettings.networkHint", { name: kin.name })}</p>
        {allowed ? null : <p className="text-muted-foreground">{t("kinSettings.networkOwnerOnly", { name: kin.name })}</p>}
        {kin.network_access && state === "unavailable" ? (
          <p className="flex items-center gap-2" data-network={state}>
            <ShieldAlertIcon className="size-4 shrink-0 text-warning" aria-hidden /> {t("kinSettings.networkUnavailable")}
          </p>
        ) : null}
      </CardContent>
    </Card>
  );
}

function Summary({ kin }: { kin: Kin }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const fail = useFailure();
  const [state, setState] = React.useState<Compacting | null>(null);
  const purgeHint = React.useId();
  const load = React.useCallback(() => void api<Compacting>(`/api/kins/${kin.id}/compacting`).then(setState).catch(fail), [kin.id, fail]);
  React.useEffect(load, [load]);
  async function act(path: string, body?: unknown) {
    try {
      await api(`/api/kins/${kin.id}/compacting${path}`, { method: "POST", body });
    } catch (error) {
      // A short conversation has nothing to fold yet: a state to tell, not a failure.
      if (error instanceof ApiError && error.code === "nothing_to_compact") toast({ title: t("kinSettings.nothingToCompact"), description: t("kinSettings.nothingToCompactHint") });
      else fail(error);
    }
    load();
  }
  if (!state) return null;
  return (
    <div className="flex flex-col gap-4">
      <Advanced>
        <p>{t("kinSettings.contextTokens", { tokens: formatNumber(state.context_tokens), threshold: formatNumber(state.threshold_tokens) })}</p>
      </Advanced>
      <div className="flex flex-wrap gap-2">
        <Button variant="outline" disabled={state.running} onClick={() => void act("")}>
          {t("kinSettings.compactNow")}
        </Button>
        <Button variant="outline" disabled={state.running} onClick={() => void act("/purge")} aria-describedby={purgeHint}>
          {t("kinSettings.purge")}
        </Button>
      </div>
      <p id={purgeHint} className="text-sm text-muted-foreground">
        {t("kinSettings.purgeHint")}
      </p>
      {state.snapshots.length === 0 ? <p className="text-sm text-muted-foreground">{t("kinSettings.noSnapshots")}</p> : null}
      <ul className="flex flex-col gap-2">
        {state.snapshots.map((snapshot) => (
          <li key={snapshot.id} className="flex flex-col gap-2 rounded-xl border border-border/70 bg-card px-4 py-3">
            <div className="flex flex-wrap items-center gap-2 text-xs text-muted-foreground">
              <span>{formatDateTime(snapshot.created_at)}</span>
              <span>{t("kinSettings.messagesFolded", { count: snapshot.messages_folded })}</span>
              <span className="flex-1" />
              {snapshot.active ? (
                <Badge variant="success">{t("kinSettings.active")}</Badge>
              ) : (
                <Button variant="ghost" size="sm" onClick={() => void act("/rollback", { snapshot_id: snapshot.id })}>
                  {t("kinSettings.rollback")}
                </Button>
              )}
            </div>
            <p className="text-sm whitespace-pre-wrap">{snapshot.kind === "purge" ? t("kinSettings.purgeSnapshot") : snapshot.summary}</p>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** `/kins/:kinId/settings`: a Kin's profile and avatar, its memories, its summary layer and its crons. */
export default function KinSettingsPage() {
  const { t } = useTranslation();
  const [tab, chooseTab] = useTabInAddress(LINKED_TABS, "profile");
  const { kinId } = useParams();
  const fail = useFailure();
  const [kin, setKin] = React.useState<Kin | null>(null);
  // Deleted, or not this person's to use (the server answers both 404): the Kins to go to instead.
  const [elsewhere, setElsewhere] = React.useState<Kin[] | null>(null);
  const [user, setUser] = React.useState<User | null>(null);
  // The page's own live stream (the chat's closes when the shell is left); the tabs listen to it.
  const stream = React.useMemo(() => new EventStream(), []);
  React.useEffect(() => {
    stream.connect();
    return () => stream.close();
  }, [stream]);
  React.useEffect(() => {
    setKin(null);
    setElsewhere(null);
    api<{ kin: Kin }>(`/api/kins/${kinId}`)
      .then(({ kin: found }) => setKin(found))
      .catch((error: unknown) => {
        if (!(error instanceof ApiError && error.status === 404)) return fail(error);
        api<{ kins: Kin[] }>("/api/kins").then(({ kins }) => setElsewhere(kins), fail);
      });
    // Opened directly (a reload, a link): speak the user's language.
    api<{ user: User }>("/api/me").then(({ user: me }) => {
      setUser(me);
      setLanguage(me.language);
    }, fail);
  }, [kinId, fail]);
  if (elsewhere) {
    return (
      <div className="flex min-h-dvh flex-col">
        <KinUnavailable firstKin={elsewhere[0] ?? null} />
      </div>
    );
  }
  if (!kin) return null;
  return (
    <PageFrame title={t("kinSettings.title", { name: kin.name })} back={`/kins/${kin.id}`}>
      <Tabs value={tab} onValueChange={chooseTab}>
        <TabsList className="h-auto max-w-full flex-wrap">
          <TabsTrigger value="profile">{t("kinSettings.profile")}</TabsTrigger>
          <TabsTrigger value="memories">{t("kinSettings.memories")}</TabsTrigger>
          <TabsTrigger value="compacting">{t("kinSettings.compacting")}</TabsTrigger>
          <TabsTrigger value="crons">{t("kinSettings.crons")}</TabsTrigger>
          <TabsTrigger value="tools">{t("kinTools.tab")}</TabsTrigger>
          <TabsTrigger value="access">{t("kinAccess.tab")}</TabsTrigger>
        </TabsList>
        <TabsContent value="profile">
          <Profile kin={kin} user={user} onChange={setKin} />
          <KinContextWindow kin={kin} />
          <KinBackgroundModels kin={kin} onChange={setKin} />
          <KinExport kin={kin} />
        </TabsContent>
        <TabsContent value="memories">
          <KinMemories kin={kin} />
        </TabsContent>
        <TabsContent value="compacting">
          <Summary kin={kin} />
        </TabsContent>
        <TabsContent value="crons">
          <KinCrons kin={kin} stream={stream} />
        </TabsContent>
        <TabsContent value="tools">
          <KinTools kin={kin} admin={user?.role === "admin"} />
        </TabsContent>
        <TabsContent value="access">
          <KinAccessCard kin={kin} user={user} onChange={(access) => setKin({ ...kin, access })} />
        </TabsContent>
      </Tabs>
    </PageFrame>
  );
}
