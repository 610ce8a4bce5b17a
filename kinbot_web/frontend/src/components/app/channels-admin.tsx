import { MessagesSquareIcon, PencilIcon, PlusIcon, Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { useFirstConnection } from "@/components/app/channel-first-connection";
import { ChannelPeople } from "@/components/app/channel-people";
import { ConfirmDelete } from "@/components/app/confirm-delete";
import { fieldProblems, SchemaForm, type FieldProblem, type FormValues } from "@/components/app/schema-form";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Switch } from "@/components/ui/switch";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { channelProblemText } from "@/lib/channel-problems";
import { initialSettings, settingsToCreate, stateTone, type Channel, type ChannelType } from "@/lib/channels";
import { errorText } from "@/lib/errors";
import type { Kin } from "@/lib/types";

/** How often the tab asks again for the connections' states and the people waiting. */
const REFRESH_MS = 5000;

/** Settings → Channels: the connections (their state, adding, changing, turning off,
 * deleting), then the people waiting to be linked and the linked accounts. */
export function ChannelsAdmin() {
  const { t } = useTranslation();
  const [types, setTypes] = React.useState<ChannelType[]>([]);
  const [channels, setChannels] = React.useState<Channel[]>([]);
  const [kins, setKins] = React.useState<Kin[]>([]);
  const [editing, setEditing] = React.useState<Channel | null>(null);
  const [deleting, setDeleting] = React.useState<Channel | null>(null);
  const connectionsHeading = React.useRef<HTMLHeadingElement>(null);
  const { toast } = useToast();
  // Only the answer to the latest request is shown: one asked before a change was answered
  // would bring back the state from before it.
  const latest = React.useRef(0);
  const reload = React.useCallback(() => {
    const asked = ++latest.current;
    void api<{ channels: Channel[] }>("/api/channels")
      .then(({ channels: found }) => asked === latest.current && setChannels(found))
      .catch(() => undefined);
  }, []);
  const show = React.useCallback((channel: Channel) => {
    latest.current += 1;
    setChannels((shown) => (shown.some((other) => other.id === channel.id) ? shown.map((other) => (other.id === channel.id ? channel : other)) : [...shown, channel]));
  }, []);
  const answered = useFirstConnection(channels, show, reload);
  React.useEffect(() => {
    void api<{ types: ChannelType[] }>("/api/channels/types").then(({ types: found }) => setTypes(found));
    void api<{ kins: Kin[] }>("/api/kins").then(({ kins: found }) => setKins(found));
    reload();
    const timer = window.setInterval(reload, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload]);

  async function act(action: () => Promise<unknown>, done?: string) {
    try {
      await action();
      if (done) toast({ title: done, tone: "success" });
    } catch (caught) {
      toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" });
    }
    reload();
  }

  const typeLabel = (name: string) => t(`channels.kind.${name}`, { defaultValue: types.find((type) => type.name === name)?.label ?? name });
  return (
    <div className="flex flex-col gap-8">
      <p className="text-sm text-muted-foreground">{t("channels.intro")}</p>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <section className="flex min-w-0 flex-col gap-2" aria-labelledby="channels-connections">
          <h2 id="channels-connections" ref={connectionsHeading} tabIndex={-1} className="text-base font-semibold">
            {t("channels.connections")}
          </h2>
          <ul className="flex flex-col gap-2">
            {channels.length === 0 ? <li className="text-sm text-muted-foreground">{t("channels.none")}</li> : null}
            {channels.map((channel) => (
              <li key={channel.id} className="flex flex-wrap items-center gap-x-3 gap-y-2 rounded-xl border border-border/70 bg-card px-4 py-3" data-channel={channel.label}>
                <MessagesSquareIcon className="size-4 shrink-0 text-muted-foreground" aria-hidden />
                <div className="min-w-40 flex-1">
                  <p className="truncate text-sm font-semibold">{channel.label}</p>
                  <p className="truncate text-xs text-muted-foreground">
                    {typeLabel(channel.type)} · {channel.kin_ids.map((id) => kins.find((kin) => kin.id === id)?.name).filter(Boolean).join(", ")}
                  </p>
                  {channel.last_error_code && channel.state !== "running" ? (
                    <p className="text-xs text-destructive" data-channel-error={channel.last_error_code}>
                      {channelProblemText(t, "state", channel.last_error_code, channel.type)}
                    </p>
                  ) : null}
                  {channel.undelivered > 0 ? (
                    <p className="text-xs text-warning" data-channel-undelivered={channel.undelivered}>
                      {t("channels.undelivered", { count: channel.undelivered })} {channelProblemText(t, "undelivered", channel.undelivered_code, channel.type)}
                    </p>
                  ) : null}
                </div>
                <div className="ml-auto flex items-center gap-2">
                  <Badge variant={stateTone(channel.state)} data-channel-state={channel.state}>
                    {t(`channels.state.${channel.state}`)}
                  </Badge>
                  <Switch checked={channel.enabled} onCheckedChange={(enabled) => void act(() => api(`/api/channels/${channel.id}`, { method: "PATCH", body: { enabled } }))} aria-label={t("channels.toggle", { name: channel.label })} />
                  <Button variant="ghost" size="icon-sm" aria-label={t("channels.edit", { name: channel.label })} onClick={() => setEditing(channel)}>
                    <PencilIcon />
                  </Button>
                  <Button variant="ghost" size="icon-sm" aria-label={`${t("common.delete")} ${channel.label}`} onClick={() => setDeleting(channel)}>
                    <Trash2Icon />
                  </Button>
                </div>
              </li>
            ))}
          </ul>
        </section>
        <AddChannel types={types} kins={kins} onAdded={(channel) => answered(channel, true)} />
      </div>
      <ChannelPeople channels={channels} kins={kins} />
      <EditChannel channel={editing} type={types.find((type) => type.name === editing?.type) ?? null} kins={kins} onClose={() => setEditing(null)} onSaved={(channel) => { setEditing(null); answered(channel, false); }} />
      <ConfirmDelete
        target={deleting}
        title={deleting ? t("channels.deleteTitle", { name: deleting.label }) : ""}
        description={t("channels.deleteHint")}
        focusAfterDelete={connectionsHeading}
        onClose={() => setDeleting(null)}
        onConfirm={(channel) => void act(() => api(`/api/channels/${channel.id}`, { method: "DELETE" }))}
      />
    </div>
  );
}

/** The Kins a connection talks to, as check boxes (in the Kins' order). */
function KinChoice({ kins, value, onChange }: { kins: Kin[]; value: string[]; onChange: (next: string[]) => void }) {
  const { t } = useTranslation();
  return (
    <fieldset className="flex flex-col gap-1.5">
      <legend className="mb-1 text-sm font-medium">{t("channels.kins")}</legend>
      {kins.map((kin) => (
        <label key={kin.id} className="flex items-center gap-2 text-sm">
          <input type="checkbox" className="size-4 accent-primary" checked={value.includes(kin.id)} onChange={(event) => onChange(event.target.checked ? [...value, kin.id] : value.filter((id) => id !== kin.id))} />
          {kin.name}
        </label>
      ))}
      <p className="text-xs text-muted-foreground">{t("channels.kinsHint")}</p>
    </fieldset>
  );
}

function AddChannel({ types, kins, onAdded }: { types: ChannelType[]; kins: Kin[]; onAdded: (channel: Channel) => void }) {
  const { t } = useTranslation();
  const [typeName, setTypeName] = React.useState("");
  const type = types.find((candidate) => candidate.name === typeName) ?? types[0] ?? null;
  const [label, setLabel] = React.useState("");
  const [kinIds, setKinIds] = React.useState<string[]>([]);
  const [values, setValues] = React.useState<FormValues>(() => (type ? initialSettings(type.settings_schema) : {}));
  const [problems, setProblems] = React.useState<FieldProblem[]>([]);
  const [error, setError] = React.useState<string | null>(null);
  // Another type's settings replace the fields as it renders (an effect run later would
  // overwrite what someone typed in between).
  const [shownType, setShownType] = React.useState(type?.name);
  if (type?.name !== shownType) {
    setShownType(type?.name);
    setValues(type ? initialSettings(type.settings_schema) : {});
  }

  async function add(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!type) return;
    setError(null);
    setProblems([]);
    try {
      const { channel } = await api<{ channel: Channel }>("/api/channels", { body: { type: type.name, label, kin_ids: kinIds, settings: settingsToCreate(values) } });
      setLabel("");
      setKinIds([]);
      setValues(initialSettings(type.settings_schema)); // the token leaves the page once saved
      onAdded(channel);
    } catch (caught) {
      setProblems(fieldProblems(caught));
      setError(errorText(t, caught));
    }
  }

  return (
    <Card className="min-w-0 shadow-none">
      <CardHeader className="pb-2">
        <CardTitle className="text-base">{t("channels.add")}</CardTitle>
      </CardHeader>
      <CardContent>
        {type === null ? (
          <p className="text-sm text-muted-foreground">{t("channels.noTypes")}</p>
        ) : (
          <form className="flex flex-col gap-4" onSubmit={(event) => void add(event)} aria-label={t("channels.add")}>
            <Field label={t("channels.type")} htmlFor="channel-type">
              <NativeSelect id="channel-type" value={type.name} onChange={(event) => setTypeName(event.target.value)}>
                {types.map((candidate) => (
                  <option key={candidate.name} value={candidate.name}>
                    {t(`channels.kind.${candidate.name}`, { defaultValue: candidate.label })}
                  </option>
                ))}
              </NativeSelect>
            </Field>
            <Field label={t("channels.label")} htmlFor="channel-label" hint={t("channels.labelHint")}>
              <Input id="channel-label" value={label} onChange={(event) => setLabel(event.target.value)} required maxLength={100} />
            </Field>
            <KinChoice kins={kins} value={kinIds} onChange={setKinIds} />
            <SchemaForm schema={type.settings_schema} value={values} onChange={setValues} problems={problems} />
            {error ? (
              <p className="text-sm font-medium text-destructive" role="alert">
                {error}
              </p>
            ) : null}
            <Button type="submit" className="self-start" disabled={kinIds.length === 0}>
              <PlusIcon /> {t("common.add")}
            </Button>
          </form>
        )}
      </CardContent>
    </Card>
  );
}

