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
  const { t } = useTranslation();
  const [rows, setRows] = React.useState<KinAccessRow[]>([]);
  const [editing, setEditing] = React.useState<string | null>(null);
  const reload = React.useCallback(() => {
    api<{ kins: KinAccessRow[] }>("/api/kin-access").then(({ kins }) => setRows(kins), () => setRows([]));
  }, []);
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
              <span className="flex-1 text-muted-foreground">{t(`kinAccess.${row.access}`)}</span>
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
