import { MoonIcon, SunIcon } from "lucide-react";
import { useTranslation } from "react-i18next";

import { Button } from "@/components/ui/button";

import { useTheme } from "./theme";

/** A button switching between light and dark. */
export function ThemeToggle() {
  const { dark, setChoice } = useTheme();
  const { t } = useTranslation();
  return (
    <Button variant="ghost" size="icon" onClick={() => setChoice(dark ? "light" : "dark")} aria-label={t("theme.toggle")} aria-pressed={dark}>
      {dark ? <SunIcon /> : <MoonIcon />}
    </Button>
  );
}