/** A connection's name, Kins and settings (a secret is kept unless replaced). */
function EditChannel({ channel, type, kins, onClose, onSaved }: { channel: Channel | null; type: ChannelType | null; kins: Kin[]; onClose: () => void; onSaved: (channel: Channel) => void }) {
  const { t } = useTranslation();
  const [label, setLabel] = React.useState("");
  const [kinIds, setKinIds] = React.useState<string[]>([]);
  const [values, setValues] = React.useState<FormValues>({});
  const [problems, setProblems] = React.useState<FieldProblem[]>([]);
  const [error, setError] = React.useState<string | null>(null);
  React.useEffect(() => {
    setLabel(channel?.label ?? "");
    setKinIds(channel?.kin_ids ?? []);
    setValues(channel?.settings ?? {});
    setProblems([]);
    setError(null);
  }, [channel]);

  async function save(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!channel) return;
    try {
      const saved = await api<{ channel: Channel }>(`/api/channels/${channel.id}`, { method: "PATCH", body: { label, kin_ids: kinIds, settings: values } });
      onSaved(saved.channel);
    } catch (caught) {
      setProblems(fieldProblems(caught));
      setError(errorText(t, caught));
    }
  }

  return (
    <Dialog open={channel !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent closeLabel={t("common.close")} className="max-h-[90dvh] overflow-y-auto">
        {channel ? (
          <form className="flex flex-col gap-4" onSubmit={(event) => void save(event)}>
            <DialogHeader>
              <DialogTitle>{t("channels.edit", { name: channel.label })}</DialogTitle>
              <DialogDescription>{t("channels.editHint")}</DialogDescription>
            </DialogHeader>
            <Field label={t("channels.label")} htmlFor="edit-channel-label">
              <Input id="edit-channel-label" value={label} onChange={(event) => setLabel(event.target.value)} required maxLength={100} />
            </Field>
            <KinChoice kins={kins} value={kinIds} onChange={setKinIds} />
            {type ? <SchemaForm schema={type.settings_schema} value={values} onChange={setValues} problems={problems} /> : null}
            {error ? (
              <p className="text-sm font-medium text-destructive" role="alert">
                {error}
              </p>
            ) : null}
            <DialogFooter>
              <DialogClose asChild>
                <Button type="button" variant="ghost">
                  {t("common.cancel")}
                </Button>
              </DialogClose>
              <Button type="submit" disabled={kinIds.length === 0}>
                {t("common.save")}
              </Button>
            </DialogFooter>
          </form>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}
