import * as React from "react";
import { useTranslation } from "react-i18next";

import { KinAccessCard, KinLock } from "@/components/app/kin-access";
import { Button } from "@/components/ui/button";
import { api } from "@/lib/api";
import type { KinAccessLevel, User } from "@/lib/types";

interface KinAccessRow {
  id: string;
  name: string;
  access: KinAccessLevel;
  members: string[];
}

/**
 * Settings → Kin access (`GET /api/kin-access`): every Kin's name and who can use it, including
 * the Kins restricted to other people, so that an administrator can always fix a mistake.
 */
export function KinAccessAdmin({ me }: { me: User }) {
  const { t, i18n } = useTranslation();
  const [rows, setRows] = React.useState<KinAccessRow[]>([]);
  const [editing, setEditing] = React.useState<string | null>(null);
  const [names, setNames] = React.useState<Map<string, string>>(new Map());
  const reload = React.useCallback(() => {
    api<{ kins: KinAccessRow[] }>("/api/kin-access").then(({ kins }) => setRows(kins), () => setRows([]));
    api<{ members: { id: string; display_name: string }[] }>("/api/members").then(
      ({ members }) => setNames(new Map(members.map((member) => [member.id, member.display_name]))),
      () => setNames(new Map()),
    );
  }, []);
  const who = (row: KinAccessRow): string => {
    const people = row.members.map((id) => names.get(id)).filter((name): name is string => Boolean(name));
    if (row.access === "everyone" || people.length === 0) return t(`kinAccess.${row.access}`);
    return t("kinAccess.onlyPeople", { names: new Intl.ListFormat(i18n.language, { type: "conjunction" }).format(people) });
  };
  React.useEffect(reload, [reload]);

  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-muted-foreground">{t("kinAccess.adminIntro")}</p>
      <ul className="flex flex-col gap-2" aria-label={t("kinAccess.adminTab")}>
        {rows.map((row) => (
          <li key={row.id} aria-label={row.name} className="flex flex-col gap-2 rounded-xl border border-border/70 bg-card px-4 py-3">
            <div className="flex items-center gap-2 text-sm">
              <span className="font-semibold">{row.name}</span>
              <KinLock kin={row} />
              <span className="flex-1 text-muted-foreground">{who(row)}</span>
              <Button variant="ghost" size="sm" onClick={() => setEditing(editing === row.id ? null : row.id)}>
                {t("kinAccess.change")}
              </Button>
            </div>
            {editing === row.id ? (
              <KinAccessCard
                kin={{ id: row.id, name: row.name, created_by: null }}
                user={me}
                onChange={() => reload()}
              />
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
