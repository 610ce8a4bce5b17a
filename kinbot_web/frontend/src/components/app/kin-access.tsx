import { LockIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Card, CardContent, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { useToast } from "@/components/ui/toast";
import { api } from "@/lib/api";
import { errorText } from "@/lib/errors";
import type { Kin, KinAccessLevel, User } from "@/lib/types";

interface Member {
  id: string;
  display_name: string;
}

interface Access {
  access: KinAccessLevel;
  members: string[];
}

const LEVELS: KinAccessLevel[] = ["everyone", "members", "private"];

/** The small lock beside a restricted Kin's name (sidebar, headers). */
export function KinLock({ kin }: { kin: Partial<Pick<Kin, "access">> }) {
  const { t } = useTranslation();
  if (!kin.access || kin.access === "everyone") return null;
  return (
    <LockIcon className="size-3 shrink-0 text-muted-foreground" role="img" aria-label={t("kinAccess.locked")} data-kin-lock={kin.access}>
      <title>{t("kinAccess.locked")}</title>
    </LockIcon>
  );
}

/**
 * "Who can use this Kin" (`PUT /api/kins/:id/access`): everyone, only the members ticked (from
 * `GET /api/members`), or only one person. An administrator sets any of them; the Kin's creator
 * can make it private to themselves and share it again.
 */
export function KinAccessCard({ kin, user, onChange }: { kin: Pick<Kin, "id" | "name" | "created_by">; user: User | null; onChange: (access: KinAccessLevel) => void }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const [members, setMembers] = React.useState<Member[]>([]);
  const [saved, setSaved] = React.useState<Access | null>(null);
  const [level, setLevel] = React.useState<KinAccessLevel>("everyone");
  const [chosen, setChosen] = React.useState<string[]>([]);
  const [busy, setBusy] = React.useState(false);
  const admin = user?.role === "admin";
  const creator = user !== null && user.id === kin.created_by;

  React.useEffect(() => {
    api<{ members: Member[] }>("/api/members").then(({ members: found }) => setMembers(found), () => setMembers([]));
    api<Access>(`/api/kins/${kin.id}/access`).then(
      (found) => {
        setSaved(found);
        setLevel(found.access);
        setChosen(found.members);
      },
      () => setSaved(null),
    );
  }, [kin.id]);

  const allowedLevel = (choice: KinAccessLevel) => admin || (creator && choice !== "members");
  const nameOf = (id: string) => {
    const display = members.find((member) => member.id === id)?.display_name ?? "";
    return id === user?.id ? t("kinAccess.you", { name: display }) : display;
  };
  const privateTo = level === "private" && chosen.length === 1 ? chosen[0] : (user?.id ?? "");
  const excludesMe = user !== null && ((level === "members" && !chosen.includes(user.id)) || (level === "private" && privateTo !== user.id));

  async function save() {
    setBusy(true);
    const body = { access: level, members: level === "members" ? chosen : level === "private" ? [privateTo] : [] };
    try {
      const changed = await api<Access>(`/api/kins/${kin.id}/access`, { method: "PUT", body });
      setSaved(changed);
      setChosen(changed.members);
      onChange(changed.access);
      toast({ title: t("kinAccess.saved"), tone: "success" });
    } catch (error) {
      toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" });
    } finally {
      setBusy(false);
    }
  }

  if (saved === null) return null;
  const hint = { everyone: t("kinAccess.everyoneHint"), members: t("kinAccess.membersHint"), private: t("kinAccess.privateHint") }[level];
  return (
    <Card data-kin-access={saved.access}>
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-base">
          <LockIcon className="size-4" aria-hidden /> {t("kinAccess.title")}
        </CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-3 text-sm">
        <fieldset className="flex flex-col gap-2">
          <legend className="sr-only">{t("kinAccess.title")}</legend>
          {LEVELS.map((choice) => (
            <label key={choice} className="flex items-center gap-2">
              <input
                type="radio"
                name="kin_access"
                value={choice}
                checked={level === choice}
                disabled={!allowedLevel(choice)}
                onChange={() => {
                  setLevel(choice);
                  if (choice === "members" && chosen.length === 0 && user) setChosen([user.id]);
                }}
                className="size-4 accent-(--link)"
              />
              {choice === "private" && admin && saved.access === "private" && saved.members[0] !== user?.id
                ? t("kinAccess.privateTo", { name: nameOf(saved.members[0] ?? "") })
                : t(`kinAccess.${choice}`)}
            </label>
          ))}
        </fieldset>
        <p className="text-muted-foreground">{hint}</p>
        {level === "members" ? (
          <fieldset className="flex flex-col gap-2 rounded-xl border border-border/70 px-3 py-2">
            <legend className="px-1 text-xs text-muted-foreground">{t("kinAccess.membersLabel", { name: kin.name })}</legend>
            {members.map((member) => (
              <label key={member.id} className="flex items-center gap-2">
                <input
                  type="checkbox"
                  name="kin_member"
                  value={member.id}
                  checked={chosen.includes(member.id)}
                  onChange={(event) => setChosen(event.target.checked ? [...chosen, member.id] : chosen.filter((id) => id !== member.id))}
                  className="size-4 accent-(--link)"
                />
                {nameOf(member.id)}
              </label>
            ))}
          </fieldset>
        ) : null}
        {excludesMe ? <p className="text-warning">{t("kinAccess.selfWarning")}</p> : null}
        {admin ? null : <p className="text-muted-foreground">{t("kinAccess.ownerOnly")}</p>}
      </CardContent>
      <CardFooter>
        <Button onClick={() => void save()} disabled={busy || (!admin && !creator) || (level === "members" && chosen.length === 0)}>
          {t("kinAccess.save")}
        </Button>
      </CardFooter>
    </Card>
  );
}
