import { Link2Icon, Trash2Icon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { ConfirmDelete } from "@/components/app/confirm-delete";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Field, Input } from "@/components/ui/input";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import type { ChannelIdentity } from "@/lib/channels";
import { errorText } from "@/lib/errors";

/** My account → Link a messaging account: enter the code the family's bot sent, see one's
 * linked accounts and unlink one (once confirmed: a new code is needed to link it again). */
export function MyChannelAccounts() {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [accounts, setAccounts] = React.useState<ChannelIdentity[]>([]);
  const [code, setCode] = React.useState("");
  const [error, setError] = React.useState<string | null>(null);
  const [unlinking, setUnlinking] = React.useState<ChannelIdentity | null>(null);
  const codeField = React.useRef<HTMLInputElement>(null);
  const reload = React.useCallback(() => void api<{ identities: ChannelIdentity[] }>("/api/me/channel-identities").then(({ identities }) => setAccounts(identities)), []);
  React.useEffect(reload, [reload]);

  async function link(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    try {
      const { identity } = await api<{ identity: ChannelIdentity }>("/api/me/channel-identities", { body: { code } });
      setCode("");
      toast({ title: t("channels.mine.linked", { name: identity.display_name }), tone: "success" });
      reload();
    } catch (caught) {
      setError(errorText(t, caught));
    }
  }

  async function unlink(account: ChannelIdentity) {
    try {
      await api(`/api/me/channel-identities/${account.id}`, { method: "DELETE" });
      toast({ title: t("channels.mine.removed"), tone: "success" });
    } catch (caught) {
      toast({ title: t("errors.generic"), description: errorText(t, caught), tone: "error" });
    }
    reload();
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>{t("channels.mine.title")}</CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        <p className="text-sm text-muted-foreground">{t("channels.mine.intro")}</p>
        <form onSubmit={(event) => void link(event)} className="flex flex-col gap-3">
          <Field label={t("channels.mine.code")} htmlFor="pairing-code" hint={t("channels.mine.codeHint")} error={error ?? undefined}>
            <Input ref={codeField} id="pairing-code" value={code} onChange={(event) => setCode(event.target.value)} required maxLength={32} autoComplete="one-time-code" autoCapitalize="characters" spellCheck={false} />
          </Field>
          <Button type="submit" variant="secondary" className="self-start">
            {t("channels.mine.submit")}
          </Button>
        </form>
        <section aria-labelledby="my-channel-accounts" className="flex flex-col gap-2">
          <h3 id="my-channel-accounts" className="text-sm font-medium">
            {t("channels.mine.accounts")}
          </h3>
          <ul className="flex flex-col gap-2">
            {accounts.length === 0 ? <li className="text-sm text-muted-foreground">{t("channels.mine.none")}</li> : null}
            {accounts.map((account) => (
              <li key={account.id} className="flex items-center gap-3 rounded-xl bg-muted px-3 py-2" data-my-account={account.display_name}>
                <Link2Icon className="size-4 shrink-0 text-muted-foreground" aria-hidden />
                <span className="min-w-0 flex-1 truncate text-sm">{t("channels.mine.on", { account: account.display_name, channel: account.connection_label })}</span>
                <Button type="button" variant="ghost" size="icon-sm" aria-label={t("channels.mine.remove", { name: account.display_name })} onClick={() => setUnlinking(account)}>
                  <Trash2Icon />
                </Button>
              </li>
            ))}
          </ul>
        </section>
      </CardContent>
      <ConfirmDelete
        target={unlinking}
        title={unlinking ? t("channels.mine.remove", { name: unlinking.display_name }) : ""}
        description={unlinking ? t("channels.mine.removeHint", { account: unlinking.display_name, channel: unlinking.connection_label }) : ""}
        confirmLabel={t("channels.unlinkAction")}
        focusAfterDelete={codeField}
        onClose={() => setUnlinking(null)}
        onConfirm={(account) => void unlink(account)}
      />
    </Card>
  );
}
