import { CopyIcon, MailPlusIcon, Trash2Icon, XIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Avatar } from "@/components/ui/avatar";
import { Badge } from "@/components/ui/badge";
import { ConfirmDelete } from "@/components/app/confirm-delete";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Switch } from "@/components/ui/switch";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { formatDateTime } from "@/lib/format";
import { errorText } from "@/lib/errors";
import type { User } from "@/lib/types";

interface Invitation {
  id: string;
  role: "admin" | "member";
  note: string | null;
  created_at: number;
  expires_at: number;
  status: "pending" | "used" | "revoked" | "expired";
}

function useFail() {
  const { toast } = useToast();
  const { t } = useTranslation();
  return React.useCallback((error: unknown) => toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" }), [toast, t]);
}

/** Every account: role, enabled or not, removal (the API refuses to leave no administrator). */
function Users({ me }: { me: User }) {
  const { t } = useTranslation();
  const fail = useFail();
  const [users, setUsers] = React.useState<User[]>([]);
  const [removing, setRemoving] = React.useState<User | null>(null);
  const list = React.useRef<HTMLUListElement>(null);
  const load = React.useCallback(() => void api<{ users: User[] }>("/api/users").then(({ users: found }) => setUsers(found)).catch(fail), [fail]);
  React.useEffect(load, [load]);

  async function act(request: () => Promise<unknown>) {
    try {
      await request();
    } catch (error) {
      fail(error);
    }
    load();
  }
  const patch = (user: User, body: Record<string, unknown>) => act(() => api(`/api/users/${user.id}`, { method: "PATCH", body }));

  return (
    <>
      <ul ref={list} tabIndex={-1} className="flex flex-col gap-2" aria-label={t("users.people")}>
        {users.map((user) => {
          const name = `${user.first_name} ${user.last_name}`.trim() || user.pseudonym;
          return (
            <li key={user.id} aria-label={name} className="flex flex-wrap items-center gap-3 rounded-xl border border-border/70 bg-card px-4 py-3">
              <Avatar name={user.pseudonym || user.first_name} src={user.avatar_url} size="sm" />
              {/* Room for the name before the controls: on a phone, they go to a line below. */}
              <div className="min-w-0 flex-1 basis-44">
                <p className="truncate font-semibold">
                  {name} {user.id === me.id ? <span className="font-normal text-muted-foreground">({t("chat.you")})</span> : null}
                </p>
                <p className="truncate text-xs text-muted-foreground">{user.email}</p>
              </div>
              {user.is_active ? null : <Badge variant="outline">{t("settings.disabled")}</Badge>}
              <NativeSelect aria-label={t("users.roleOf", { name })} value={user.role} disabled={user.id === me.id} onChange={(event) => void patch(user, { role: event.target.value })} className="w-40">
                <option value="member">{t("users.member")}</option>
                <option value="admin">{t("users.admin")}</option>
              </NativeSelect>
              <Switch checked={user.is_active} disabled={user.id === me.id} onCheckedChange={(active) => void patch(user, { is_active: active })} aria-label={t("users.activeOf", { name })} />
              <Button variant="ghost" size="icon-sm" disabled={user.id === me.id} aria-label={t("users.remove", { name })} onClick={() => setRemoving(user)}>
                <Trash2Icon />
              </Button>
            </li>
          );
        })}
      </ul>
      <ConfirmDelete
        target={removing}
        title={t("users.remove", { name: removing?.pseudonym ?? "" })}
        description={t("users.removeConfirm", { name: removing?.pseudonym ?? "" })}
        focusAfterDelete={list}
        onClose={() => setRemoving(null)}
        onConfirm={(target) => void act(() => api(`/api/users/${target.id}`, { method: "DELETE" }))}
      />
    </>
  );
}

/** Invitations: create one (its code and link shown once), list them, revoke a pending one. */
function Invitations() {
  const { t } = useTranslation();
  const fail = useFail();
  const { toast } = useToast();
  const [invitations, setInvitations] = React.useState<Invitation[]>([]);
  const [role, setRole] = React.useState<"member" | "admin">("member");
  const [note, setNote] = React.useState("");
  const [created, setCreated] = React.useState<{ code: string; link: string } | null>(null);
  const load = React.useCallback(() => void api<{ invitations: Invitation[] }>("/api/invitations").then(({ invitations: found }) => setInvitations(found)).catch(fail), [fail]);
  React.useEffect(load, [load]);

  async function create(event: React.FormEvent) {
    event.preventDefault();
    try {
      const answer = await api<{ code: string; link: string }>("/api/invitations", { method: "POST", body: { role, note: note.trim() || null } });
      setCreated({ code: answer.code, link: answer.link });
      setNote("");
    } catch (error) {
      fail(error);
    }
    load();
  }

  async function revoke(invitation: Invitation) {
    try {
      await api(`/api/invitations/${invitation.id}`, { method: "DELETE" });
    } catch (error) {
      fail(error);
    }
    load();
  }

  return (
    <div className="flex flex-col gap-4">
      <form onSubmit={(event) => void create(event)} className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <Field label={t("users.role")} htmlFor="invite-role">
          <NativeSelect id="invite-role" value={role} onChange={(event) => setRole(event.target.value as "member" | "admin")}>
            <option value="member">{t("users.member")}</option>
            <option value="admin">{t("users.admin")}</option>
          </NativeSelect>
        </Field>
        <div className="flex-1">
          <Field label={t("users.note")} htmlFor="invite-note">
            <Input id="invite-note" value={note} onChange={(event) => setNote(event.target.value)} placeholder={t("users.notePlaceholder")} maxLength={200} />
          </Field>
        </div>
        <Button type="submit">
          <MailPlusIcon /> {t("users.invite")}
        </Button>
      </form>
      {created ? (
        <section role="status" aria-label={t("users.codeTitle")} className="flex flex-col gap-2 rounded-2xl border border-primary/40 bg-primary/10 px-4 py-3 text-sm" data-invitation-code>
          <p className="font-semibold">{t("users.codeTitle")}</p>
          <p className="text-muted-foreground">{t("users.codeOnce")}</p>
          <code className="rounded-lg bg-card px-2 py-1 font-mono text-sm break-all">{created.link}</code>
          <div className="flex flex-wrap gap-2">
            <Button
              size="sm"
              variant="outline"
              onClick={() =>
                void navigator.clipboard?.writeText(created.link).then(
                  () => toast({ title: t("users.copied"), tone: "success" }),
                  () => undefined,
                )
              }
            >
              <CopyIcon /> {t("users.copy")}
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setCreated(null)}>
              <XIcon /> {t("common.close")}
            </Button>
          </div>
        </section>
      ) : null}
      {invitations.length === 0 ? <p className="text-sm text-muted-foreground">{t("users.noInvitations")}</p> : null}
      <ul className="flex flex-col gap-2" aria-label={t("users.invitations")}>
        {invitations.map((invitation) => (
          <li key={invitation.id} className="flex flex-wrap items-center gap-2 rounded-xl border border-border/70 bg-card px-4 py-2.5 text-sm" data-invitation={invitation.id}>
            <span className="min-w-0 flex-1 truncate">{invitation.note || t(`users.${invitation.role}`)}</span>
            <Badge variant="secondary">{t(`users.${invitation.role}`)}</Badge>
            <Badge variant={invitation.status === "pending" ? "success" : "outline"}>{t(`users.status.${invitation.status}`)}</Badge>
            <span className="text-xs text-muted-foreground">{t("users.expires", { date: formatDateTime(invitation.expires_at) })}</span>
            {invitation.status === "pending" ? (
              <Button size="sm" variant="ghost" onClick={() => void revoke(invitation)}>
                {t("users.revoke")}
              </Button>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Settings › Users: the accounts and the invitations that create new ones. */
export function UsersAdmin({ me }: { me: User }) {
  const { t } = useTranslation();
  return (
    <div className="flex flex-col gap-6">
      <Card>
        <CardHeader>
          <CardTitle>{t("users.people")}</CardTitle>
        </CardHeader>
        <CardContent>
          <Users me={me} />
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>{t("users.invitations")}</CardTitle>
        </CardHeader>
        <CardContent>
          <Invitations />
        </CardContent>
      </Card>
    </div>
  );
}
