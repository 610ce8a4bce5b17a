/** Which tools ask a person before a Kin uses them: platform-wide (Settings › Approvals) and
 * for one Kin (its Tools tab). Tools worth asking about come first, marked "Suggested". */

import { ShieldQuestionIcon } from "lucide-react";
import * as React from "react";
import { useTranslation } from "react-i18next";

import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { NativeSelect } from "@/components/ui/native-select";
import { Switch } from "@/components/ui/switch";
import { useToast } from "@/components/ui/toast";
import { api, ApiError } from "@/lib/api";
import { errorText } from "@/lib/errors";
import { readableName } from "@/lib/tool-descriptions";
import type { Kin } from "@/lib/types";

interface ToolEntry {
  name: string;
  description: string;
  source: "native" | "kin";
  suggested: boolean;
}
type Rules = Record<string, "ask" | "allow">;

/** Suggested tools first, then the others, each group by name. */
function grouped(tools: ToolEntry[]): [ToolEntry[], ToolEntry[]] {
  const sorted = [...tools].sort((a, b) => a.name.localeCompare(b.name));
  return [sorted.filter((tool) => tool.suggested), sorted.filter((tool) => !tool.suggested)];
}

function useFail() {
  const { t } = useTranslation();
  const { toast } = useToast();
  return React.useCallback((error: unknown) => toast({ title: t("errors.generic"), description: errorText(t, error), tone: "error" }), [toast, t]);
}

/** Set one rule (`mode` null: remove it); the rules after it, or `undefined` after telling the error. */
async function saveRule(path: string, mode: string | null, fail: (error: unknown) => void): Promise<Rules | undefined> {
  try {
    return (await api<{ rules: Rules }>(path, { method: "PUT", body: { mode } })).rules;
  } catch (error) {
    fail(error);
    return undefined;
  }
}

/** The frame of a list of rules: its title with the shield, and what it is for. */
function RulesCard({ title, hint, children }: { title: string; hint: string; children: React.ReactNode }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <ShieldQuestionIcon className="size-4.5" aria-hidden /> {title}
        </CardTitle>
        <CardDescription>{hint}</CardDescription>
      </CardHeader>
      <CardContent>{children}</CardContent>
    </Card>
  );
}

/** A tool's name and description for a person: a built-in tool's own translated words (also
 * web_search and generate_image, which built-in plugins offer per Kin), any other tool (an MCP
 * server's, a custom one) its name made readable and its own description. */
function useToolWords(): (tool: ToolEntry) => { label: string; description: string } {
  const { t, i18n } = useTranslation();
  return React.useCallback(
    (tool: ToolEntry) =>
      i18n.exists(`toolNames.${tool.name}.label`)
        ? { label: t(`toolNames.${tool.name}.label`), description: t(`toolNames.${tool.name}.description`) }
        : { label: readableName(tool.name), description: tool.description },
    [t, i18n],
  );
}

/** One tool's line: its name in words, its description, and the control. */
function ToolLine({ tool, children }: { tool: ToolEntry; children: React.ReactNode }) {
  const { t, i18n } = useTranslation();
  const words = useToolWords()(tool);
  // A built-in plugin's tool offered per Kin (generate_image, web_search) is built in too.
  const builtIn = tool.source === "native" || i18n.exists(`toolNames.${tool.name}.label`);
  return (
    <li className="flex flex-wrap items-center gap-3 rounded-xl border border-border/70 bg-card px-4 py-3" data-approval-tool={tool.name}>
      {/* Room for the words before the control: on a phone, it goes to a line below. */}
      <div className="min-w-0 flex-1 basis-56">
        <p className="font-semibold first-letter:uppercase">{words.label}</p>
        <p className="mt-0.5 text-xs break-words text-muted-foreground">{words.description}</p>
        <p className="mt-0.5 text-xs text-muted-foreground">{builtIn ? t("approvals.rules.builtIn") : t("approvals.rules.kinTool")}</p>
      </div>
      {children}
    </li>
  );
}

