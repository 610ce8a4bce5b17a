import { Link2Icon, Trash2Icon, UserRoundIcon, XIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { ConfirmDelete } from "@/components/app/confirm-delete";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Field } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { when, type Channel, type ChannelContact, type ChannelIdentity, type Pairing } from "@/lib/channels";
import { errorText } from "@/lib/errors";
import { formatRelative } from "@/lib/format";
import type { Kin, User } from "@/lib/types";

const REFRESH_MS = 5000;

/** Settings → Channels, below the connections: the people waiting to be linked (linked to a
 * member or a Kin's contact, or dismissed) and every linked account (unlinked at will). */
export function ChannelPeople({ channels, kins }: { channels: Channel[]; kins: Kin[] }) {
  const { t, i18n } = useTranslation();
  const { toast } = useToast();
  const [pairings, setPairings] = React.useState<Pairing[]>([]);
  const [identities, setIdentities] = React.useState<ChannelIdentity[]>([]);
  const [users, setUsers] = React.useState<User[]>([]);
  const [linking, setLinking] = React.useState<Pairing | null>(null);
  const [unlinking, setUnlinking] = React.useState<ChannelIdentity | null>(null);
  const linkedHeading = React.useRef<HTMLHeadingElement>(null);
  const reload = React.useCallback(() => {
    void api<{ pairings: Pairing[] }>("/api/channels/pairings").then(({ pairings: found }) => setPairings(found)).catch(() => undefined);
    void api<{ identities: ChannelIdentity[] }>("/api/channels/identities").then(({ identities: found }) => setIdentities(found)).catch(() => undefined);
  }, []);
  React.useEffect(() => {
    void api<{ users: User[] }>("/api/users").then(({ users: found }) => setUsers(found.filter((user) => user.is_active)));
    reload();
    const timer = window.setInterval(reload, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [reload]);

  async function act(action: () => Promise<unknown>, done: string) {
    try {
      await action();
      toast({ title: done, tone: "success" });
    } catch (caught) {
      toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" });
    }
    reload();
  }

  const kinName = (id: string | null) => kins.find((kin) => kin.id === id)?.name ?? "";
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <section className="flex min-w-0 flex-col gap-2" aria-labelledby="channels-waiting">
        <h2 id="channels-waiting" className="text-base font-semibold">
          {t("channels.waiting")}
        </h2>
        <ul className="flex flex-col gap-2">
          {pairings.length === 0 ? <li className="text-sm text-muted-foreground">{t("channels.noneWaiting")}</li> : null}
          {pairings.map((pairing) => (
            <li key={pairing.id} className="flex items-center gap-3 rounded-xl bg-muted px-3 py-2" data-pairing={pairing.display_name}>
              <UserRoundIcon className="size-4 shrink-0 text-muted-foreground" aria-hidden />
              <div className="min-w-0 flex-1">
                <p className="truncate text-sm font-semibold">{pairing.display_name}</p>
                <p className="truncate text-xs text-muted-foreground">
                  {t("channels.waitingSince", { channel: pairing.connection_label, when: formatRelative(when(pairing.created_at), i18n.language) })}
                </p>
              </div>
              <Button size="sm" variant="outline" onClick={() => setLinking(pairing)}>
                <Link2Icon /> {t("channels.link")}
              </Button>
              <Button variant="ghost" size="icon-sm" aria-label={t("channels.dismissLabel", { name: pairing.display_name })} onClick={() => void act(() => api(`/api/channels/pairings/${pairing.id}`, { method: "DELETE" }), t("channels.dismiss"))}>
                <XIcon />
              </Button>
            </li>
          ))}
        </ul>
      </section>
      <section className="flex min-w-0 flex-col gap-2" aria-labelledby="channels-linked">
        <h2 id="channels-linked" ref={linkedHeading} tabIndex={-1} className="text-base font-semibold">
          {t("channels.linked")}
        </h2>
        <ul className="flex flex-col gap-2">
          {identities.length === 0 ? <li className="text-sm text-muted-foreground">{t("channels.noneLinked")}</li> : null}
          {identities.map((identity) => (
            <li key={identity.id} className="flex items-center gap-3 rounded-xl bg-muted px-3 py-2" data-identity={identity.display_name}>
              <Link2Icon className="size-4 shrink-0 text-muted-foreground" aria-hidden />
              <p className="min-w-0 flex-1 text-sm break-words">
                {t("channels.linkedAs", {
                  account: identity.display_name,
                  channel: identity.connection_label,
                  who: identity.user_name ?? t("channels.contactOf", { contact: identity.contact_name ?? "", kin: kinName(identity.kin_id) }),
                })}
              </p>
              <Button variant="ghost" size="icon-sm" aria-label={t("channels.unlink", { name: identity.display_name })} onClick={() => setUnlinking(identity)}>
                <Trash2Icon />
              </Button>
            </li>
          ))}
        </ul>
      </section>
      <LinkPairing pairing={linking} channel={channels.find((channel) => channel.id === linking?.connection_id) ?? null} users={users} kins={kins} onClose={() => setLinking(null)} onLinked={() => { setLinking(null); reload(); toast({ title: t("channels.done"), tone: "success" }); }} />
      <ConfirmDelete
        target={unlinking}
        title={unlinking ? t("channels.unlink", { name: unlinking.display_name }) : ""}
        description={unlinking ? t("channels.unlinkHint", { account: unlinking.display_name, channel: unlinking.connection_label }) : ""}
        confirmLabel={t("channels.unlinkAction")}
        focusAfterDelete={linkedHeading}
        onClose={() => setUnlinking(null)}
        onConfirm={(identity) => void act(() => api(`/api/channels/identities/${identity.id}`, { method: "DELETE" }), t("channels.unlinked"))}
      />
    </div>
  );
}

/** Linking a waiting sender: to a member, or to a contact (existing or new) of one of the
 * Kins the connection talks to. */
function LinkPairing({ pairing, channel, users, kins, onClose, onLinked }: { pairing: Pairing | null; channel: Channel | null; users: User[]; kins: Kin[]; onClose: () => void; onLinked: () => void }) {
  const { t } = useTranslation();
  const [target, setTarget] = React.useState<"member" | "contact">("member");
  const [userId, setUserId] = React.useState("");
  const [kinId, setKinId] = React.useState("");
  const [contactId, setContactId] = React.useState("");
  const [contacts, setContacts] = React.useState<ChannelContact[]>([]);
  const [error, setError] = React.useState<string | null>(null);
  const bound = kins.filter((kin) => channel?.kin_ids.includes(kin.id));
  const chosenKin = bound.some((kin) => kin.id === kinId) ? kinId : (bound[0]?.id ?? "");
  const pairingId = pairing?.id;
  const channelId = channel?.id;
  // Only opening the dialog for a sender starts it afresh: the page's lists come again every
  // few seconds, and what the administrator chose must survive them. No member is chosen
  // for them: linking someone as the wrong person gives them that person's Kins.
  React.useEffect(() => {
    setTarget("member");
    setUserId("");
    setKinId("");
    setContactId("");
    setError(null);
    setContacts([]);
    if (channelId) void api<{ contacts: ChannelContact[] }>(`/api/channels/${channelId}/contacts`).then(({ contacts: found }) => setContacts(found));
  }, [pairingId, channelId]);

  async function link(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!pairing) return;
    const body = target === "member" ? { user_id: userId } : { kin_id: chosenKin, ...(contactId ? { contact_id: contactId } : {}) };
    try {
      await api(`/api/channels/pairings/${pairing.id}/link`, { body });
      onLinked();
    } catch (caught) {
      setError(errorText(t, caught));
    }
  }

  return (
    <Dialog open={pairing !== null} onOpenChange={(open) => !open && onClose()}>
      <DialogContent closeLabel={t("common.close")}>
        {pairing ? (
          <form className="flex flex-col gap-4" onSubmit={(event) => void link(event)}>
            <DialogHeader>
              <DialogTitle>{t("channels.linkTitle", { name: pairing.display_name })}</DialogTitle>
              <DialogDescription>{t("channels.linkHint")}</DialogDescription>
            </DialogHeader>
            <Field label={t("channels.linkTo")} htmlFor="link-target">
              <NativeSelect id="link-target" value={target} onChange={(event) => setTarget(event.target.value as "member" | "contact")}>
                <option value="member">{t("channels.toMember")}</option>
                <option value="contact">{t("channels.toContact")}</option>
              </NativeSelect>
            </Field>
            {target === "member" ? (
              <Field label={t("channels.member")} htmlFor="link-user">
                <NativeSelect id="link-user" value={userId} required onChange={(event) => setUserId(event.target.value)}>
                  <option value="" disabled>
                    {t("channels.chooseMember")}
                  </option>
                  {users.map((user) => (
                    <option key={user.id} value={user.id}>
                      {user.pseudonym} ({user.first_name} {user.last_name})
                    </option>
                  ))}
                </NativeSelect>
              </Field>
            ) : (
              <>
                <Field label={t("channels.kin")} htmlFor="link-kin">
                  <NativeSelect id="link-kin" value={chosenKin} onChange={(event) => { setKinId(event.target.value); setContactId(""); }}>
                    {bound.map((kin) => (
                      <option key={kin.id} value={kin.id}>
                        {kin.name}
                      </option>
                    ))}
                  </NativeSelect>
                </Field>
                <Field label={t("channels.contact")} htmlFor="link-contact">
                  <NativeSelect id="link-contact" value={contactId} onChange={(event) => setContactId(event.target.value)}>
                    <option value="">{t("channels.newContact", { name: pairing.display_name })}</option>
                    {contacts
                      .filter((contact) => contact.kin_id === chosenKin)
                      .map((contact) => (
                        <option key={contact.id} value={contact.id}>
                          {contact.name}
                        </option>
                      ))}
                  </NativeSelect>
                </Field>
              </>
            )}
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
              <Button type="submit" disabled={target === "member" ? !userId : !chosenKin}>
                {t("channels.link")}
              </Button>
            </DialogFooter>
          </form>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}
