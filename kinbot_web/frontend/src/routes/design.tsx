import { BellIcon, CopyIcon, PencilIcon, PlusIcon, SearchIcon, Trash2Icon } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";

import { MessageText, MessageView } from "@/components/chat/message-view";
import { ThemeToggle } from "@/components/theme-toggle";
import { Avatar } from "@/components/ui/avatar";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { ChatBubble, TypingIndicator } from "@/components/ui/chat-bubble";
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle, DialogTrigger } from "@/components/ui/dialog";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuLabel, DropdownMenuSeparator, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { Field, Input } from "@/components/ui/input";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { Textarea } from "@/components/ui/textarea";
import { useToast } from "@/components/ui/toast";
import { cn } from "@/lib/utils";

import { LanguageSwitch } from "./language-switch";
import { sampleCode, sampleKins, sampleMe, sampleMessages } from "./mockups/samples";

const SWATCHES = [
  "background", "card", "muted", "primary", "link", "secondary", "accent", "destructive", "success", "warning", "border",
  "bubble-user", "bubble-kin", "bubble-task", "bubble-cron", "bubble-error",
] as const;

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <section className="flex flex-col gap-3">
      <h3 className="text-sm font-bold tracking-wider text-muted-foreground uppercase">{title}</h3>
      {children}
    </section>
  );
}