function ToolGroups({ tools, render }: { tools: ToolEntry[]; render: (tool: ToolEntry) => React.ReactNode }) {
  const { t } = useTranslation();
  const [suggested, others] = grouped(tools);
  if (tools.length === 0) return <p className="text-sm text-muted-foreground">{t("approvals.rules.none")}</p>;
  return (
    <div className="flex flex-col gap-4">
      {suggested.length ? (
        <section className="flex flex-col gap-2">
          <h3 className="flex items-center gap-2 text-sm font-semibold">
            <Badge variant="secondary">{t("approvals.rules.suggested")}</Badge>
            <span className="font-normal text-muted-foreground">{t("approvals.rules.suggestedHint")}</span>
          </h3>
          <ul className="flex flex-col gap-2" aria-label={t("approvals.rules.suggested")}>
            {suggested.map(render)}
          </ul>
        </section>
      ) : null}
      {others.length ? (
        <section className="flex flex-col gap-2">
          <h3 className="text-sm font-semibold">{t("approvals.rules.others")}</h3>
          <ul className="flex flex-col gap-2" aria-label={t("approvals.rules.others")}>
            {others.map(render)}
          </ul>
        </section>
      ) : null}
    </div>
  );
}

/** Settings › Approvals: the tools every Kin asks about first. */
export function PlatformApprovalRules() {
  const { t } = useTranslation();
  const toolWords = useToolWords();
  const fail = useFail();
  const [data, setData] = React.useState<{ rules: Rules; tools: ToolEntry[] } | null>(null);
  React.useEffect(() => {
    api<{ rules: Rules; tools: ToolEntry[] }>("/api/approval-rules").then(setData).catch(fail);
  }, [fail]);

  async function toggle(tool: ToolEntry, ask: boolean) {
    const rules = await saveRule(`/api/approval-rules/${encodeURIComponent(tool.name)}`, ask ? "ask" : null, fail);
    if (rules) setData((value) => (value ? { ...value, rules } : value));
  }

  return (
    <RulesCard title={t("approvals.rules.title")} hint={t("approvals.rules.hint")}>
        {data ? (
          <ToolGroups
            tools={data.tools}
            render={(tool) => (
              <ToolLine key={tool.name} tool={tool}>
                <Switch checked={data.rules[tool.name] === "ask"} onCheckedChange={(on) => void toggle(tool, on)} aria-label={t("approvals.rules.askFor", { tool: toolWords(tool).label })} />
              </ToolLine>
            )}
          />
        ) : null}
    </RulesCard>
  );
}

/** A Kin's Tools tab: which tools it asks about (its own rule, or the platform-wide one); administrators only. */
export function KinApprovalRules({ kin }: { kin: Kin }) {
  const { t } = useTranslation();
  const toolWords = useToolWords();
  const fail = useFail();
  const [data, setData] = React.useState<{ rules: Rules; platform_rules: Rules; tools: ToolEntry[] } | null>(null);
  const [hidden, setHidden] = React.useState(false);
  React.useEffect(() => {
    api<{ rules: Rules; platform_rules: Rules; tools: ToolEntry[] }>(`/api/kins/${kin.id}/approval-rules`)
      .then(setData)
      .catch((error: unknown) => (error instanceof ApiError && error.status === 403 ? setHidden(true) : fail(error)));
  }, [kin.id, fail]);
  if (hidden) return null;

  async function choose(tool: ToolEntry, mode: string) {
    const rules = await saveRule(`/api/kins/${kin.id}/approval-rules/${encodeURIComponent(tool.name)}`, mode || null, fail);
    if (rules) setData((value) => (value ? { ...value, rules } : value));
  }

  return (
    <RulesCard title={t("approvals.rules.kinTitle")} hint={t("approvals.rules.kinHint", { kin: kin.name })}>
        {data ? (
          <ToolGroups
            tools={data.tools}
            render={(tool) => (
              <ToolLine key={tool.name} tool={tool}>
                <NativeSelect className="w-56 max-w-full" value={data.rules[tool.name] ?? ""} onChange={(event) => void choose(tool, event.target.value)} aria-label={t("approvals.rules.modeFor", { tool: toolWords(tool).label })}>
                  <option value="">{data.platform_rules[tool.name] === "ask" ? t("approvals.rules.inheritAsk") : t("approvals.rules.inherit")}</option>
                  <option value="ask">{t("approvals.rules.ask")}</option>
                  <option value="allow">{t("approvals.rules.allow")}</option>
                </NativeSelect>
              </ToolLine>
            )}
          />
        ) : null}
    </RulesCard>
  );
}
