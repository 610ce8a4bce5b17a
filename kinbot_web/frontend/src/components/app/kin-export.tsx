import { DownloadIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import type { Kin } from "@/lib/types";

/** A Kin's settings, profile tab: download the Kin as one file (`GET /api/kins/<id>/export`, sent with the session cookie). */
export function KinExport({ kin }: { kin: Kin }) {
  const { t } = useTranslation();
  return (
    <Card className="mt-4">
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-base">
          <DownloadIcon className="size-4" aria-hidden /> {t("kinFiles.exportTitle")}
        </CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col items-start gap-3 text-sm">
        <p className="text-muted-foreground">{t("kinFiles.exportHint", { name: kin.name })}</p>
        <Button asChild variant="secondary">
          <a href={`/api/kins/${encodeURIComponent(kin.id)}/export`} download>
            {t("kinFiles.exportButton")}
          </a>
        </Button>
      </CardContent>
    </Card>
  );
}