/** Every base component once, in the theme of the surrounding `.light` or `.dark` class. */
function Showcase({ theme }: { theme: "light" | "dark" }) {
  const { t } = useTranslation();
  const { toast } = useToast();
  const chef = sampleKins[0];
  return (
    <div className={cn(theme, "flex min-w-0 flex-col gap-8 rounded-3xl bg-background p-4 text-foreground ring-1 ring-border sm:p-6")} data-theme-panel={theme}>
      <h2 className="text-xl font-extrabold">{theme === "light" ? t("theme.light") : t("theme.dark")}</h2>
      <Section title={t("design.colours")}>
        <div className="grid grid-cols-3 gap-2 sm:grid-cols-5">
          {SWATCHES.map((name) => (
            <div key={name} className="flex flex-col gap-1">
              <div className="h-12 rounded-xl ring-1 ring-border" style={{ background: `var(--${name})` }} />
              <code className="text-[0.65rem] text-muted-foreground">{name}</code>
            </div>
          ))}
        </div>
      </Section>
      <Section title={t("design.buttons")}>
        <div className="flex flex-wrap items-center gap-2">
          <Button>
            <PlusIcon /> {t("kin.create")}
          </Button>
          <Button variant="secondary">{t("common.cancel")}</Button>
          <Button variant="outline">{t("common.edit")}</Button>
          <Button variant="ghost">{t("common.skip")}</Button>
          <Button variant="destructive">
            <Trash2Icon /> {t("common.delete")}
          </Button>
          <Button variant="link">{t("common.back")}</Button>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Button size="sm">{t("common.save")}</Button>
          <Button size="lg">{t("common.continue")}</Button>
          <Button size="icon" variant="outline" aria-label={t("common.search")}>
            <SearchIcon />
          </Button>
          <Button disabled>{t("common.loading")}</Button>
        </div>
      </Section>
      <Section title={t("design.inputs")}>
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <Field label={t("onboarding.identity.pseudonym")} htmlFor={`${theme}-pseudo`} hint={t("onboarding.identity.pseudonymHint")}>
            <Input id={`${theme}-pseudo`} defaultValue="Nico" />
          </Field>
          <Field label={t("onboarding.identity.email")} htmlFor={`${theme}-email`} error={t("common.required")}>
            <Input id={`${theme}-email`} type="email" aria-invalid placeholder="nicolas@example.org" />
          </Field>
          <div className="sm:col-span-2">
            <Field label={t("kin.character")} htmlFor={`${theme}-character`}>
              <Textarea id={`${theme}-character`} defaultValue="Warm, brief, and fond of seasonal vegetables." />
            </Field>
          </div>
        </div>
      </Section>
      <Section title={t("design.cards")}>
        <Card>
          <CardHeader>
            <CardTitle>OpenAI</CardTitle>
            <CardDescription>sk-…a1b2 · {t("onboarding.providers.connected")}</CardDescription>
          </CardHeader>
          <CardContent className="flex flex-wrap gap-1.5">
            <Badge variant="success">llm</Badge>
            <Badge variant="success">embedding</Badge>
            <Badge variant="outline">image</Badge>
          </CardContent>
          <CardFooter>
            <Button size="sm" variant="outline">{t("common.test")}</Button>
            <Button size="sm" variant="ghost">{t("common.edit")}</Button>
          </CardFooter>
        </Card>
      </Section>
      <Section title={t("design.overlays")}>
        <div className="flex flex-wrap gap-2">
          <Dialog>
            <DialogTrigger asChild>
              <Button variant="outline">{t("design.openDialog")}</Button>
            </DialogTrigger>
            <DialogContent closeLabel={t("common.close")}>
              <DialogHeader>
                <DialogTitle>{t("design.dialogTitle")}</DialogTitle>
                <DialogDescription>{t("design.dialogBody")}</DialogDescription>
              </DialogHeader>
              <DialogFooter>
                <DialogClose asChild>
                  <Button variant="secondary">{t("common.cancel")}</Button>
                </DialogClose>
                <DialogClose asChild>
                  <Button>{t("common.save")}</Button>
                </DialogClose>
              </DialogFooter>
            </DialogContent>
          </Dialog>
          <DropdownMenu>
            <DropdownMenuTrigger asChild>
              <Button variant="outline">{t("design.openMenu")}</Button>
            </DropdownMenuTrigger>
            <DropdownMenuContent>
              <DropdownMenuLabel>Chef</DropdownMenuLabel>
              <DropdownMenuItem>
                <PencilIcon /> {t("common.edit")}
              </DropdownMenuItem>
              <DropdownMenuItem>
                <CopyIcon /> Copy
              </DropdownMenuItem>
              <DropdownMenuSeparator />
              <DropdownMenuItem destructive>
                <Trash2Icon /> {t("common.delete")}
              </DropdownMenuItem>
            </DropdownMenuContent>
          </DropdownMenu>
          <Button variant="outline" onClick={() => toast({ title: t("design.toastTitle"), description: t("design.toastBody"), tone: "success" })}>
            <BellIcon /> {t("design.showToast")}
          </Button>
        </div>
      </Section>
      <Section title={t("design.tabs")}>
        <Tabs defaultValue="memories">
          <TabsList>
            <TabsTrigger value="memories">Memories</TabsTrigger>
            <TabsTrigger value="crons">Crons</TabsTrigger>
            <TabsTrigger value="tools">Tools</TabsTrigger>
          </TabsList>
          <TabsContent value="memories" className="text-sm text-muted-foreground">Léo does not like spicy food.</TabsContent>
          <TabsContent value="crons" className="text-sm text-muted-foreground">Sunday meal plan · every Sunday at 18:00</TabsContent>
          <TabsContent value="tools" className="text-sm text-muted-foreground">convert_units</TabsContent>
        </Tabs>
      </Section>
      <Section title={t("design.avatars")}>
        <div className="flex flex-wrap items-center gap-3">
          <Avatar name="Nico" size="xl" />
          <Avatar name="Chef" size="lg" status="thinking" />
          <Avatar name="Atlas" size="lg" status="error" />
          <Avatar name="Penny" />
          <Avatar name="Marie Durand" size="sm" />
          <Badge>3</Badge>
          <Badge variant="secondary">member</Badge>
          <Badge variant="success">{t("settings.enabled")}</Badge>
          <Badge variant="warning">{t("chat.waiting")}</Badge>
          <Badge variant="destructive">{t("chat.error")}</Badge>
          <Badge variant="kin">Penny</Badge>
          <Badge variant="task">{t("chat.task")}</Badge>
          <Badge variant="cron">{t("chat.cron")}</Badge>
        </div>
      </Section>
      <Section title={t("design.bubbles")}>
        <div className="flex flex-col gap-4">
          {sampleMessages.map((message) => (
            <MessageView key={message.id} message={message} me={sampleMe} kin={chef} />
          ))}
          <ChatBubble origin="assistant" name="Chef">
            <MessageText text={sampleCode} />
          </ChatBubble>
          <ChatBubble origin="system" name="">
            Chef was renamed by Marie.
          </ChatBubble>
          <div className="flex items-end gap-2.5">
            <Avatar name="Chef" />
            <TypingIndicator label={t("chat.typing", { name: "Chef" })} />
          </div>
        </div>
      </Section>
    </div>
  );
}

/** `/design`: the design system, light and dark side by side. */
export default function DesignPage() {
  const { t } = useTranslation();
  return (
    <main className="mx-auto flex max-w-7xl flex-col gap-6 p-4 sm:p-8">
      <header className="flex flex-wrap items-center gap-3">
        <div className="flex-1">
          <h1 className="text-3xl font-extrabold tracking-tight">{t("design.title")}</h1>
          <p className="text-muted-foreground">{t("design.subtitle")}</p>
        </div>
        <nav className="flex flex-wrap items-center gap-2" aria-label={t("design.mockups")}>
          <Button asChild variant="outline" size="sm">
            <Link to="/design/mockups/onboarding">Onboarding</Link>
          </Button>
          <Button asChild variant="outline" size="sm">
            <Link to="/design/mockups/chat">Chat</Link>
          </Button>
          <Button asChild variant="outline" size="sm">
            <Link to="/design/mockups/settings">{t("settings.title")}</Link>
          </Button>
          <LanguageSwitch />
          <ThemeToggle />
        </nav>
      </header>
      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Showcase theme="light" />
        <Showcase theme="dark" />
      </div>
    </main>
  );
}
